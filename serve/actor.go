package serve

import (
	"fmt"
	"net/http"
	"strings"

	"actor/generate"
	"actor/retrieve"
)

// generateRequest asks for a repository's function written by a method.
type generateRequest struct {
	// Repo, File and Line locate the target: the innermost function
	// containing the 1-based line of the file (relative to the repository).
	Repo string `json:"repo"`
	File string `json:"file"`
	Line int    `json:"line"`
	// Method names a registered method (generate.MethodNames; "": the
	// server's).
	Method string `json:"method"`
	// Samples is the number of samples (0: one).
	Samples     int      `json:"samples"`
	Temperature *float64 `json:"temperature"`
	TopP        *float64 `json:"top_p"`
	Seed        uint64   `json:"seed"`
	MaxTokens   int      `json:"max_tokens"`
	// Stream asks for server-sent events as the samples decode.
	Stream bool `json:"stream"`
}

// maxSamples bounds the samples of one request.
const maxSamples = 8

// target is the located function as events show it.
type target struct {
	ID     string `json:"id"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	Name   string `json:"name"`
	Prompt string `json:"prompt"`
}

// startEvent opens a stream: what is generated, and how.
type startEvent struct {
	Type    string   `json:"type"` // "start"
	Repo    string   `json:"repo"`
	Method  string   `json:"method"`
	Notes   []string `json:"notes,omitempty"`
	Target  target   `json:"target"`
	Samples int      `json:"samples"`
}

// block is a retrieved block with its text.
type block struct {
	generate.Block
	Text string `json:"text"`
}

// attemptEvent starts a decoding attempt: its initial retrieval.
type attemptEvent struct {
	Type    string  `json:"type"` // "attempt"
	Sample  int     `json:"sample"`
	Stage   string  `json:"stage"`
	Attempt int     `json:"attempt"`
	Query   string  `json:"query,omitempty"`
	Blocks  []block `json:"blocks"`
	// Context is what the prompt shows besides the blocks: the target
	// file's lines and the definitions in scope, each with its source.
	Context      []block `json:"context,omitempty"`
	PromptTokens int     `json:"prompt_tokens"`
}

// tokenEvent is one generated position: the trace's token event (the
// members' p(critical), whether it was critical, the blocks before and
// after its retrieval, the dropped token of a context change) with the
// blocks' texts; Stop is set on an attempt's last token.
type tokenEvent struct {
	Type    string `json:"type"` // "token"
	Sample  int    `json:"sample"`
	Attempt int    `json:"attempt"`
	Pos     int    `json:"pos"`
	generate.TokenEvent
	Before []block `json:"before,omitempty"`
	After  []block `json:"after,omitempty"`
	Stop   string  `json:"stop,omitempty"`
}

// sampleEvent is a finished sample; the trace comes in whole answers
// (the stream has shown it event by event).
type sampleEvent struct {
	Type           string          `json:"type"` // "sample"
	Sample         int             `json:"sample"`
	Code           string          `json:"code"`
	Tokens         int             `json:"tokens"`
	Generated      int             `json:"generated"`
	Triggers       int             `json:"triggers"`
	ContextChanges int             `json:"context_changes"`
	Judged         int             `json:"judged"`
	Attempts       int             `json:"attempts"`
	Seconds        float64         `json:"seconds"`
	MsPerToken     float64         `json:"ms_per_token"`
	Trace          *generate.Trace `json:"trace,omitempty"`
}

// generateResult is the whole answer of a request without stream.
type generateResult struct {
	startEvent
	Results []sampleEvent `json:"results"`
}

// generateCheck is a checked generate request.
type generateCheck struct {
	repo   *repo
	target retrieve.Target
	method string
	cfg    generate.Config
}

func (s *Server) checkGenerate(req *generateRequest) (*generateCheck, *apiError) {
	rp, e := s.repos.get(req.Repo)
	if e != nil {
		return nil, e
	}
	_, rel, e := rp.file(req.File)
	if e != nil {
		return nil, e
	}
	if req.Line < 1 {
		return nil, badRequest("line %d: want the 1-based line of a function of %s", req.Line, rel)
	}
	method := req.Method
	if method == "" {
		method = s.p.Method.Method
	}
	if _, ok := generate.LookupMethod(method); !ok {
		return nil, badRequest("%s", generate.UnknownMethod("method", method))
	}
	if req.Samples == 0 {
		req.Samples = 1
	}
	if req.Samples < 1 || req.Samples > maxSamples {
		return nil, badRequest("samples %d: want 1 to %d", req.Samples, maxSamples)
	}
	cfg := s.p.Config
	cfg.Seed = req.Seed
	if req.Temperature != nil {
		cfg.Temperature = *req.Temperature
	}
	if req.TopP != nil {
		cfg.TopP = *req.TopP
	}
	if req.MaxTokens != 0 {
		cfg.MaxNewTokens = req.MaxTokens
	}
	if cfg.MaxNewTokens > s.capacity {
		return nil, badRequest("max_tokens %d: the model's context holds %d", cfg.MaxNewTokens, s.capacity)
	}
	if err := cfg.Validate(); err != nil {
		return nil, badRequest("%v", err)
	}
	tg, err := retrieve.AtLine(rp.root, rel, req.Line)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	tg.ID = fmt.Sprintf("%s:%d", rel, req.Line)
	return &generateCheck{repo: rp, target: tg, method: method, cfg: cfg}, nil
}

// generate answers POST /v1/actor/generate: the target function written
// by the method, its samples one after another, whole or as events.
func (s *Server) generate(w http.ResponseWriter, r *http.Request) {
	var req generateRequest
	c, ctx, done, ok := admit(s, w, r, &req, true, s.checkGenerate)
	if !ok {
		return
	}
	defer done()
	corpus, texts := s.repos.snapshot(c.repo)
	gen, err := s.p.GeneratorWith(corpus, c.method, c.cfg)
	if err != nil {
		writeError(w, badRequest("method %s: %v", c.method, err))
		return
	}
	tg := c.target
	start := startEvent{Type: "start", Repo: c.repo.Name, Method: gen.Method(), Notes: gen.Notes(), Samples: req.Samples,
		Target: target{ID: tg.ID, File: tg.Path, Line: tg.Function.Start, Name: tg.Function.Name, Prompt: tg.Prompt}}
	withText := func(bs []generate.Block) []block {
		out := make([]block, len(bs))
		for i, b := range bs {
			text, ok := texts[blockKey(b.Path, b.Start, b.End)]
			if !ok && b.Source != "" {
				text = fileLines(corpus, b.Path, b.Start, b.End) // a definition, not an indexed block
			}
			out[i] = block{b, text}
		}
		return out
	}
	var st *sse
	if req.Stream {
		st = startSSE(w)
		st.send(start)
	}
	sample := 0
	var observe generate.Observer
	if st != nil {
		observe = func(a *generate.Attempt, ev *generate.TokenEvent) error {
			if len(a.Events) == 1 {
				if err := st.send(attemptEvent{Type: "attempt", Sample: sample, Stage: a.Stage, Attempt: a.Attempt, Query: a.Query,
					Blocks: withText(a.Blocks), Context: withText(a.Context), PromptTokens: a.PromptTokens}); err != nil {
					return err
				}
			}
			return st.send(tokenEvent{Type: "token", Sample: sample, Attempt: a.Attempt, Pos: len(a.Events) - 1, TokenEvent: *ev,
				Before: withText(ev.Before), After: withText(ev.After), Stop: a.Stop})
		}
	}
	res := generateResult{startEvent: start}
	for ; sample < req.Samples; sample++ {
		smp, err := gen.Generate(ctx, tg, sample, observe)
		if err != nil {
			s.fail(w, st, ctx, err)
			return
		}
		smp.Trace.Model = s.p.ModelName
		ev := sampleEvent{Type: "sample", Sample: sample, Code: smp.Code, Tokens: smp.Trace.Tokens, Generated: smp.Trace.Generated,
			Triggers: smp.Trace.Triggers, ContextChanges: smp.Trace.ContextChanges, Judged: smp.Trace.Judged, Attempts: len(smp.Trace.Attempts),
			Seconds: smp.Elapsed.Seconds(), MsPerToken: smp.MsPerToken()}
		if st != nil {
			st.send(ev)
			continue
		}
		ev.Trace = &smp.Trace
		res.Results = append(res.Results, ev)
	}
	if st != nil {
		st.done()
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// fileLines returns the lines start to end (1-based) of a Python file of
// the corpus ("" when it has none).
func fileLines(c *generate.Corpus, path string, start, end int) string {
	src, ok := c.Symbols.File(path)
	if !ok || start < 1 {
		return ""
	}
	lines := strings.Split(string(src), "\n")
	if end > len(lines) {
		end = len(lines)
	}
	if start > end {
		return ""
	}
	return strings.Join(lines[start-1:end], "\n")
}
