// Package pipeline is generation set up once: a model with its tokenizer
// and decoder, ACToR's probe, the dense encoder, the corpora of
// repositories and the method that generates over them, and the runner
// that generates a benchmark's samples. The CLI (generate, run), the
// server and benchmark workers all generate through it, so they run the
// same code.
package pipeline

import (
	"context"
	"fmt"
	"io"

	"actor/encoder"
	"actor/engine"
	"actor/generate"
	"actor/probe"
	"actor/retrieve"
	"actor/tokenizer"
)

// Options say what to load.
type Options struct {
	// Model is a pulled model's name or a GGUF path.
	Model string
	// Engine are the model's engine options (threads, context length).
	Engine engine.Options
	// Method is the generation method and its switches.
	Method Method
	// Config is the sampling configuration; the method's switches
	// (retries, budget, healing, blank guard) are applied over it.
	Config generate.Config
	// OpenEncoder opens the dense encoder by name (nil: OpenEncoder with
	// the encoder's default options).
	OpenEncoder func(name string) (retrieve.Encoder, error)
	// Log receives warnings (an encoder fallback, skipped files).
	Log io.Writer
	// Progress receives index progress bars (nil: none).
	Progress io.Writer
	// AllMethods also loads what the other methods need (the model's
	// probe where it has one, the dense encoder), for a server whose
	// requests choose their method.
	AllMethods bool
}

// Pipeline is a loaded model with what the methods need around it. It
// generates one sample or one batch at a time.
type Pipeline struct {
	// ModelName is the model argument it was opened with.
	ModelName string
	// Model, Tok and Dec are the loaded model, its tokenizer and decoder.
	Model *engine.Model
	Tok   *tokenizer.Tokenizer
	Dec   *generate.Decoder
	// Probe is ACToR's probe (nil for methods without one).
	Probe *probe.Probe
	// Enc is the dense encoder (nil: the dense methods use BM25).
	Enc retrieve.Encoder
	// Method and Config are what it generates with.
	Method Method
	Config generate.Config

	opts Options
	// blocks is the decoder's block KV store (nil without --kv-reuse).
	blocks *generate.BlockStore
}

// Open validates the method, loads the model, the probe (ACToR) and the
// encoder. The caller closes the pipeline.
func Open(opts Options) (*Pipeline, error) {
	m := opts.Method
	if err := m.Validate(); err != nil {
		return nil, err
	}
	m = m.Resolved()
	cfg := m.apply(opts.Config)
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.OpenEncoder == nil {
		opts.OpenEncoder = func(name string) (retrieve.Encoder, error) { return OpenEncoder(name, encoder.Options{}) }
	}
	model, tok, err := OpenModel(opts.Model, opts.Engine)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{ModelName: opts.Model, Model: model, Tok: tok, Method: m, Config: cfg, opts: opts}
	if err := p.open(); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *Pipeline) open() error {
	m := &p.Method
	opt := generate.DecoderOptions{Sessions: m.KVCaches}
	if m.KVReuse {
		p.blocks = generate.NewBlockStore(0)
		opt.Blocks, opt.ReuseTail, opt.CheckReuse = p.blocks, m.KVReuseTail, m.KVReuseCheck
		if m.KVStore != "" {
			if err := p.blocks.Persist(m.KVStore, p.Model); err != nil {
				return fmt.Errorf("--kv-store: %w", err)
			}
		}
	}
	var err error
	if p.Dec, err = generate.NewDecoder(p.Model, p.Tok, opt); err != nil {
		return err
	}
	if file, err := m.ProbeFile(p.ModelName); err != nil {
		return err
	} else if file != "" {
		if p.Probe, err = probe.LoadFor(file, ProbeModelInfo(p.Model, p.Tok)); err != nil {
			return err
		}
	}
	if p.opts.AllMethods && p.Probe == nil && !m.NoInference && m.Entropy == 0 {
		actor := *m
		actor.Method = generate.MethodACToR
		file, err := actor.ProbeFile(p.ModelName)
		if err == nil {
			p.Probe, err = probe.LoadFor(file, ProbeModelInfo(p.Model, p.Tok))
		}
		if err != nil {
			p.Probe = nil
			fmt.Fprintf(p.opts.Log, "actor: note: no ACToR on request: %v\n", err)
		}
	}
	if m.usesEncoder() || p.opts.AllMethods {
		p.Enc = p.openEncoder()
	}
	return nil
}

