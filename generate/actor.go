package generate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"actor/engine"
	"actor/probe"
	"actor/retrieve"
)

// ACToROptions are ACToR's switches, among them the paper's ablations.
type ACToROptions struct {
	// Probe is the critical-token ensemble. Nil switches critical-token
	// inference off: ACToR is then its (weighted) retriever only.
	Probe *probe.Probe
	// Threshold replaces the probe's unanimity threshold when above 0.
	Threshold float64
	// FullProbs evaluates every member for the trace; otherwise the
	// members after the first one at or below the threshold are skipped
	// (the decision is the same).
	FullProbs bool
	// Notes are added to every sample's trace (the retriever's fallback,
	// an ablation).
	Notes []string
	// Method replaces the method name (e.g. "actor+bm25").
	Method string
	// Layout places the blocks in the prompt ("" is LayoutRanked, the
	// paper's).
	Layout Layout
	// Change decides when a retrieval changes the context ("" is
	// ChangeOrder, the authors').
	Change ChangeRule
	// SkipComments judges no token inside a # comment (probe.InComment):
	// a comment does not run, so no retrieval is spent on its words.
	SkipComments bool
	// Entropy, when above 0, replaces the probe as the trigger: a judged
	// token whose next-token distribution has at least this entropy (nats)
	// triggers the retrieval (FLARE/DRAGIN-style; see entropyTrigger).
	// Probe must then be nil.
	Entropy float64
}

// Layout is how ACToR places a context's blocks in its prompt.
type Layout string

const (
	// LayoutRanked is the paper's: best block first, farthest from the
	// code (retrieve.ACToRPrompt). A change re-prefills from the first
	// block whose rank moved, usually the top.
	LayoutRanked Layout = "ranked"
	// LayoutStable keeps the blocks that stay where they were and puts new
	// ones nearest the target (retrieve.StablePrompt): the same blocks
	// under the same budget, and a change re-prefills from the first block
	// that left. A reorder of the same blocks is then no change whatever
	// the change rule.
	LayoutStable Layout = "stable"
)

// Layouts lists the layouts, the paper's first.
var Layouts = []Layout{LayoutRanked, LayoutStable}

// ChangeRule says when a critical token's retrieval changes the context.
type ChangeRule string

const (
	// ChangeOrder is the authors' _check_context_change: a different
	// count, or any block's path, start or end differing at its place in
	// the prompt, so a reorder of the same blocks is a change.
	ChangeOrder ChangeRule = "order"
	// ChangeSet counts only a different set of blocks as a change.
	ChangeSet ChangeRule = "set"
)

// ChangeRules lists the change rules, the authors' first.
var ChangeRules = []ChangeRule{ChangeOrder, ChangeSet}

// actor is ACToR (Algorithm 1 of the paper, METHOD.md §4): retrieve for
// the target prompt, decode, and at every critical token (all members above
// the threshold; the first token, whitespace and newline tokens are not
// judged) retrieve again with the target prompt + the text so far + the
// token. When the prompt's blocks change (by default the authors' rule:
// count, or any path/start/end at its place; see ChangeRule and Layout), the
// token is dropped, the prompt is rebuilt with the new blocks followed by
// the generated tokens, the position is decoded again (the replacement is
// not judged) and the new context stays. Otherwise the token and the cache
// are kept as they are: nothing is recomputed.
type actor struct {
	base
	r   Retriever
	opt ACToROptions
}

// NewACToR returns ACToR with retriever r (dense with position-aware query
// pooling in the paper; see Corpus.QueryRetriever).
func NewACToR(d *Decoder, cfg Config, r Retriever, opt ACToROptions) (Generator, error) {
	if opt.Layout != "" && !slices.Contains(Layouts, opt.Layout) {
		return nil, fmt.Errorf("generate: layout %q: want one of %v", opt.Layout, Layouts)
	}
	if opt.Change != "" && !slices.Contains(ChangeRules, opt.Change) {
		return nil, fmt.Errorf("generate: context-change rule %q: want one of %v", opt.Change, ChangeRules)
	}
	if opt.Entropy < 0 || (opt.Entropy > 0 && opt.Probe != nil) {
		return nil, errors.New("generate: an entropy trigger is ≥ 0 nats and replaces the probe")
	}
	if opt.Probe != nil {
		if err := opt.Probe.Validate(); err != nil {
			return nil, err
		}
		if opt.Probe.Model.Hidden != d.model.Config.Embed {
			return nil, errors.New("generate: the probe reads hidden states of another size than the model's")
		}
	}
	name := MethodACToR
	if opt.Method != "" {
		name = opt.Method
	}
	notes := opt.Notes
	if opt.Probe == nil && opt.Entropy == 0 {
		notes = append(notes, "critical-token inference off (ablation): weighted retrieval only")
	}
	return &actor{base: base{dec: d, cfg: cfg, method: name, notes: notes}, r: r, opt: opt}, nil
}

// Generate decodes one sample.
func (g *actor) Generate(ctx context.Context, t retrieve.Target, sample int, obs Observer) (*Sample, error) {
	defer g.dec.watch(ctx, obs)()
	start := time.Now()
	s := g.newSample(t, sample)
	res, ms, err := g.retrieveOnce(g.r, t, startQuery(t))
	if err != nil {
		return nil, err
	}
	initial, err := g.layout(res, t, nil)
	if err != nil {
		return nil, err
	}
	final := initial
	body, err := g.attempts(s, t, "generate", 0, g.cfg.Retries, func(a *Attempt, smp *engine.Sampler) (string, error) {
		a.Query, a.Blocks, a.RetrieveMs = startQuery(t), traceBlocks(initial.Blocks), ms
		a.Context = g.traceContext(t, false)
		var j judge
		var c *critical
		if trig := g.trigger(); trig != nil {
			c = &critical{g: g, t: t, cur: initial, trig: trig}
			j = c
		}
		body, err := g.dec.run(a, initial, smp, g.cfg, j)
		if c != nil {
			a.Triggers, a.ContextChanges, a.Judged = c.triggers, c.changes, c.judged
			final = c.cur
		}
		return body, err
	})
	if err != nil {
		return nil, err
	}
	return s.finish(body, final.Text, start), nil
}

