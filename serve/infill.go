package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"actor/engine"
	"actor/generate"
	"actor/infill"
)

// infillRequest is llama.cpp's POST /infill request, the fields this
// server reads (others, such as id_slot, lora or time in a chunk, are
// ignored as llama.cpp ignores what it does not know).
type infillRequest struct {
	InputPrefix string       `json:"input_prefix"`
	InputSuffix string       `json:"input_suffix"`
	InputExtra  []extraChunk `json:"input_extra"`
	// Prompt is the cursor's line up to the cursor.
	Prompt      string   `json:"prompt"`
	NPredict    *int     `json:"n_predict"`
	NIndent     int      `json:"n_indent"`
	Temperature *float64 `json:"temperature"`
	TopK        *int     `json:"top_k"`
	TopP        *float64 `json:"top_p"`
	Samplers    []string `json:"samplers"`
	Seed        *int64   `json:"seed"`
	Stop        []string `json:"stop"`
	Stream      bool     `json:"stream"`
	CachePrompt *bool    `json:"cache_prompt"`
	// TMaxPromptMS is accepted and not enforced (as in llama.cpp).
	TMaxPromptMS   *float64 `json:"t_max_prompt_ms"`
	TMaxPredictMS  *float64 `json:"t_max_predict_ms"`
	ResponseFields []string `json:"response_fields"`
	Model          string   `json:"model"`
	// NProbs asks for each written token's log-probability and its
	// NProbs likeliest alternatives (completion_probabilities).
	NProbs int `json:"n_probs"`
	// NCmpl is llama.vscode's number of completions; one is answered.
	NCmpl *int `json:"n_cmpl"`
	// Filename is the cursor's file, a path in a served repository or an
	// absolute path inside one (this server's; without it the file is
	// found from the text around the cursor).
	Filename string `json:"filename"`
	// Context false asks for llama.cpp's prompt, without the repository's
	// context (this server's; default true).
	Context *bool `json:"context"`
	// Actor asks for ACToR's critical-token re-retrieval while the
	// completion is written (this server's; a server with a probe, a
	// cursor in a served repository's file).
	Actor bool `json:"actor"`
}

// extraChunk is an editor's chunk of context.
type extraChunk struct {
	Filename *string `json:"filename"`
	Text     string  `json:"text"`
}

// Defaults of a completion at the cursor.
const (
	// defaultPredict is the token limit when the request sets none (or
	// -1), and the room kept for it when the prompt's context is cut.
	defaultPredict = infill.DefaultPredict
	// infillBatch divides the prompt as llama.cpp's server does with its
	// default logical batch: three quarters of it for the text above the
	// cursor, a quarter for the text below, so the text around the cursor
	// is cut as llama.cpp cuts it; the chunks get what the context (--ctx,
	// 4,096 by default) leaves after the batch and twice defaultPredict.
	// (The forward passes still take engine.DefaultBatchSize tokens at a
	// time.)
	infillBatch = infill.LlamaCppBatch
)

// samplerNames are the llama.cpp sampler names accepted in samplers; the
// ones this server has (top_k, top_p, temperature, infill) apply.
var samplerNames = []string{"top_k", "top_p", "temperature", "infill", "min_p", "typ_p", "typical_p",
	"penalties", "dry", "xtc", "top_n_sigma", "mirostat"}

// infillJob is a checked /infill request.
type infillJob struct {
	input    infill.Input
	chunks   []infill.Chunk
	predict  int
	sampler  engine.SamplerConfig
	infill   bool
	guard    infill.Guard
	stream   bool
	cache    bool
	fields   []string
	settings map[string]any
	filename string
	context  bool
	actor    bool
	nProbs   int
}