// Close frees the decoder's caches and the model.
func (p *Pipeline) Close() {
	if p.Dec != nil {
		p.Dec.Close()
	}
	if p.blocks != nil {
		p.blocks.Close()
	}
	p.Model.Close()
}

// openEncoder opens the dense encoder, or warns loudly and returns nil
// (the dense methods then use BM25 and are named "+bm25").
func (p *Pipeline) openEncoder() retrieve.Encoder {
	name := p.Method.Encoder
	if name == "" {
		name = DefaultEncoder
	}
	warn := func(why string) {
		if !p.Method.usesEncoder() {
			fmt.Fprintf(p.opts.Log, "actor: WARNING: %s; the dense methods fall back to BM25 retrieval (recorded with +bm25 in their names)\n", why)
			return
		}
		fmt.Fprintf(p.opts.Log, "actor: WARNING: %s; %s falls back to BM25 retrieval (recorded as method %q in predictions and traces)\n",
			why, p.Method.Method, p.Method.Method+"+bm25")
	}
	if name == "none" {
		warn("--encoder none")
		return nil
	}
	enc, err := p.opts.OpenEncoder(name)
	if err != nil {
		warn(fmt.Sprintf("dense encoder %s: %v", name, err))
		return nil
	}
	return enc
}

// Corpus reads a repository for the method (see OpenCorpus).
func (p *Pipeline) Corpus(ctx context.Context, repo string) (*generate.Corpus, error) {
	return OpenCorpus(ctx, repo, p.Enc, p.opts.Progress, p.opts.Log)
}

// OpenCorpus reads a repository: its blocks and windows, and, with an
// encoder, the blocks' embeddings from the repository's index (refreshed
// first, as actor index does; its bars go to progress when not nil).
// Generation and labelling read repositories through it, so both retrieve
// from the same blocks.
func OpenCorpus(ctx context.Context, repo string, enc retrieve.Encoder, progress, log io.Writer) (*generate.Corpus, error) {
	cfg := DefaultIndexConfig()
	walk := cfg.Walk
	walk.Skip = func(rel string, reason error) { fmt.Fprintf(log, "warning: skipped %s: %v\n", rel, reason) }
	c, err := generate.ReadCorpus(repo, walk)
	if err != nil {
		return nil, err
	}
	if enc == nil {
		return c, nil
	}
	emb := CandidateEmbedder(enc)
	st, _, err := UpdateIndex(ctx, repo, cfg, emb, progress, log)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	stored, err := st.Load(emb.ID())
	if err != nil {
		return nil, err
	}
	c.Blocks, c.Vectors, c.Encoder = stored.Candidates, stored.Vectors, enc
	return c, nil
}

// Generator builds the method over a corpus.
func (p *Pipeline) Generator(c *generate.Corpus) (generate.Generator, error) {
	return p.GeneratorWith(c, p.Method.Method, p.Config)
}

// GeneratorWith builds another of the methods over a corpus, or the same
// one with other sampling: a server's request chooses them. A method
// needs what the pipeline loaded (ACToR its probe); the pipeline's
// switches apply, and its method name only to its own method.
func (p *Pipeline) GeneratorWith(c *generate.Corpus, method string, cfg generate.Config) (generate.Generator, error) {
	m := &p.Method
	name := ""
	layout, skip := generate.Layout(m.Layout), m.SkipComments
	switch {
	case method == m.Method:
		name = m.Name
	case method == generate.MethodACToR && !m.Exact:
		// ACToR asked of a pipeline opened for another method: its
		// measured levers but block KV reuse, which the decoder was
		// opened without (a context change is prefilled exactly).
		layout, skip = generate.LayoutStable, !m.NoInference
	}
	return generate.New(generate.Options{Method: method, Decoder: p.Dec, Config: cfg, Corpus: c,
		Probe: p.Probe, NoInference: m.NoInference, MeanPooling: m.MeanPool, Sigma: m.Sigma, QueryKeepsEnds: m.QueryEnds,
		Threshold: m.Threshold, FullProbs: m.FullProbs, Name: name, EntropyTrigger: m.Entropy,
		Layout: layout, Change: generate.ChangeRule(m.Change), SkipComments: skip,
		Context: m.contextFor(method, p.Tok)})
}
