package experiment

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"actor/bench/results"
	"actor/generate"
	"actor/predictions"
)

// sampleKey is a task's sample.
type sampleKey struct {
	task   string
	sample int
}

// predicted returns the samples in a predictions file (none when missing).
func predicted(path string) (map[sampleKey]bool, error) {
	ps, _, err := predictions.Read(path)
	if err != nil {
		return nil, err
	}
	out := map[sampleKey]bool{}
	for _, p := range ps {
		out[sampleKey{p.TaskID, p.Sample}] = true
	}
	return out, nil
}

// blankSamples counts configuration name's samples in scope whose code is
// white space only: the model wrote nothing but blank lines, after the
// blank guard and the retries.
func (p *Plan) blankSamples(name string) (int, error) {
	ps, _, err := predictions.Read(p.PredictionsFile(name))
	n := 0
	for _, pr := range ps {
		if p.inScope(pr.TaskID, pr.Sample) && strings.TrimSpace(pr.Code) == "" {
			n++
		}
	}
	return n, err
}

// tested returns the samples with a test result in a results folder's
// samples file (harness errors are tried again, so they do not count).
func tested(path string) (map[sampleKey]bool, error) {
	recs, err := results.Read(path)
	if err != nil {
		return nil, err
	}
	out := map[sampleKey]bool{}
	for _, r := range recs {
		if r.Status != results.StatusError {
			out[sampleKey{r.TaskID, r.Sample}] = true
		}
	}
	return out, nil
}

// inScope reports whether a task's sample belongs to the experiment.
func (p *Plan) inScope(task string, sample int) bool {
	return sample < p.Settings.N && slices.Contains(p.Settings.Tasks, task)
}

// group returns run name's test results over the experiment's tasks and
// samples, or nil when none are tested yet.
func (p *Plan) group(name string) (*results.Group, error) {
	path := filepath.Join(p.RunDir(name), "eval", results.SamplesFile)
	recs, err := results.Read(path)
	if err != nil {
		return nil, err
	}
	recs = slices.DeleteFunc(recs, func(r results.Record) bool { return !p.inScope(r.TaskID, r.Sample) })
	gs := results.Aggregate(recs, p.Settings.Tasks)
	switch len(gs) {
	case 0:
		return nil, nil
	case 1:
		return &gs[0], nil
	}
	return nil, fmt.Errorf("%s: samples of %d methods (%s, %s, ...) in one run folder", path, len(gs), gs[0].Method, gs[1].Method)
}

// Traces sums a run's traces (the last one of each sample in scope).
type Traces struct {
	Method             string
	Samples, Generated int
	// Milliseconds: the first prefills, decoding (ACToR's work inside),
	// and ACToR's work: probe, retrievals after a trigger, re-prefills
	// after a context change. Seconds is the samples' wall time.
	PrefillMs, DecodeMs, ProbeMs, RetrieveMs, ReprefillMs, Seconds float64
	Triggers, Changes, Judged                                      int
	// PromptTokens and Attempts: the prompts' tokens summed over every
	// decoding attempt (RepoCoder's two rounds, regenerations), and the
	// attempts.
	PromptTokens, Attempts int
	// Entropies are the judged tokens' next-token entropies (nats).
	Entropies []float64
	// Unreadable counts trace lines that were not JSON (a run killed while
	// writing one).
	Unreadable int
	// Critical counts the critical tokens by kind (tokenKind), Changed
	// those of them that changed the context.
	Critical, Changed map[string]int
	// contexts are each sample's prompts' blocks (its first blocks, its
	// context changes); retrieves is set when any sample had blocks.
	contexts  map[sampleKey]contexts
	retrieves bool
}

// FlagRate is the share of judged tokens that triggered a retrieval.
func (t *Traces) FlagRate() float64 {
	if t.Judged == 0 {
		return 0
	}
	return float64(t.Triggers) / float64(t.Judged)
}

// PerToken is ms per generated token.
func (t *Traces) PerToken(ms float64) float64 { return ms / float64(max(1, t.Generated)) }

// readTraces sums run name's traces.jsonl.
func (p *Plan) readTraces(name string) (*Traces, error) {
	out := &Traces{contexts: map[sampleKey]contexts{}, Critical: map[string]int{}, Changed: map[string]int{}}
	traces, unreadable, err := generate.LastTraces(generate.TracesFile(p.RunDir(name)), p.inScope)
	if err != nil {
		return nil, err
	}
	out.Unreadable = unreadable
	for _, tr := range traces {
		out.add(tr)
		c := sampleContexts(tr)
		out.contexts[sampleKey{tr.Task, tr.Sample}], out.retrieves = c, out.retrieves || len(c.final) > 0
		tokenKinds(tr, out.Critical, out.Changed)
	}
	return out, nil
}

// add counts one sample's trace.
func (t *Traces) add(tr generate.Trace) {
	t.Method = tr.Method
	t.Samples++
	t.Generated += tr.Generated
	t.Seconds += tr.Seconds
	for _, a := range tr.Attempts {
		t.PromptTokens += a.PromptTokens
		t.Attempts++
		t.PrefillMs += a.PrefillMs
		t.DecodeMs += a.DecodeMs
		for _, e := range a.Events {
			if e.Skip == "" && (e.P != nil || e.Entropy > 0) {
				t.Entropies = append(t.Entropies, e.Entropy)
			}
		}
	}
	t.Triggers += tr.Triggers
	t.Changes += tr.ContextChanges
	t.Judged += tr.Judged
	if strings.HasPrefix(tr.Method, generate.MethodACToR) { // the others' retrieval is before decoding
		t.ProbeMs += tr.ProbeMs
		t.RetrieveMs += tr.RetrieveMs
		t.ReprefillMs += tr.ReprefillMs
	}
}

// EqualRateThreshold is the entropy threshold at which an entropy trigger
// fires on the given share of judged tokens: midway between the k-th and
// (k+1)-th largest entropy, k = round(rate × tokens).
func EqualRateThreshold(entropies []float64, rate float64) (float64, error) {
	if len(entropies) == 0 {
		return 0, errors.New("no judged token's entropy in the traces (traced before traces recorded entropies?)")
	}
	desc := slices.Clone(entropies)
	slices.Sort(desc)
	slices.Reverse(desc)
	k := int(math.Round(rate * float64(len(desc))))
	switch {
	case k <= 0:
		return desc[0] + 1, nil // above every entropy: never fires
	case k >= len(desc):
		return desc[len(desc)-1], nil
	}
	return (desc[k-1] + desc[k]) / 2, nil
}