// critical is ACToR's judge for one attempt: it holds the current context.
type critical struct {
	g                         *actor
	t                         retrieve.Target
	cur                       retrieve.Prompt
	trig                      trigger
	triggers, changes, judged int
}

func (c *critical) hidden() bool { return c.trig.hidden() }

func (c *critical) check(i int, t int32, body string, pred *engine.Prediction, ev *TokenEvent) (retrieve.Prompt, error) {
	tok := c.g.dec.tok
	var same retrieve.Prompt
	if ev.Skip = probe.Skip(i, tok.Piece(t), tok.EOG(t)); ev.Skip != "" {
		return same, nil
	}
	if c.g.opt.SkipComments && probe.InComment(body[strings.LastIndexByte(body, '\n')+1:], tok.Piece(t)) {
		ev.Skip = probe.SkipComment
		return same, nil
	}
	c.judged++
	ev.Entropy = pred.Entropy
	if !c.trig.fire(pred, ev) {
		return same, nil
	}
	c.triggers++
	start := time.Now()
	ev.Query = retrieve.ACToRQuery(c.t.Prompt, body+tok.Piece(t))
	res, err := c.retrieve(body+tok.Piece(t), ev)
	if err != nil || res == nil {
		return same, err
	}
	next, err := c.g.layout(res, c.t, c.cur.Blocks)
	if err != nil {
		return same, err
	}
	ev.RetrieveMs = msSince(start)
	ev.Before, ev.After = traceBlocks(c.cur.Blocks), traceBlocks(next.Blocks)
	if c.g.same(next.Blocks, c.cur.Blocks) {
		return same, nil
	}
	ev.Changed = true
	c.changes++
	c.cur = next
	return next, nil
}

// retrieve is the re-retrieval at a critical token: the dense re-query
// with ev.Query and, with name lookup, the definitions extending the name
// being written at the end of text, before the re-query's blocks (or, with
// LookupOnly, before the current blocks; nil when nothing extends it).
func (c *critical) retrieve(text string, ev *TokenEvent) ([]retrieve.Result, error) {
	mode := c.g.fr.lookupMode()
	var res []retrieve.Result
	if mode != LookupOnly {
		var err error
		if res, err = c.g.r.Retrieve(ev.Query, c.t.Exclusion); err != nil {
			return nil, err
		}
	}
	if mode == "" {
		return res, nil
	}
	found, name := c.g.fr.lookup(c.t, text)
	ev.Lookup = name
	if mode == LookupOnly {
		if len(found) == 0 {
			return nil, nil
		}
		res = c.cur.Blocks
	}
	return append(found, res...), nil
}

// trigger returns the attempt's trigger: the entropy rule, the probe, or
// nil when critical-token inference is off.
func (g *actor) trigger() trigger {
	switch {
	case g.opt.Entropy > 0:
		return entropyTrigger(g.opt.Entropy)
	case g.opt.Probe != nil:
		return probeTrigger{&g.opt}
	}
	return nil
}

// probeTrigger is the paper's trigger: the probe calls the token critical.
type probeTrigger struct{ opt *ACToROptions }

func (probeTrigger) hidden() bool { return true }

// fire applies the ensemble to the hidden state: every member's
// p(critical) above the threshold.
func (pt probeTrigger) fire(pred *engine.Prediction, ev *TokenEvent) bool {
	p := pt.opt.Probe
	thr := p.Threshold
	if pt.opt.Threshold > 0 {
		thr = pt.opt.Threshold
	}
	start := time.Now()
	ev.P = make([]float32, 0, len(p.Members))
	crit := true
	for m := range p.Members {
		pm := p.Prob(m, pred.Hidden)
		ev.P = append(ev.P, pm)
		if float64(pm) <= thr {
			crit = false
			if !pt.opt.FullProbs {
				break
			}
		}
	}
	ev.ProbeUs = float64(time.Since(start).Nanoseconds()) / 1000
	ev.Critical = crit
	return crit
}

// layout builds the prompt of the retrieved blocks in the chosen layout;
// prev are the current prompt's blocks (nil for the initial prompt).
func (g *actor) layout(res []retrieve.Result, t retrieve.Target, prev []retrieve.Result) (retrieve.Prompt, error) {
	if g.opt.Layout != LayoutStable {
		return g.contextPrompt(res, t)
	}
	if g.fr == nil {
		return retrieve.StablePrompt(res, prev, t.Path, t.Prompt, TokenCounter{Tok: g.dec.tok}, g.cfg.Budget)
	}
	fr, err := g.fr.frame(t, false)
	if err != nil {
		return retrieve.Prompt{}, err
	}
	return fr.Stable(res, prev, g.counter(fr), g.cfg.Budget)
}

// same reports whether next keeps the context cur under the change rule.
func (g *actor) same(next, cur []retrieve.Result) bool {
	if g.opt.Change == ChangeSet {
		return retrieve.SameBlockSet(next, cur)
	}
	return retrieve.SameBlocks(next, cur)
}
