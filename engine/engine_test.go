package engine

import (
	"errors"
	"math"
	"slices"
	"testing"

	"actor/engine/ggml"
	"actor/internal/testsupport"
)

const tol = 1e-4 // max abs error allowed against the float32 HF reference

func TestTinyConfig(t *testing.T) {
	for _, name := range tinyCases {
		r := loadRef(t, name)
		m := loadTiny(t, r, false)
		c := m.Config
		if c.Architecture != r.Arch || c.Vocab != r.Vocab || c.Embed != r.Hidden || c.Heads != r.Heads || c.Layers != 2 {
			t.Errorf("%s: config %+v disagrees with the reference", name, c)
		}
	}
}

// TestTinyStepMatchesHF decodes the reference ids one token at a time and
// compares logits, hidden states, top-1 and entropy at every position.
func TestTinyStepMatchesHF(t *testing.T) {
	eachTiny(t, tinyCases, func(t *testing.T, r *tinyRef, m *Model) {
		s := newSession(t, m)
		s.Hidden = true
		var worstL, worstH float64
		for i, id := range r.IDs {
			var p Prediction
			var err error
			if i == 0 {
				p, err = s.Prefill(r.IDs[:1])
			} else {
				p, err = s.Step(id)
			}
			if err != nil {
				t.Fatal(err)
			}
			dl, dh := testsupport.MaxAbsDiff(p.Logits, row(r.Logits, i, r.Vocab)), testsupport.MaxAbsDiff(p.Hidden, row(r.HiddenS, i, r.Hidden))
			if dl > tol || dh > tol {
				t.Errorf("position %d: logits max abs err %.2e, hidden %.2e", i, dl, dh)
			}
			worstL, worstH = max(worstL, dl), max(worstH, dh)
			if p.Top1 != r.Top1[i] || math.Abs(p.Entropy-r.Entropy[i]) > tol {
				t.Errorf("position %d: top1 %d entropy %.6f, want %d %.6f", i, p.Top1, p.Entropy, r.Top1[i], r.Entropy[i])
			}
		}
		t.Logf("step by step: logits max abs err %.1e, hidden %.1e", worstL, worstH)
	})
}

// TestTinyBatchMatchesHF runs the whole sequence as one batch and reads
// every row, including the head-averaged last-layer attention.
func TestTinyBatchMatchesHF(t *testing.T) {
	eachTiny(t, tinyCases, func(t *testing.T, r *tinyRef, m *Model) {
		s := newSession(t, m)
		b := ggml.Batch{Tokens: r.IDs, Logits: true, Hidden: true, Attention: true}
		for i := range r.N {
			b.Outputs = append(b.Outputs, i)
		}
		out, err := m.net.Forward(s.cache, b)
		if err != nil {
			t.Fatal(err)
		}
		dl, dh := testsupport.MaxAbsDiff(out.Logits, r.Logits), testsupport.MaxAbsDiff(out.Hidden, r.HiddenS)
		if dl > tol || dh > tol {
			t.Errorf("logits max abs err %.2e, hidden %.2e", dl, dh)
		}
		var worst float64
		for q := range r.N {
			for k := range r.N {
				worst = max(worst, math.Abs(float64(out.Attention[q*r.N+k])-r.attnMean(q, k)))
			}
		}
		if worst > tol {
			t.Errorf("attention max abs err %.2e", worst)
		}
		t.Logf("batch of %d: logits max abs err %.1e, hidden %.1e, attention %.1e", r.N, dl, dh, worst)
	})
}

// TestTinyOutputSubset checks that reading only some rows (the last layer
// then runs for those rows alone) gives the same rows as reading all.
func TestTinyOutputSubset(t *testing.T) {
	eachTiny(t, []string{"qwen2_tied"}, func(t *testing.T, r *tinyRef, m *Model) {
		s := newSession(t, m)
		outs := []int{2, 7, 11}
		out, err := m.net.Forward(s.cache, ggml.Batch{Tokens: r.IDs, Outputs: outs, Logits: true, Hidden: true, Attention: true})
		if err != nil {
			t.Fatal(err)
		}
		for j, i := range outs {
			if d := testsupport.MaxAbsDiff(row(out.Logits, j, r.Vocab), row(r.Logits, i, r.Vocab)); d > tol {
				t.Errorf("row %d: logits err %.2e", i, d)
			}
			if d := testsupport.MaxAbsDiff(row(out.Hidden, j, r.Hidden), row(r.HiddenS, i, r.Hidden)); d > tol {
				t.Errorf("row %d: hidden err %.2e", i, d)
			}
			for k := range r.N {
				if d := math.Abs(float64(out.Attention[j*r.N+k]) - r.attnMean(i, k)); d > tol {
					t.Fatalf("row %d key %d: attention err %.2e", i, k, d)
				}
			}
		}
	})
}

