package generate

import (
	"context"
	"strings"
	"time"

	"actor/engine"
	"actor/retrieve"
)

// oneShot retrieves once (or never) and decodes: RawPrompt, RawRAG and
// RLCoder differ only in the retriever and the query.
type oneShot struct {
	base
	r     Retriever                      // nil: no retrieval (RawPrompt)
	query func(t retrieve.Target) string // the retrieval query for the target
}

// NewRawPrompt returns the RawPrompt baseline: the model sees the target's
// signature and docstring only.
func NewRawPrompt(d *Decoder, cfg Config) Generator {
	return &oneShot{base: base{dec: d, cfg: cfg, method: MethodRawPrompt}}
}

// NewRawRAG returns the RawRAG baseline: one retrieval with the target
// prompt as the query, the blocks laid out as in ACToR (METHOD.md §3).
func NewRawRAG(d *Decoder, cfg Config, r Retriever) Generator {
	return &oneShot{base: base{dec: d, cfg: cfg, method: MethodRawRAG}, r: r,
		query: func(t retrieve.Target) string { return t.Prompt }}
}

// Generate decodes one sample.
func (g *oneShot) Generate(ctx context.Context, t retrieve.Target, sample int, obs Observer) (*Sample, error) {
	defer g.dec.watch(ctx, obs)()
	start := time.Now()
	s := g.newSample(t, sample)
	prompt := retrieve.Prompt{Text: t.Prompt}
	if g.fr != nil {
		fr, err := g.fr.frame(t, false)
		if err != nil {
			return nil, err
		}
		prompt = fr.Assemble(nil)
	}
	var query string
	var retrieveMs float64
	if g.r != nil {
		query = g.query(t)
		res, ms, err := g.retrieveOnce(g.r, t, query)
		if err != nil {
			return nil, err
		}
		retrieveMs = ms
		if prompt, err = g.contextPrompt(res, t); err != nil {
			return nil, err
		}
	}
	body, err := g.attempts(s, t, "generate", 0, g.cfg.Retries, func(a *Attempt, smp *engine.Sampler) (string, error) {
		a.Query, a.Blocks, a.RetrieveMs = query, traceBlocks(prompt.Blocks), retrieveMs
		a.Context = g.traceContext(t, false)
		return g.dec.run(a, prompt, smp, g.cfg, nil)
	})
	if err != nil {
		return nil, err
	}
	return s.finish(body, prompt.Text, start), nil
}

// repoCoder is the RepoCoder baseline: two rounds of retrieve-then-generate
// over 20-line windows scored by Jaccard similarity of generator tokens;
// round 2 queries with the prompt's last lines and round 1's first lines.
type repoCoder struct {
	base
	r Retriever
}

// RepoCoder's query windows (METHOD.md §6).
const (
	repoCoderRound1Lines = 20 // round 1: last 20 lines before the hole
	repoCoderPrefixLines = 10 // round 2: last ~10 prefix lines ...
	repoCoderGenLines    = 10 // ... plus the first generated lines
)

// NewRepoCoder returns the RepoCoder baseline with its retriever (see
// Corpus.RepoCoder).
func NewRepoCoder(d *Decoder, cfg Config, r Retriever) Generator {
	return &repoCoder{base: base{dec: d, cfg: cfg, method: MethodRepoCoder}, r: r}
}

// Generate decodes one sample in two rounds; the second round's body is
// the result, both rounds count in its time.
func (g *repoCoder) Generate(ctx context.Context, t retrieve.Target, sample int, obs Observer) (*Sample, error) {
	defer g.dec.watch(ctx, obs)()
	start := time.Now()
	s := g.newSample(t, sample)
	round := func(stage string, no int, query string, retries int) (string, string, error) {
		res, ms, err := g.retrieveOnce(g.r, t, query)
		if err != nil {
			return "", "", err
		}
		p, err := g.prompt(res, t)
		if err != nil {
			return "", "", err
		}
		body, err := g.attempts(s, t, stage, no, retries, func(a *Attempt, smp *engine.Sampler) (string, error) {
			a.Query, a.Blocks, a.RetrieveMs = query, traceBlocks(p.Blocks), ms
			a.Context = g.traceContext(t, true)
			return g.dec.run(a, p, smp, g.cfg, nil)
		})
		return body, p.Text, err
	}
	first, _, err := round("round1", 1, lastLines(t.Prompt, repoCoderRound1Lines, false), 0)
	if err != nil {
		return nil, err
	}
	prefix := lastLines(t.Prompt, repoCoderPrefixLines, false)
	if strings.HasSuffix(t.Prompt, "\n") {
		prefix += "\n" // the body starts a new line
	}
	q2 := prefix + firstLines(first, repoCoderGenLines)
	body, prompt, err := round("round2", 2, q2, g.cfg.Retries)
	if err != nil {
		return nil, err
	}
	return s.finish(body, prompt, start), nil
}

// prompt lays out RepoCoder's fragments, in its own layout or the frame's.
func (g *repoCoder) prompt(res []retrieve.Result, t retrieve.Target) (retrieve.Prompt, error) {
	if g.fr == nil {
		return retrieve.RepoCoderPrompt(res, t.Prompt, TokenCounter{Tok: g.dec.tok}, g.cfg.Budget)
	}
	fr, err := g.fr.frame(t, true)
	if err != nil {
		return retrieve.Prompt{}, err
	}
	return fr.Ascending(res, g.counter(fr), g.cfg.Budget)
}