// parseInfill checks the request against the model.
func (s *Server) parseInfill(req *infillRequest) (*infillJob, *apiError) {
	if req.Model != "" && req.Model != s.modelName() {
		return nil, &apiError{http.StatusNotFound, "not_found_error", fmt.Sprintf("model %q: this server has %s", req.Model, s.modelName())}
	}
	if !s.p.Tok.FIM().Infill() {
		return nil, &apiError{http.StatusNotImplemented, "not_supported_error", "infill: " + infill.ErrNoFIM.Error()}
	}
	j := &infillJob{predict: defaultPredict, stream: req.Stream, cache: req.CachePrompt == nil || *req.CachePrompt,
		input:  infill.Input{Prefix: req.InputPrefix, Middle: req.Prompt, Suffix: req.InputSuffix, LineLast: s.cfg.CursorLineLast},
		fields: req.ResponseFields, infill: req.Samplers == nil, filename: req.Filename,
		context: req.Context == nil || *req.Context, actor: req.Actor,
		// llama.cpp's defaults: temperature 0.8, top-k 40, top-p 0.95
		sampler: engine.SamplerConfig{Temperature: 0.8, TopK: 40, TopP: 0.95, Seed: uint64(time.Now().UnixNano())}}
	if n := req.NPredict; n != nil && *n >= 0 {
		j.predict = *n
	} else if n != nil && *n != -1 {
		return nil, badRequest("n_predict %d: want -1 (the default) or more", *n)
	}
	if req.Actor && (s.p.Probe == nil || !j.context) {
		return nil, badRequest("actor: ACToR at the cursor needs the repository's context and a probe for the server's model (shipped, or actor serve --probe FILE)")
	}
	if req.NProbs < 0 || req.NProbs > maxProbs {
		return nil, badRequest("n_probs %d: want 0 to %d", req.NProbs, maxProbs)
	}
	j.nProbs = req.NProbs
	if req.NIndent < 0 {
		return nil, badRequest("n_indent %d: want 0 or more", req.NIndent)
	}
	if req.NCmpl != nil && *req.NCmpl < 1 {
		return nil, badRequest("n_cmpl %d: want 1 or more (one completion is answered)", *req.NCmpl)
	}
	if t := req.Temperature; t != nil {
		j.sampler.Temperature = *t
	}
	if k := req.TopK; k != nil {
		if *k < 0 {
			return nil, badRequest("top_k %d: want 0 (all) or more", *k)
		}
		j.sampler.TopK = *k
	}
	if p := req.TopP; p != nil {
		if *p < 0 || *p > 1 {
			return nil, badRequest("top_p %g: want 0 to 1", *p)
		}
		j.sampler.TopP = *p
	}
	if req.Seed != nil && *req.Seed >= 0 {
		j.sampler.Seed = uint64(*req.Seed)
	}
	if req.Samplers != nil {
		for _, n := range req.Samplers {
			if !slices.Contains(samplerNames, n) {
				return nil, badRequest("samplers: unknown sampler %q (known: %s)", n, strings.Join(samplerNames, ", "))
			}
		}
		// only the samplers named apply, in llama.cpp's chain
		if !slices.Contains(req.Samplers, "top_k") {
			j.sampler.TopK = 0
		}
		if !slices.Contains(req.Samplers, "top_p") {
			j.sampler.TopP = 1
		}
		if !slices.Contains(req.Samplers, "temperature") && j.sampler.Temperature > 0 {
			j.sampler.Temperature = 1
		}
		j.infill = slices.Contains(req.Samplers, "infill")
	}
	for i, c := range req.InputExtra {
		name := "tmp" // llama.cpp's name for a chunk without one
		if c.Filename != nil {
			name = *c.Filename
		}
		if strings.Contains(name, "\n") {
			return nil, badRequest("input_extra[%d].filename: one line expected", i)
		}
		j.chunks = append(j.chunks, infill.Chunk{Path: name, Text: c.Text, Source: "editor"})
	}
	for _, w := range req.Stop {
		if w != "" {
			j.guard.Stops = append(j.guard.Stops, w)
		}
	}
	j.guard.Indent = req.NIndent
	if t := req.TMaxPredictMS; t != nil && *t > 0 {
		j.guard.Limit = time.Duration(*t * float64(time.Millisecond))
	}
	j.settings = map[string]any{"n_ctx": s.capacity, "n_predict": j.predict, "temperature": j.sampler.Temperature,
		"top_k": j.sampler.TopK, "top_p": j.sampler.TopP, "seed": j.sampler.Seed, "n_indent": req.NIndent,
		"stop": append([]string{}, j.guard.Stops...), "t_max_predict_ms": j.guard.Limit.Milliseconds(), "samplers": req.Samplers,
		"cache_prompt": j.cache, "n_probs": j.nProbs}
	return j, nil
}

