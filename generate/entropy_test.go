package generate

import (
	"slices"
	"strings"
	"testing"

	"actor/index"
	"actor/internal/testsupport"
)

// entropyRun generates the tiny target with ACToR triggered by entropy ≥ thr
// and returns the sample and the retriever's queries.
func entropyRun(t *testing.T, thr float64) (*Sample, *switchRetriever) {
	t.Helper()
	m, tok := loadTiny(t)
	c, err := ReadCorpus(testsupport.WriteTree(t, t.TempDir(), tinyRepo), index.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := &switchRetriever{prompt: tinyTarget.Prompt, first: block(blockOf(t, c, "lib/math.py")), second: block(blockOf(t, c, "lib/math.py"))}
	g, err := NewACToR(newDecoder(t, m, tok), tinyConfig(), r, ACToROptions{Entropy: thr, Notes: []string{"entropy"}})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(g.Notes(), func(n string) bool { return strings.Contains(n, "inference off") }) {
		t.Errorf("entropy trigger noted as inference off: %q", g.Notes())
	}
	s, err := g.Generate(t.Context(), tinyTarget, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, r
}

func TestEntropyTriggerFiresAtItsThreshold(t *testing.T) {
	// A threshold no distribution reaches: every judged token's entropy is
	// traced, nothing fires.
	s, r := entropyRun(t, 1e9)
	var ents []float64
	for _, e := range s.Trace.Attempts[0].Events {
		if e.Skip == "" {
			if e.Entropy <= 0 || e.Critical || e.P != nil {
				t.Errorf("judged token %+v: want its entropy, no verdict, no probe", e)
			}
			ents = append(ents, e.Entropy)
		}
	}
	if len(ents) < 2 || s.Trace.Triggers != 0 || len(r.queries) != 1 {
		t.Fatalf("%d judged, %d triggers, %d retrievals", len(ents), s.Trace.Triggers, len(r.queries))
	}
	// At the median of those entropies the trigger fires at the tokens at
	// or above it and retrieves once for each (the retriever returns the
	// same block, so the sample is the same).
	slices.Sort(ents)
	thr := ents[len(ents)/2]
	s, r = entropyRun(t, thr)
	fired := 0
	for _, e := range s.Trace.Attempts[0].Events {
		if e.Skip == "" {
			if e.Critical != (e.Entropy >= thr) {
				t.Errorf("token %+v at threshold %v", e, thr)
			}
			if e.Critical {
				fired++
			}
		}
	}
	if want := len(ents) - len(ents)/2; fired != want || s.Trace.Triggers != fired || len(r.queries) != 1+fired || s.Trace.ContextChanges != 0 {
		t.Errorf("fired %d (want %d), triggers %d, %d retrievals, %d changes", fired, want, s.Trace.Triggers, len(r.queries), s.Trace.ContextChanges)
	}
}

func TestEntropyTriggerOptions(t *testing.T) {
	m, tok := loadTiny(t)
	d := newDecoder(t, m, tok)
	if _, err := NewACToR(d, tinyConfig(), nil, ACToROptions{Entropy: 1, Probe: testsupport.ConstProbe(m.Config.Embed, 1)}); err == nil {
		t.Error("an entropy trigger beside a probe was accepted")
	}
	c, err := ReadCorpus(testsupport.WriteTree(t, t.TempDir(), tinyRepo), index.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := New(Options{Method: MethodACToR, Decoder: d, Config: tinyConfig(), Corpus: c, EntropyTrigger: 2.5})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(g.Method(), "actor-entropy") || !slices.ContainsFunc(g.Notes(), func(n string) bool { return strings.Contains(n, "entropy ≥ 2.5 nats") }) {
		t.Errorf("method %q, notes %q", g.Method(), g.Notes())
	}
	if _, err := New(Options{Method: MethodACToR, Decoder: d, Config: tinyConfig(), Corpus: c, EntropyTrigger: 2.5, NoInference: true}); err == nil {
		t.Error("an entropy trigger with inference off was accepted")
	}
}
