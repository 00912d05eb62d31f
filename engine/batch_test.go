package engine

import (
	"actor/internal/testsupport"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"actor/models"
)

// batchVsAlone prefills seqs into sessions that first held cached[i],
// once with PrefillBatch and once session by session, then steps every
// session by one token the same two ways. It returns the worst logit and
// hidden-state difference and the tokens the batched sessions computed.
func batchVsAlone(t *testing.T, m *Model, cached, seqs [][]int32) (worst float64, computed int) {
	t.Helper()
	open := func() []*Session {
		var ss []*Session
		for _, c := range cached {
			s := newSession(t, m)
			s.Hidden = true
			if len(c) > 0 {
				if _, err := s.Prefill(c); err != nil {
					t.Fatal(err)
				}
			}
			ss = append(ss, s)
		}
		return ss
	}
	batched, alone := open(), open()
	before := 0
	for _, s := range batched {
		before += s.Computed()
	}
	for round := range 2 {
		if round == 1 { // one step each: the next token after each sequence
			for i := range seqs {
				seqs[i] = append(slices.Clip(seqs[i]), int32(100+i))
			}
		}
		preds, err := m.PrefillBatch(batched, seqs)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range alone {
			var p Prediction
			if round == 0 {
				p, err = s.Prefill(seqs[i])
			} else {
				p, err = s.Step(seqs[i][len(seqs[i])-1])
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(batched[i].Tokens(), seqs[i]) || preds[i].Top1 != p.Top1 {
				t.Errorf("round %d session %d: holds %d tokens, top %d; alone top %d", round, i, batched[i].Len(), preds[i].Top1, p.Top1)
			}
			worst = max(worst, testsupport.MaxAbsDiff(preds[i].Logits, p.Logits), testsupport.MaxAbsDiff(preds[i].Hidden, p.Hidden))
		}
	}
	for _, s := range batched {
		computed += s.Computed()
	}
	return worst, computed - before
}

func TestPrefillBatchMatchesAlone(t *testing.T) {
	eachTiny(t, []string{"llama_gqa", "qwen2_untied_mqa"}, func(t *testing.T, r *tinyRef, m *Model) {
		ids, alt := r.IDs, r.AltIDs // alt shares the first 6 ids
		cached := [][]int32{nil, ids[:4], alt, nil}
		seqs := [][]int32{ids, ids[:9], alt[:7], alt}
		// Session 0 computes ids; 1 copies 8 of them from it (more than its
		// own 4) and computes 1; 2 keeps 6 of its own (session 0's ids
		// share no more) and computes 1; 3 copies alt[:7] from 2 and
		// computes the rest. Then one step each.
		worst, computed := batchVsAlone(t, m, cached, seqs)
		want := len(ids) + 1 + 1 + (len(alt) - 7) + 4
		if worst > 1e-5 || computed != want {
			t.Errorf("batched sessions differ from each alone by %g; computed %d tokens, want %d", worst, computed, want)
		}
	})
}

// n samples of one prompt: the prompt is computed once.
func TestPrefillBatchSharedPrompt(t *testing.T) {
	r := loadRef(t, "llama_mha")
	m := loadTiny(t, r, false)
	seqs := [][]int32{r.IDs, r.IDs, r.IDs}
	worst, computed := batchVsAlone(t, m, [][]int32{nil, nil, nil}, seqs)
	if want := len(r.IDs) + 2 + 3; worst > 1e-5 || computed != want {
		t.Errorf("differs by %g; computed %d tokens, want %d (the prompt once, its last token for the others, one step each)", worst, computed, want)
	}
}

func TestPrefillBatchSmolLM2(t *testing.T) {
	for _, flash := range []bool{false, true} {
		m := smol(t, flash)
		a, b := realIDs(150, 1), realIDs(90, 2)
		// Sessions: a fresh prompt longer than one batch, a step after a
		// shared prefix, and b from scratch.
		worst, _ := batchVsAlone(t, m, [][]int32{nil, a[:100], nil}, [][]int32{a, slices.Clone(a[:101]), b})
		t.Logf("flash %v: largest difference from each session alone %g", flash, worst)
		if worst != 0 {
			t.Errorf("flash %v: batched sessions differ from each alone by %g", flash, worst)
		}
	}
}

// Qwen2.5-Coder-0.5B's repacked Q4_K matrices round four or more rows in
// one product otherwise than one row: five sessions, three stepping, one
// computing 30 tokens after its cache and one a fresh 100-token prompt
// (two chunks), then all five stepping, must get the logits each gets
// alone, bit for bit.
func TestPrefillBatchQwenIsExact(t *testing.T) {
	m, err := Load(testsupport.Model(t, "qwen2.5-coder-0.5b"), Options{Threads: 2, ContextLength: 512, BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	a, b := realIDs(300, 3), realIDs(100, 4)
	cached := [][]int32{a[:200], a[:207], a[:214], a[:221], nil}
	seqs := [][]int32{slices.Clone(a[:201]), slices.Clone(a[:208]), slices.Clone(a[:244]), slices.Clone(a[:222]), b}
	if worst, _ := batchVsAlone(t, m, cached, seqs); worst != 0 {
		t.Errorf("batched sessions differ from each alone by %g", worst)
	}
}

func TestPrefillBatchRejects(t *testing.T) {
	r := loadRef(t, "llama_mha")
	m := loadTiny(t, r, false) // 64 positions
	other := loadTiny(t, r, false)
	a, b := newSession(t, m), newSession(t, m)
	ok := r.IDs[:3]
	for _, tc := range []struct {
		name string
		ss   []*Session
		seqs [][]int32
		want string
	}{
		{"none", nil, nil, "0 sequences into 0"},
		{"counts", []*Session{a}, [][]int32{ok, ok}, "2 sequences into 1"},
		{"twice", []*Session{a, a}, [][]int32{ok, ok}, "session 1 appears twice"},
		{"other model", []*Session{a, newSession(t, other)}, [][]int32{ok, ok}, "session 1 is not"},
		{"empty", []*Session{a, b}, [][]int32{ok, nil}, "session 1: prefill of an empty"},
		{"too long", []*Session{a, b}, [][]int32{ok, make([]int32, 65)}, "session 1: engine: 65 tokens"},
	} {
		_, err := m.PrefillBatch(tc.ss, tc.seqs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := m.PrefillBatch([]*Session{a, b}, [][]int32{ok, make([]int32, 65)}); !errors.Is(err, ErrContextFull) || a.Len() != 0 {
		t.Errorf("context full: %v, and session 0 holds %d tokens (nothing should run)", err, a.Len())
	}
	if err := a.Fork(newSession(t, other), 0); err == nil {
		t.Error("fork from another model accepted")
	}
	if err := a.Fork(b, 1); err == nil {
		t.Error("fork of more tokens than the source holds accepted")
	}
}

// BenchmarkSteps compares n sessions stepping one at a time with the same
// steps batched by PrefillBatch, after a 512-token prompt each: one op is
// one token for each session. The model is $ACTOR_BENCH_MODEL (a name or
// file), else SmolLM2.
func BenchmarkSteps(b *testing.B) {
	path := os.Getenv("ACTOR_BENCH_MODEL")
	if path == "" {
		path = "smollm2-135m"
	}
	if p, err := models.Resolve(path); err == nil {
		path = p
	} else if _, err := os.Stat(path); err != nil {
		b.Skipf("no model %s", path)
	}
	m, err := Load(path, Options{Threads: 2, ContextLength: 2048})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	const n = 5
	prompt := realIDs(512, 9)
	for _, batched := range []bool{false, true} {
		name := "sequential-5"
		if batched {
			name = "batched-5"
		}
		b.Run(name, func(b *testing.B) {
			ss := make([]*Session, n)
			seqs := make([][]int32, n)
			for i := range ss {
				if ss[i], err = m.NewSession(); err != nil {
					b.Fatal(err)
				}
				defer ss[i].Close()
				seqs[i] = slices.Clone(prompt)
			}
			if _, err := m.PrefillBatch(ss, seqs); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				tok := int32(300 + k%1000)
				if batched {
					for i := range seqs {
						seqs[i] = append(seqs[i], tok)
					}
					_, err = m.PrefillBatch(ss, seqs)
				} else {
					for _, s := range ss {
						if _, err = s.Step(tok); err != nil {
							break
						}
					}
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