// infillResult is llama.cpp's answer to a completion, whole (stop true)
// or one streamed piece (stop false: index, content, tokens, stop,
// id_slot, tokens_predicted and tokens_evaluated only).
type infillResult struct {
	Index           int            `json:"index"`
	Content         string         `json:"content"`
	Tokens          []int32        `json:"tokens"`
	IDSlot          int            `json:"id_slot"`
	Stop            bool           `json:"stop"`
	Model           string         `json:"model,omitempty"`
	TokensPredicted int            `json:"tokens_predicted"`
	TokensEvaluated int            `json:"tokens_evaluated"`
	Settings        map[string]any `json:"generation_settings,omitempty"`
	Prompt          *string        `json:"prompt,omitempty"`
	HasNewLine      *bool          `json:"has_new_line,omitempty"`
	Truncated       *bool          `json:"truncated,omitempty"`
	StopType        string         `json:"stop_type,omitempty"`
	StoppingWord    *string        `json:"stopping_word,omitempty"`
	// TokensCached is llama.cpp's: the tokens the cache holds afterwards
	// (prompt and completion); timings.cache_n counts the prompt tokens
	// reused from the previous request.
	TokensCached *int     `json:"tokens_cached,omitempty"`
	Timings      *timings `json:"timings,omitempty"`
	// Context lists the chunks the prompt showed (this server's addition;
	// with ACToR, the last prompt's).
	Context []contextChunk `json:"context,omitempty"`
	// Actor is what ACToR did (this server's; requests with "actor").
	Actor *actorStats `json:"actor,omitempty"`
	// Probs are the written tokens' probabilities (requests with n_probs).
	Probs []tokenProb `json:"completion_probabilities,omitempty"`
	// Choice says which of the completions written with and without the
	// repository's context was answered (this server's; see
	// Server.chooseInfill).
	Choice *contextChoice `json:"context_choice,omitempty"`
	// logProbs are the log-probabilities of Tokens.
	logProbs []float64
}

// contextChunk describes a chunk a prompt showed.
type contextChunk struct {
	Path   string `json:"path"`
	Source string `json:"source"`
}

// timings are llama.cpp's: prompt tokens reused (cache_n) and computed
// (prompt_n), tokens predicted, and the time each took.
type timings struct {
	CacheN              int     `json:"cache_n"`
	PromptN             int     `json:"prompt_n"`
	PromptMS            float64 `json:"prompt_ms"`
	PromptPerTokenMS    float64 `json:"prompt_per_token_ms"`
	PromptPerSecond     float64 `json:"prompt_per_second"`
	PredictedN          int     `json:"predicted_n"`
	PredictedMS         float64 `json:"predicted_ms"`
	PredictedPerTokenMS float64 `json:"predicted_per_token_ms"`
	PredictedPerSecond  float64 `json:"predicted_per_second"`
}

// newTimings fills the rates (0 where a count or a time is 0).
func newTimings(cached, prompt int, promptTime time.Duration, predicted int, predictTime time.Duration) *timings {
	return withRates(&timings{CacheN: cached, PromptN: prompt, PromptMS: ms(promptTime), PredictedN: predicted, PredictedMS: ms(predictTime)})
}

