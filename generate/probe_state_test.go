package generate

import (
	"math"
	"slices"
	"strings"
	"testing"

	"actor/engine"
	"actor/index"
	"actor/internal/testsupport"
	"actor/probe"
	"actor/retrieve"
	"actor/tokenizer"
)

// These tests judge with a probe that reads the hidden state: its members
// fire only on chosen hidden states that the model produces while decoding
// (found by decoding once and recomputing the states in a session of their
// own). A decoder that judged a token with another position's state, or
// with no state, would see the probe fire elsewhere or nowhere.

// offGap is the logit gap every member gives a state it does not fire on:
// p(critical) = sigmoid(−5) ≈ 0.007.
const offGap = -5

// logit is the gap whose sigmoid is p.
func logit(p float64) float32 { return float32(math.Log(p / (1 - p))) }

// states recomputes the final hidden states of a decoding in a fresh
// session: state i is the one token next[i] was sampled from, after seq
// and next[:i].
func states(t *testing.T, m *engine.Model, seq, next []int32) [][]float32 {
	t.Helper()
	s, err := m.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Hidden = true
	p, err := s.Prefill(seq)
	if err != nil {
		t.Fatal(err)
	}
	out := [][]float32{slices.Clone(p.Hidden)}
	for _, id := range next[:len(next)-1] {
		if p, err = s.Step(id); err != nil {
			t.Fatal(err)
		}
		out = append(out, slices.Clone(p.Hidden))
	}
	return out
}

