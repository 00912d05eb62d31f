package generate

import (
	"actor/retrieve"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"actor/engine"
	"actor/index"
	"actor/internal/testsupport"
	"actor/probe"
)

// swapSetup generates with ACToR on the tiny repository, a probe whose
// members always say critical, and the switch retriever: the target prompt
// retrieves shout (wrong), any critical token's query retrieves double.
func swapSetup(t *testing.T, opt DecoderOptions, obs Observer) (*Decoder, *switchRetriever, *Sample, [][]int32, []engine.Prediction) {
	m, tok := loadTiny(t)
	var seqs [][]int32
	var preds []engine.Prediction
	opt.OnPrefill = func(seq []int32, p engine.Prediction) { seqs, preds = append(seqs, seq), append(preds, p) }
	d := newDecoder(t, m, tok, opt)
	c, err := ReadCorpus(testsupport.WriteTree(t, t.TempDir(), tinyRepo), index.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := &switchRetriever{prompt: tinyTarget.Prompt, first: block(blockOf(t, c, "lib/text.py")), second: block(blockOf(t, c, "lib/math.py"))}
	g, err := NewACToR(d, tinyConfig(), r, ACToROptions{Probe: testsupport.ConstProbe(m.Config.Embed, 10), FullProbs: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Generate(t.Context(), tinyTarget, 0, obs)
	if err != nil {
		t.Fatal(err)
	}
	return d, r, s, seqs, preds
}

// changeEvent returns the one event whose retrieval changed the context.
func changeEvent(t *testing.T, a Attempt) (int, TokenEvent) {
	t.Helper()
	at := -1
	for i, ev := range a.Events {
		if ev.Changed {
			if at >= 0 {
				t.Fatalf("context changed at %d and %d; the second retrieval returns the same block", at, i)
			}
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("no context change in %+v", a.Events)
	}
	return at, a.Events[at]
}

func TestACToRForcedCriticalSwapsContext(t *testing.T) {
	_, r, s, _, _ := swapSetup(t, DecoderOptions{}, nil)
	if len(s.Trace.Attempts) != 1 {
		t.Fatalf("%d attempts", len(s.Trace.Attempts))
	}
	a := s.Trace.Attempts[0]
	at, ev := changeEvent(t, a)
	if a.Events[0].Skip != "first" || a.Events[0].P != nil {
		t.Errorf("first token was judged: %+v", a.Events[0])
	}
	for i, e := range a.Events[:at] {
		if i > 0 && e.Skip != "space" {
			t.Errorf("token %d before the change: %+v (only whitespace may come before the first judged token)", i, e)
		}
	}
	if ev.Dropped == nil || ev.Dropped.ID == ev.ID {
		t.Fatalf("the replacement did not change the token: %+v", ev)
	}
	if len(ev.P) != 5 || !ev.Critical || ev.P[0] < 0.99 {
		t.Errorf("member probabilities %v critical %v", ev.P, ev.Critical)
	}
	if len(ev.Before) != 1 || ev.Before[0].Path != "lib/text.py" || len(ev.After) != 1 || ev.After[0].Path != "lib/math.py" {
		t.Errorf("blocks before %+v after %+v", ev.Before, ev.After)
	}
	body := ""
	for _, e := range a.Events[:at] {
		body += e.Text
	}
	if want := retrieve.ACToRQuery(tinyTarget.Prompt, body+ev.Dropped.Text); ev.Query != want || r.queries[1] != want {
		t.Errorf("query %q, want retrieve.ACToRQuery of the target prompt and body + token %q", ev.Query, want)
	}
	// Every later judged token triggers again, finds the same block, and
	// keeps its token: one change, and the final prompt shows double.
	if s.Trace.ContextChanges != 1 || s.Trace.Triggers != a.Judged || s.Trace.Triggers < 2 {
		t.Errorf("triggers %d (judged %d), changes %d", s.Trace.Triggers, a.Judged, s.Trace.ContextChanges)
	}
	for _, e := range a.Events[at+1:] {
		if e.Skip == "" && (e.Dropped != nil || e.Changed) {
			t.Errorf("token after the change dropped: %+v", e)
		}
	}
	if !strings.Contains(s.Prompt, "# def double(x):") || strings.Contains(s.Prompt, "shout") {
		t.Errorf("final prompt %q", s.Prompt)
	}
	if line, err := json.Marshal(s.Trace); err != nil || !strings.Contains(string(line), `"changed":true`) || !strings.Contains(string(line), `"dropped":{`) {
		t.Errorf("trace JSON %v: %s", err, line)
	}
}

func TestACToRReusedCacheEqualsFreshPrefill(t *testing.T) {
	d, _, s, seqs, preds := swapSetup(t, DecoderOptions{}, nil)
	if len(seqs) != 2 {
		t.Fatalf("%d prefills, want the prompt and one rebuilt prompt", len(seqs))
	}
	a := s.Trace.Attempts[0]
	at, ev := changeEvent(t, a)
	var gen []int32
	for _, e := range a.Events[:at] {
		gen = append(gen, e.ID)
	}
	// The rebuilt sequence is the new prompt followed by the body's tokens.
	newPrompt := d.tok.Encode(s.Prompt, true)
	if !slices.Equal(seqs[1], append(newPrompt, gen...)) {
		t.Fatalf("rebuilt sequence %v, want new prompt + body tokens", seqs[1])
	}
	fresh, err := d.model.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	p, err := fresh.Prefill(seqs[1])
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for i := range p.Logits {
		worst = max(worst, math.Abs(float64(p.Logits[i]-preds[1].Logits[i])))
	}
	if worst > 1e-4 {
		t.Errorf("logits after the context change differ from a fresh prefill by %g", worst)
	}
	if p.Top1 != ev.ID {
		t.Errorf("greedy replacement %d, fresh prefill's top token %d", ev.ID, p.Top1)
	}
	// The sequences share little (the block comes first), so the rebuilt
	// one went to a second cache and the first context's cache was kept.
	if lcp := commonPrefix(seqs[0], seqs[1]); 4*lcp >= len(seqs[1]) || ev.Evaluated != len(seqs[1])+1 || len(d.kv.slots) != 2 {
		t.Errorf("re-prefill evaluated %d tokens (+1 for the replacement's step) of %d, sharing %d; %d caches",
			ev.Evaluated, len(seqs[1]), lcp, len(d.kv.slots))
	}
}

func TestACToRUnchangedContextRecomputesNothing(t *testing.T) {
	m, tok := loadTiny(t)
	c, err := ReadCorpus(testsupport.WriteTree(t, t.TempDir(), tinyRepo), index.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	same := block(blockOf(t, c, "lib/math.py"))
	r := &switchRetriever{prompt: tinyTarget.Prompt, first: same, second: same}
	d := newDecoder(t, m, tok)
	g, err := NewACToR(d, tinyConfig(), r, ACToROptions{Probe: testsupport.ConstProbe(m.Config.Embed, 10)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Generate(t.Context(), tinyTarget, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := s.Trace.Attempts[0]
	if s.Trace.Triggers < 2 || s.Trace.ContextChanges != 0 || len(r.queries) != 1+s.Trace.Triggers {
		t.Fatalf("triggers %d, changes %d, %d retrievals", s.Trace.Triggers, s.Trace.ContextChanges, len(r.queries))
	}
	// One prefill of the prompt, then exactly one evaluated token per step.
	w, steps := a.Work, a.Tokens-1 // the last token is not run after a stop
	if a.Stop == "eog" {
		steps = a.Tokens // the end token is sampled after the last step
	}
	if w.Prefills != 1 || w.Evaluated != a.PromptTokens+w.Steps || w.Steps != steps {
		t.Errorf("work %+v for a prompt of %d tokens and %d generated", w, a.PromptTokens, a.Tokens)
	}
	// The kept tokens are those of plain decoding with the same context.
	plain, err := NewACToR(newDecoder(t, m, tok), tinyConfig(), r, ACToROptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := plain.Generate(t.Context(), tinyTarget, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Code != s.Code || p.Trace.Triggers != 0 || p.Trace.Attempts[0].Judged != 0 {
		t.Errorf("plain decoding %q (triggers %d), with unchanged context %q", p.Code, p.Trace.Triggers, s.Code)
	}
	if plain.Method() != MethodACToR || len(plain.Notes()) != 1 {
		t.Errorf("inference-off notes %q", plain.Notes())
	}
}

func TestACToRNeverCriticalNeverRetrieves(t *testing.T) {
	m, tok := loadTiny(t)
	c, err := ReadCorpus(testsupport.WriteTree(t, t.TempDir(), tinyRepo), index.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := &switchRetriever{prompt: tinyTarget.Prompt, first: block(blockOf(t, c, "lib/math.py")), second: block(blockOf(t, c, "lib/text.py"))}
	g, err := NewACToR(newDecoder(t, m, tok), tinyConfig(), r, ACToROptions{Probe: testsupport.ConstProbe(m.Config.Embed, -10)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Generate(t.Context(), tinyTarget, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := s.Trace.Attempts[0]
	if s.Trace.Triggers != 0 || len(r.queries) != 1 || a.Judged == 0 {
		t.Errorf("triggers %d, %d retrievals, %d judged", s.Trace.Triggers, len(r.queries), a.Judged)
	}
	for _, e := range a.Events {
		if e.Skip == "" && len(e.P) != 1 {
			t.Errorf("early exit: %d members evaluated for a non-critical token", len(e.P))
		}
	}
}

func TestACToRRejectsProbeOfAnotherModel(t *testing.T) {
	m, tok := loadTiny(t)
	_, err := NewACToR(newDecoder(t, m, tok), tinyConfig(), nil, ACToROptions{Probe: testsupport.ConstProbe(m.Config.Embed+1, 1)})
	if err == nil {
		t.Fatal("a probe for hidden size 65 was accepted for a model of 64")
	}
}

// With SkipComments a token inside a # comment is not judged (an always-
// critical probe does not fire there) and one in code is.
func TestACToRSkipsComments(t *testing.T) {
	m, tok := loadTiny(t)
	c, err := ReadCorpus(testsupport.WriteTree(t, t.TempDir(), tinyRepo), index.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := &switchRetriever{prompt: tinyTarget.Prompt, first: block(blockOf(t, c, "lib/math.py")), second: block(blockOf(t, c, "lib/text.py"))}
	g, err := NewACToR(newDecoder(t, m, tok), tinyConfig(), r, ACToROptions{Probe: testsupport.ConstProbe(m.Config.Embed, 10), SkipComments: true})
	if err != nil {
		t.Fatal(err)
	}
	x := tok.Encode("x", false)
	if len(x) != 1 {
		t.Fatalf("x is %d tokens", len(x))
	}
	crit := &critical{g: g.(*actor), t: tinyTarget, trig: g.(*actor).trigger()}
	pred := &engine.Prediction{Hidden: make([]float32, m.Config.Embed)}
	for _, cs := range []struct {
		body, skip string
		triggers   int
	}{
		{"    # double ", probe.SkipComment, 0},
		{"    return 2 * x\n    # ", probe.SkipComment, 0},
		{"    # note\n    y = ", "", 1},
	} {
		var ev TokenEvent
		if _, err := crit.check(3, x[0], cs.body, pred, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Skip != cs.skip || crit.triggers != cs.triggers {
			t.Errorf("after %q: skip %q, %d triggers; want %q, %d", cs.body, ev.Skip, crit.triggers, cs.skip, cs.triggers)
		}
	}
}