// withRates fills t's rates from its counts and times.
func withRates(t *timings) *timings {
	t.PromptPerTokenMS, t.PromptPerSecond = rates(t.PromptN, t.PromptMS)
	t.PredictedPerTokenMS, t.PredictedPerSecond = rates(t.PredictedN, t.PredictedMS)
	return t
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func rates(n int, ms float64) (perToken, perSecond float64) {
	if n > 0 {
		perToken = ms / float64(n)
	}
	if ms > 0 {
		perSecond = 1000 * float64(n) / ms
	}
	return perToken, perSecond
}

// infillHandler answers POST /infill: the middle between the editor's
// prefix and suffix, after the repository's context and the editor's
// chunks, whole or streamed as llama.cpp streams it (server-sent events of
// the pieces, then the final result; no [DONE]).
func (s *Server) infillHandler(w http.ResponseWriter, r *http.Request) {
	var req infillRequest
	j, ctx, done, ok := admit(s, w, r, &req, false, s.parseInfill)
	if !ok {
		return
	}
	defer done()
	prompt, cc, err := s.infillPrompt(j)
	if err != nil {
		s.fail(w, nil, ctx, err)
		return
	}
	prompts := []infill.Prompt{prompt}
	choose := s.choosing(j, prompt)
	if choose {
		plain, err := s.plainPrompt(j)
		if err != nil {
			s.fail(w, nil, ctx, err)
			return
		}
		prompts = []infill.Prompt{plain, prompt}
	}
	for _, p := range prompts {
		if len(p.IDs)+1 > s.capacity {
			writeError(w, badRequest("the prompt's %d tokens fill the model's context of %d", len(p.IDs), s.capacity))
			return
		}
	}
	var st *sse
	if j.stream {
		st = startSSE(w)
	}
	var res infillResult
	if choose {
		res, prompt, err = s.chooseInfill(ctx, j, prompts[0], prompts[1], st)
	} else {
		var a *cursorACToR
		if j.actor && cc != nil && cc.found {
			a = &cursorACToR{s: s, probe: s.p.Probe, cc: cc, chunks: cc.shown, prompt: prompt}
		}
		res, err = s.completeInfill(ctx, j, prompt.IDs, st, a)
		if a != nil {
			prompt, res.Actor = a.prompt, &a.stats
		}
	}
	if err != nil {
		s.fail(w, st, ctx, err)
		return
	}
	res.Prompt, res.Truncated = ptr(s.p.Tok.DecodeSpecial(prompt.IDs)), ptr(prompt.Truncated)
	for _, c := range prompt.Chunks {
		res.Context = append(res.Context, contextChunk{Path: c.Path, Source: c.Source})
	}
	if st != nil {
		res.Content, res.Tokens = "", []int32{} // already streamed
		st.send(selectFields(res, j.fields))
		return
	}
	writeJSON(w, http.StatusOK, selectFields(res, j.fields))
}

// completeInfill writes a completion of ids in the session whose cache
// starts most like them (emptied first for a request without
// cache_prompt), as runInfill.
func (s *Server) completeInfill(ctx context.Context, j *infillJob, ids []int32, st *sse, a *cursorACToR) (infillResult, error) {
	sess, err := s.caches.pick(ids)
	if err != nil {
		return infillResult{}, err
	}
	if !j.cache {
		sess.Truncate(0)
	}
	if a != nil {
		a.sess = sess
	}
	return s.runInfill(ctx, sess, j, ids, min(j.predict, s.capacity-len(ids)), st, a)
}

// runInfill prefills ids into sess (reusing its cache) and decodes up to
// predict tokens under the job's rules, streaming the pieces on st when it
// is not nil, with ACToR's judge when a is not nil; the result lacks the
// prompt's description.
func (s *Server) runInfill(ctx context.Context, sess *engine.Session, j *infillJob, ids []int32, predict int, st *sse, a *cursorACToR) (infillResult, error) {
	var judge generate.Judge
	if a != nil {
		sess.Hidden, judge = true, a.judge
		defer func() { sess.Hidden = false }()
	}
	start := time.Now()
	pred, reuse, err := sess.PrefillReusing(ids, s.caches.reuse)
	if err != nil {
		return infillResult{}, err
	}
	first := time.Now()
	guard := j.guard // each run's own: the guard keeps the text written
	g := &guard
	g.Start = first
	tokens := []int32{}
	var logProbs []float64
	var probs []tokenProb
	sentProbs := 0 // a piece sends the probabilities of the tokens since the last piece
	emit := func(piece string) error {
		if st != nil && piece != "" {
			r := infillResult{Content: piece, Tokens: tokens[len(tokens)-1:], TokensPredicted: len(tokens), TokensEvaluated: len(ids),
				Probs: probs[sentProbs:]}
			sentProbs = len(probs)
			return st.send(r)
		}
		return nil
	}
	smp := &infill.Sampler{Sampler: engine.NewSampler(j.sampler), Tok: s.p.Tok, Infill: j.infill}
	stop, err := generate.DecodeJudged(sess, s.p.Tok, pred, smp, predict, judge, func(step generate.Step) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if step.ID < 0 || s.p.Tok.EOG(step.ID) {
			return nil
		}
		tokens = append(tokens, step.ID)
		logProbs = append(logProbs, step.Pred.LogProb(step.ID))
		if j.nProbs > 0 {
			probs = append(probs, newTokenProb(s.p.Tok, step.Pred, step.ID, j.nProbs))
		}
		if a != nil {
			a.generated = tokens
		}
		piece, end := g.Add(step.Text)
		if err := emit(piece); err != nil {
			return err
		}
		if end {
			return errStopString
		}
		return nil
	})
	stopType := infill.StopLimit
	switch {
	case errors.Is(err, errStopString):
		stopType, err = g.Stopped(), nil
	case err == nil:
		if stop == "eog" {
			stopType = infill.StopEOS
		}
		err = emit(g.Rest())
	}
	if err != nil {
		return infillResult{}, err
	}
	text := g.Text()
	return infillResult{Content: text, Tokens: tokens, Stop: true, Model: s.modelName(), TokensPredicted: len(tokens),
		TokensEvaluated: len(ids), Settings: j.settings, HasNewLine: ptr(strings.Contains(text, "\n")), StopType: stopType,
		StoppingWord: ptr(g.Word()), TokensCached: ptr(sess.Len()), Probs: probs, logProbs: logProbs,
		Timings: newTimings(reuse.Cached(), len(ids)-reuse.Cached(), first.Sub(start), len(tokens), time.Since(first))}, nil
}

func ptr[T any](v T) *T { return &v }
