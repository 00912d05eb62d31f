package generate

import (
	"errors"
	"fmt"

	"actor/probe"
	"actor/retrieve"
)

// Options choose a method and give it what it needs.
type Options struct {
	// Method names a registered method (MethodNames).
	Method  string
	Decoder *Decoder
	Config  Config
	// Corpus is the repository (not needed by RawPrompt without context
	// sources).
	Corpus *Corpus
	// Context chooses the prompts' format and context sources beside the
	// method's blocks (the zero value: the authors' prompts).
	Context ContextOptions

	// ACToR's switches. Probe is required unless NoInference.
	Probe *probe.Probe
	// NoInference switches critical-token inference off (ablation:
	// weighted retriever only).
	NoInference bool
	// MeanPooling pools ACToR's queries by mean instead of the
	// position-aware weights (ablation).
	MeanPooling bool
	// Sigma is σ of the position-aware weights (0: retrieve.DefaultSigma).
	Sigma float64
	// QueryKeepsEnds cuts a query over the encoder's input limit in its
	// middle, keeping the target's signature and the code generated last;
	// cut at its end (the encoder's default, and the paper's), a long
	// query loses the generated code and retrieving again changes nothing.
	QueryKeepsEnds bool
	// Threshold replaces the probe's threshold when above 0.
	Threshold float64
	// EntropyTrigger, when above 0, makes ACToR retrieve again at judged
	// tokens whose next-token entropy is at least this many nats instead
	// of at the probe's critical tokens (no probe needed; the method is
	// named "actor-entropy").
	EntropyTrigger float64
	// FullProbs evaluates every probe member for the trace.
	FullProbs bool
	// Layout and Change are ACToR's prompt layout and context-change rule
	// ("": the paper's, LayoutRanked and ChangeOrder).
	Layout Layout
	// SkipComments judges no token inside a # comment
	// (ACToROptions.SkipComments).
	SkipComments bool
	Change       ChangeRule
	// Name replaces ACToR's method name in predictions and traces (for
	// example to tell apart runs with probes trained under other rules).
	// By default it is "actor", with "-noinference" and "-meanpool" for the
	// ablations and "+bm25" for the fallback retriever.
	Name string
}

// New returns the generator of o.Method. Dense methods (RawRAG, RLCoder,
// ACToR) fall back to BM25 when the corpus has no encoder; their method name
// then ends in "+bm25" and their Notes say so.
func New(o Options) (Generator, error) {
	g, err := newGenerator(o)
	if err != nil || (o.Context.authorsOnly() && (o.Context.Lookup == "" || o.Context.Lookup == LookupOff)) {
		return g, err
	}
	if o.Context.Format != "" && !SupportsFormat(o.Decoder.tok, o.Context.Format) {
		return nil, fmt.Errorf("generate: the model's vocabulary lacks the special tokens of the %s format", o.Context.Format)
	}
	c, ok := g.(interface {
		withContext(ContextOptions, *Corpus)
	})
	if !ok {
		return nil, fmt.Errorf("generate: method %s takes no context sources (format, in-file code, symbols)", o.Method)
	}
	c.withContext(o.Context, o.Corpus)
	return g, nil
}

func newGenerator(o Options) (Generator, error) {
	if o.Decoder == nil {
		return nil, errors.New("generate: no decoder")
	}
	if err := o.Config.Validate(); err != nil {
		return nil, err
	}
	if err := o.Context.Validate(); err != nil {
		return nil, err
	}
	info, ok := LookupMethod(o.Method)
	if !ok {
		return nil, UnknownMethod("generate: method", o.Method)
	}
	if (info.Retrieves || !o.Context.authorsOnly()) && o.Corpus == nil {
		return nil, fmt.Errorf("generate: method %s needs a repository corpus", o.Method)
	}
	if o.Context.Lookup != "" && o.Context.Lookup != LookupOff && (o.Method != MethodACToR || o.NoInference) {
		return nil, errors.New("generate: name lookup is ACToR's, with critical-token inference on")
	}
	return info.New(o)
}

func newACToRFromOptions(o Options) (Generator, error) {
	opt := ACToROptions{Probe: o.Probe, Threshold: o.Threshold, FullProbs: o.FullProbs, Layout: o.Layout, Change: o.Change,
		SkipComments: o.SkipComments}
	if o.SkipComments {
		opt.Notes = append(opt.Notes, "tokens inside # comments are not judged")
	}
	if o.Layout == LayoutStable {
		opt.Notes = append(opt.Notes, "stable layout: blocks that stay keep their place, new ones go nearest the target")
	}
	if o.Decoder.opt.Blocks != nil {
		opt.Notes = append(opt.Notes, "block KV reuse: after a context change the blocks are placed from their first computation, keys re-rotated, not recomputed")
		if o.Decoder.opt.ReuseTail {
			opt.Notes = append(opt.Notes, "tail KV reuse: the target's prompt and the generated tokens are moved too; only the last token is recomputed")
		}
	}
	if o.Change == ChangeSet {
		opt.Notes = append(opt.Notes, "context-change rule set: a reorder of the same blocks is no change")
	}
	name := MethodACToR
	switch {
	case o.NoInference && o.EntropyTrigger > 0:
		return nil, errors.New("generate: an entropy trigger needs critical-token inference on")
	case o.NoInference:
		opt.Probe = nil
		name += "-noinference"
	case o.EntropyTrigger > 0:
		opt.Probe, opt.Entropy = nil, o.EntropyTrigger
		name += "-entropy"
		opt.Notes = append(opt.Notes, fmt.Sprintf("trigger: next-token entropy ≥ %g nats (FLARE/DRAGIN-style) instead of the probe", o.EntropyTrigger))
	case o.Probe == nil:
		return nil, errors.New("generate: ACToR needs a probe file (or critical-token inference switched off)")
	}
	sigma := o.Sigma
	if sigma == 0 {
		sigma = retrieve.DefaultSigma
	}
	pool := retrieve.WeightedPooling(sigma)
	if o.MeanPooling {
		pool = retrieve.MeanPooling
		name += "-meanpool"
		opt.Notes = append(opt.Notes, "weighted pooling off (ablation): queries are mean-pooled")
	}
	if o.QueryKeepsEnds {
		opt.Notes = append(opt.Notes, "a query over the encoder's input limit keeps its start and its end (the middle is cut)")
	}
	r, fallback, err := o.Corpus.QueryRetriever(pool, o.QueryKeepsEnds)
	if err != nil {
		return nil, err
	}
	if fallback != "" {
		name += "+bm25"
		opt.Notes = append(opt.Notes, fallback)
	}
	opt.Method = name
	if o.Name != "" {
		opt.Method = o.Name
	}
	return NewACToR(o.Decoder, o.Config, r, opt)
}