// stateProbe returns an ensemble that fires on the states all[at[j]] and on
// no other state of all: unit j of every member detects state j (its first
// layer row is the state's direction, its bias halfway between the state's
// norm and the largest projection of any other state), and member i gives
// p(critical) = sigmoid(gaps[i]) at every detected state, sigmoid(offGap)
// elsewhere.
func stateProbe(t *testing.T, all [][]float32, at []int, gaps ...float32) *probe.Probe {
	t.Helper()
	d, units := len(all[0]), len(at)
	w1, b1, span := make([]float32, units*d), make([]float32, units), make([]float32, units)
	for j, k := range at {
		norm := math.Sqrt(dot(all[k], all[k]))
		u := w1[j*d : (j+1)*d]
		for i, v := range all[k] {
			u[i] = float32(float64(v) / norm)
		}
		rest := math.Inf(-1)
		for i, h := range all {
			if i != k {
				rest = max(rest, dot(u, h))
			}
		}
		if norm-rest < 1e-3*norm {
			t.Fatalf("state %d is not separable from the others (norm %g, largest other projection %g)", k, norm, rest)
		}
		c := (norm + rest) / 2
		b1[j], span[j] = float32(-c), float32(norm-c)
	}
	p := &probe.Probe{Model: probe.ModelInfo{Arch: "llama", Hidden: d}, Units: units, Threshold: probe.DefaultThreshold}
	for _, g := range gaps {
		w2 := make([]float32, 2*units)
		for j := range units {
			w2[units+j] = (g - offGap) / span[j]
		}
		p.Members = append(p.Members, probe.Member{W1: w1, B1: b1, W2: w2, B2: []float32{0, offGap}})
	}
	return p
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// seqRetriever returns its results in turn, the last one from then on.
type seqRetriever struct {
	results []retrieve.Result
	queries []string
}

func (s *seqRetriever) Retrieve(q string, _ retrieve.Exclusion) ([]retrieve.Result, error) {
	s.queries = append(s.queries, q)
	return []retrieve.Result{s.results[min(len(s.queries), len(s.results))-1]}, nil
}

// stateSetup loads the tiny model and the blocks of shout (the first
// context) and double.
func stateSetup(t *testing.T) (m *engine.Model, tok *tokenizer.Tokenizer, shout, double retrieve.Result) {
	m, tok = loadTiny(t)
	c, err := ReadCorpus(testsupport.WriteTree(t, t.TempDir(), tinyRepo), index.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m, tok, block(blockOf(t, c, "lib/text.py")), block(blockOf(t, c, "lib/math.py"))
}

// stateRun is one ACToR sample of tinyTarget and the sequences its decoder
// prefilled.
type stateRun struct {
	s    *Sample
	a    Attempt
	seqs [][]int32
}

// ids are the attempt's tokens (a replacement in place of a dropped one).
func (r stateRun) ids() []int32 {
	var out []int32
	for _, ev := range r.a.Events {
		out = append(out, ev.ID)
	}
	return out
}

// judged are the positions from `from` on that ACToR judges.
func (r stateRun) judged(tok *tokenizer.Tokenizer, from int) []int {
	var out []int
	for i, ev := range r.a.Events[from:] {
		if probe.Skip(from+i, ev.Text, tok.EOG(ev.ID)) == "" {
			out = append(out, from+i)
		}
	}
	return out
}

// critical are the positions the trigger fired at.
func (r stateRun) critical() []int {
	var out []int
	for i, ev := range r.a.Events {
		if ev.Critical {
			out = append(out, i)
		}
	}
	return out
}

// runACToR decodes tinyTarget's sample 0 with ACToR on a fresh decoder.
func runACToR(t *testing.T, m *engine.Model, tok *tokenizer.Tokenizer, cfg Config, r Retriever, opt ACToROptions) stateRun {
	t.Helper()
	var run stateRun
	d := newDecoder(t, m, tok, DecoderOptions{OnPrefill: func(seq []int32, _ engine.Prediction) { run.seqs = append(run.seqs, seq) }})
	g, err := NewACToR(d, cfg, r, opt)
	if err != nil {
		t.Fatal(err)
	}
	if run.s, err = g.Generate(t.Context(), tinyTarget, 0, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(run.s.Trace.Attempts); n != 1 {
		t.Fatalf("%d attempts", n)
	}
	run.a = run.s.Trace.Attempts[0]
	return run
}

// on is the logit gap of a member that fires: p(critical) ≈ 0.993.
const on = 5

// sigmoid is p(critical) for a logit gap.
func sigmoid(g float32) float64 { return 1 / (1 + math.Exp(-float64(g))) }

// The probe judges each token with the state the token was sampled from: a
// probe that fires on the state of plain decoding's second judged token
// calls that token critical and no other, and the ensemble decides by
// unanimity of its members at the threshold in force.
func TestACToRProbeJudgesTheTokensState(t *testing.T) {
	m, tok, _, double := stateSetup(t)
	cfg := tinyConfig()
	retriever := func() *switchRetriever {
		return &switchRetriever{prompt: tinyTarget.Prompt, first: double, second: double}
	}
	plain := runACToR(t, m, tok, cfg, retriever(), ACToROptions{})
	judged := plain.judged(tok, 0)
	if len(judged) < 3 {
		t.Fatalf("plain decoding judges %v: too few tokens to choose one in the middle", judged)
	}
	k := judged[1]
	all := states(t, m, plain.seqs[0], plain.ids())
	five := func(p float64) []float32 { return slices.Repeat([]float32{logit(p)}, 5) }
	for _, c := range []struct {
		name      string
		gaps      []float32
		threshold float64
		full      bool
		critical  bool
		evaluated int // members evaluated at k
	}{
		{"unanimous", []float32{on, on, on, on, on}, 0, false, true, 5},
		{"one member at 0.5", []float32{on, on, 0, on, on}, 0, true, false, 5},
		{"one member at 0.5, early exit", []float32{on, on, 0, on, on}, 0, false, false, 3},
		{"0.8 over the default 0.7", five(0.8), 0, false, true, 5},
		{"0.8 under an override of 0.9", five(0.8), 0.9, false, false, 1},
		{"0.6 under the default 0.7", five(0.6), 0, false, false, 1},
		{"0.6 over an override of 0.5", five(0.6), 0.5, false, true, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := retriever()
			opt := ACToROptions{Probe: stateProbe(t, all, []int{k}, c.gaps...), Threshold: c.threshold, FullProbs: c.full}
			run := runACToR(t, m, tok, cfg, r, opt)
			var want []int
			if c.critical {
				want = []int{k}
			}
			if got := run.critical(); !slices.Equal(got, want) || run.s.Trace.Triggers != len(want) || len(r.queries) != 1+len(want) {
				t.Fatalf("critical at %v, want %v; %d triggers, %d retrievals", got, want, run.s.Trace.Triggers, len(r.queries))
			}
			if c.critical {
				body := ""
				for _, ev := range run.a.Events[:k+1] {
					body += ev.Text
				}
				if q := retrieve.ACToRQuery(tinyTarget.Prompt, body); r.queries[1] != q || run.a.Events[k].Query != q {
					t.Errorf("query %q, want the body through token %d: %q", r.queries[1], k, q)
				}
			}
			if run.s.Code != plain.s.Code || run.s.Trace.ContextChanges != 0 {
				t.Errorf("code %q, %d changes; plain decoding with the same context %q", run.s.Code, run.s.Trace.ContextChanges, plain.s.Code)
			}
			for _, i := range judged {
				p := run.a.Events[i].P
				n, gap := 1, float32(offGap)
				if c.full {
					n = len(c.gaps)
				}
				if i == k {
					n = c.evaluated
				}
				if len(p) != n {
					t.Fatalf("token %d: %d members evaluated (%v), want %d", i, len(p), p, n)
				}
				for mi, pm := range p {
					if i == k {
						gap = c.gaps[mi]
					}
					if math.Abs(float64(pm)-sigmoid(gap)) > 1e-3 {
						t.Errorf("token %d member %d: p(critical) %.4f, want %.4f", i, mi, pm, sigmoid(gap))
					}
				}
			}
		})
	}
}

// A second critical token changes the context again: shout, then double
// at the first judged token, then shout again at the next one, whose
// re-prefill recomputes only the tokens since the first change (the first
// context's cache was kept).
func TestACToRSecondContextChange(t *testing.T) {
	m, tok, shout, double := stateSetup(t)
	cfg := tinyConfig()
	cfg.MaxNewTokens = 24
	plain := runACToR(t, m, tok, cfg, &seqRetriever{results: []retrieve.Result{shout}}, ACToROptions{})
	k1 := plain.judged(tok, 0)[0]
	sa := states(t, m, plain.seqs[0], plain.ids())[:k1+1]
	// Decode once with a change at k1 only, to find the states under double.
	once := runACToR(t, m, tok, cfg, &seqRetriever{results: []retrieve.Result{shout, double}},
		ACToROptions{Probe: stateProbe(t, sa, []int{k1}, on, on, on, on, on)})
	if once.s.Trace.ContextChanges != 1 || !once.a.Events[k1].Changed || len(once.seqs) != 2 {
		t.Fatalf("first decoding: %d changes, event %d %+v", once.s.Trace.ContextChanges, k1, once.a.Events[k1])
	}
	ids := once.ids()
	jb := once.judged(tok, k1+1)
	if len(jb) == 0 {
		t.Fatalf("no judged token after the change at %d: %q", k1, once.s.Code)
	}
	k2 := jb[0]
	all := append(slices.Clone(sa), states(t, m, once.seqs[1], ids[k1:])...) // position k1+j is sa's length + j
	r := &seqRetriever{results: []retrieve.Result{shout, double, shout}}
	run := runACToR(t, m, tok, cfg, r, ACToROptions{Probe: stateProbe(t, all, []int{k1, len(sa) + k2 - k1}, on, on, on, on, on)})

	if got := slices.DeleteFunc(run.critical(), func(i int) bool { return i > k2 }); !slices.Equal(got, []int{k1, k2}) {
		t.Fatalf("critical at %v up to %d, want %d and %d", got, k2, k1, k2)
	}
	if run.s.Trace.ContextChanges != 2 || !slices.Equal(run.ids()[:k2], ids[:k2]) {
		t.Fatalf("%d changes; tokens %v before the second, want %v", run.s.Trace.ContextChanges, run.ids()[:k2], ids[:k2])
	}
	for _, c := range []struct {
		at            int
		before, after string
		dropped       int32
	}{{k1, "lib/text.py", "lib/math.py", plain.ids()[k1]}, {k2, "lib/math.py", "lib/text.py", ids[k2]}} {
		ev := run.a.Events[c.at]
		if !ev.Changed || len(ev.Before) != 1 || ev.Before[0].Path != c.before || len(ev.After) != 1 || ev.After[0].Path != c.after ||
			ev.Dropped == nil || ev.Dropped.ID != c.dropped {
			t.Errorf("token %d: %+v, want a change from %s to %s dropping %d", c.at, ev, c.before, c.after, c.dropped)
		}
	}
	if len(run.seqs) != 3 || !slices.Equal(run.seqs[2], append(slices.Clone(plain.seqs[0]), ids[:k2]...)) {
		t.Fatalf("prefilled %d sequences, want the shout prompt + the tokens before %d last", len(run.seqs), k2)
	}
	if ev := run.a.Events[k2]; ev.Reprefilled != k2-k1 {
		t.Errorf("return to shout recomputed %d tokens, want the %d since the first change", ev.Reprefilled, k2-k1)
	}
	if !strings.Contains(run.s.Prompt, "# def shout(s):") || strings.Contains(run.s.Prompt, "double") {
		t.Errorf("final prompt %q", run.s.Prompt)
	}
}

// At temperature > 0 ACToR samples, seeded: the critical token is the one
// plain sampling drew (judging draws nothing), and two runs are the same.
func TestACToRSampledIsSeeded(t *testing.T) {
	m, tok, shout, double := stateSetup(t)
	greedyCfg := tinyConfig()
	greedyCfg.Retries = 0
	cfg := greedyCfg
	cfg.Temperature, cfg.Seed = 0.8, 7
	first := func() *seqRetriever { return &seqRetriever{results: []retrieve.Result{shout}} }
	greedy := runACToR(t, m, tok, greedyCfg, first(), ACToROptions{})
	plain := runACToR(t, m, tok, cfg, first(), ACToROptions{})
	ids := plain.ids()
	if slices.Equal(ids, greedy.ids()) {
		t.Fatalf("temperature 0.8 drew the greedy tokens %v", ids)
	}
	judged := plain.judged(tok, 0)
	if len(judged) == 0 {
		t.Fatalf("nothing judged in %q", plain.s.Code)
	}
	k := judged[0]
	all := states(t, m, plain.seqs[0], ids)[:k+1]
	opt := ACToROptions{Probe: stateProbe(t, all, []int{k}, on, on, on, on, on)}
	var runs [2]stateRun
	for i := range runs {
		runs[i] = runACToR(t, m, tok, cfg, &seqRetriever{results: []retrieve.Result{shout, double}}, opt)
	}
	a, b := runs[0], runs[1]
	ev := a.a.Events[k]
	if !ev.Critical || !ev.Changed || ev.Dropped == nil || ev.Dropped.ID != ids[k] || !slices.Equal(a.ids()[:k], ids[:k]) {
		t.Fatalf("token %d: %+v; want plain sampling's %v dropped after the same tokens", k, ev, ids[k])
	}
	if a.s.Code != b.s.Code || !slices.Equal(a.ids(), b.ids()) || !slices.Equal(a.critical(), b.critical()) ||
		a.s.Trace.ContextChanges != b.s.Trace.ContextChanges || a.a.Seed != b.a.Seed {
		t.Errorf("two runs differ: %q (critical %v) and %q (critical %v)", a.s.Code, a.critical(), b.s.Code, b.critical())
	}
}