func TestTinyScore(t *testing.T) {
	eachTiny(t, tinyCases, func(t *testing.T, r *tinyRef, m *Model) {
		const P = 4
		prompt, target := r.IDs[:P], r.IDs[P:]
		sc, err := newSession(t, m).Score(prompt, target)
		if err != nil {
			t.Fatal(err)
		}
		// step by step with the same engine
		s := newSession(t, m)
		s.Hidden = true
		p, err := s.Prefill(prompt)
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range target {
			ref := row(r.Logits, P-1+i, r.Vocab)
			_, logZ, _ := summarize(ref)
			wantLP := float64(ref[id]) - logZ
			if sc.Top1[i] != p.Top1 || sc.Top1[i] != r.Top1[P-1+i] {
				t.Errorf("target %d: top1 %d, step %d, HF %d", i, sc.Top1[i], p.Top1, r.Top1[P-1+i])
			}
			if math.Abs(sc.Entropy[i]-p.Entropy) > 1e-5 || math.Abs(sc.Entropy[i]-r.Entropy[P-1+i]) > tol {
				t.Errorf("target %d: entropy %.6f, step %.6f, HF %.6f", i, sc.Entropy[i], p.Entropy, r.Entropy[P-1+i])
			}
			if math.Abs(sc.LogProb[i]-p.LogProb(id)) > 1e-5 || math.Abs(sc.LogProb[i]-wantLP) > tol {
				t.Errorf("target %d: logprob %.6f, step %.6f, HF %.6f", i, sc.LogProb[i], p.LogProb(id), wantLP)
			}
			if d := testsupport.MaxAbsDiff(sc.Hidden[i], p.Hidden); d > 1e-5 {
				t.Errorf("target %d: hidden differs from step decoding by %.2e", i, d)
			}
			if d := testsupport.MaxAbsDiff(sc.Hidden[i], row(r.HiddenS, P-1+i, r.Hidden)); d > tol {
				t.Errorf("target %d: hidden err %.2e", i, d)
			}
			if len(sc.Attention[i]) != i {
				t.Fatalf("target %d: %d attention values, want %d", i, len(sc.Attention[i]), i)
			}
			for k := range i {
				if d := math.Abs(float64(sc.Attention[i][k]) - r.attnMean(P+i, P+k)); d > tol {
					t.Errorf("attention %d->%d err %.2e", i, k, d)
				}
			}
			if p, err = s.Step(id); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestInfluence(t *testing.T) {
	sc := &Scores{Attention: [][]float32{{}, {0.5}, {0.1, 0.2}, {0.3, 0.4, 0.6}}}
	if got := sc.AttentionTo(0); !slices.Equal(got, []float32{0.5, 0.1, 0.3}) {
		t.Fatalf("column 0 = %v", got)
	}
	cases := []struct {
		i, k int
		want float64
	}{{0, 2, (0.5 + 0.3) / 2}, {0, 5, 0.9 / 3}, {1, 1, 0.4}, {3, 5, 0}}
	for _, c := range cases {
		if got := sc.Influence(c.i, c.k); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("Influence(%d,%d) = %v, want %v", c.i, c.k, got, c.want)
		}
	}
}

// TestPrefixReuse edits a cached prompt (its end, then its middle) and
// checks that only the changed suffix is recomputed and that the logits
// equal a fresh prefill and the HF reference.
func TestPrefixReuse(t *testing.T) {
	eachTiny(t, []string{"llama_gqa", "qwen2_tied"}, func(t *testing.T, r *tinyRef, m *Model) {
		s := newSession(t, m)
		if _, err := s.Prefill(r.IDs); err != nil {
			t.Fatal(err)
		}
		before := s.computed
		p, err := s.Prefill(r.AltIDs) // shares the first 6 ids
		if err != nil {
			t.Fatal(err)
		}
		if got := s.computed - before; got != r.N-6 {
			t.Errorf("recomputed %d tokens, want %d", got, r.N-6)
		}
		if d := testsupport.MaxAbsDiff(p.Logits, row(r.AltLogit, r.N-1, r.Vocab)); d > tol {
			t.Errorf("reused cache: logits err %.2e vs HF", d)
		}
		// change one token in the middle
		mid := slices.Clone(r.AltIDs)
		mid[4] = (mid[4] + 1) % int32(r.Vocab)
		before = s.computed
		p, err = s.Prefill(mid)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.computed - before; got != r.N-4 {
			t.Errorf("middle edit recomputed %d tokens, want %d", got, r.N-4)
		}
		fresh, err := newSession(t, m).Prefill(mid)
		if err != nil {
			t.Fatal(err)
		}
		if d := testsupport.MaxAbsDiff(p.Logits, fresh.Logits); d > 1e-5 {
			t.Errorf("middle edit: logits differ from a fresh prefill by %.2e", d)
		}
		// the same sequence again recomputes only its last token
		before = s.computed
		again, err := s.Prefill(mid)
		if err != nil || s.computed-before != 1 || testsupport.MaxAbsDiff(again.Logits, fresh.Logits) > 1e-5 {
			t.Errorf("repeat prefill: err %v, recomputed %d", err, s.computed-before)
		}
	})
}

func TestTruncate(t *testing.T) {
	r := loadRef(t, "llama_mha")
	s := newSession(t, loadTiny(t, r, false))
	if _, err := s.Prefill(r.IDs); err != nil {
		t.Fatal(err)
	}
	if err := s.Truncate(5); err != nil || s.Len() != 5 {
		t.Fatalf("truncate: %v, len %d", err, s.Len())
	}
	p, err := s.Step(r.IDs[5])
	if err != nil {
		t.Fatal(err)
	}
	if d := testsupport.MaxAbsDiff(p.Logits, row(r.Logits, 5, r.Vocab)); d > tol {
		t.Errorf("after truncate: logits err %.2e", d)
	}
	if err := s.Truncate(7); err == nil {
		t.Error("truncate beyond the cached tokens: no error")
	}
}

func TestContextFull(t *testing.T) {
	r := loadRef(t, "llama_mha")
	m := loadTiny(t, r, false) // 64 positions
	s := newSession(t, m)
	long := make([]int32, 65)
	if _, err := s.Prefill(long); !errors.Is(err, ErrContextFull) {
		t.Fatalf("65 tokens in a context of 64: %v", err)
	}
	if _, err := s.Score(long[:60], long[:5]); !errors.Is(err, ErrContextFull) {
		t.Fatalf("score past the context: %v", err)
	}
	if _, err := s.Prefill(long[:64]); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Step(1); !errors.Is(err, ErrContextFull) {
		t.Fatalf("step past the context: %v", err)
	}
}
