package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"actor/engine"
	"actor/generate"
	"actor/infill"
	"actor/pipeline"
	"actor/tokenizer"
)

// completionRequest is OpenAI's legacy completions request, the fields
// this server reads (others are ignored).
type completionRequest struct {
	Model  string          `json:"model"`
	Prompt json.RawMessage `json:"prompt"`
	// Suffix asks for the middle between Prompt and Suffix, in the
	// model's fill-in-the-middle tokens.
	Suffix      string          `json:"suffix"`
	MaxTokens   *int            `json:"max_tokens"`
	Temperature *float64        `json:"temperature"`
	TopP        *float64        `json:"top_p"`
	Stop        json.RawMessage `json:"stop"`
	Seed        *uint64         `json:"seed"`
	Stream      bool            `json:"stream"`
	N           *int            `json:"n"`
	// Context false keeps a completion with a suffix to the model's plain
	// fill-in-the-middle prompt, without the repository's context (this
	// server's; default true).
	Context *bool `json:"context"`
}

// completionChunk is a completion, whole or one streamed piece.
type completionChunk struct {
	ID      string   `json:"id"`
	Object  string   `json:"object"`
	Created int64    `json:"created"`
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   *usage   `json:"usage,omitempty"`
	// Context lists the repository's chunks the prompt showed (this
	// server's addition; a completion with a suffix in a served
	// repository's file).
	Context []contextChunk `json:"context,omitempty"`
	// Choice says which of the completions with and without the
	// repository's context was answered (this server's, as /infill's).
	Choice *contextChoice `json:"context_choice,omitempty"`
}

type choice struct {
	Text         string  `json:"text"`
	Index        int     `json:"index"`
	Logprobs     any     `json:"logprobs"`
	FinishReason *string `json:"finish_reason"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Defaults of a completion, as OpenAI's.
const (
	defaultMaxTokens = 16
	maxStops         = 4
)

// modelName is the model's id in the API.
func (s *Server) modelName() string { return pipeline.ModelLabel(s.p.ModelName) }

// models lists the one model.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{
		{"id": s.modelName(), "object": "model", "created": 0, "owned_by": "actor"}}})
}

// completion is a checked completion request.
type completion struct {
	ids       []int32
	maxTokens int
	sampler   engine.SamplerConfig
	stops     []string
	stream    bool
	context   []contextChunk
	// plain is, for a prompt showing the repository's context, the
	// prompt without it: both are written and the surer answered, as
	// /infill does (nil: one completion of ids).
	plain []int32
}

// parse checks the request against the model.
func (s *Server) parseCompletion(req *completionRequest) (*completion, *apiError) {
	if req.Model != "" && req.Model != s.modelName() {
		return nil, &apiError{http.StatusNotFound, "not_found_error", fmt.Sprintf("model %q: this server has %s", req.Model, s.modelName())}
	}
	if req.N != nil && *req.N != 1 {
		return nil, badRequest("n %d: one completion per request", *req.N)
	}
	prompts, err := stringOrList(req.Prompt)
	if err != nil || len(prompts) != 1 {
		return nil, badRequest("prompt: want one string")
	}
	stops, err := stringOrList(req.Stop)
	if err != nil || len(stops) > maxStops || (len(stops) > 0 && strings.Contains(strings.Join(stops, "\x00"), "\x00\x00")) {
		return nil, badRequest("stop: want a string or up to %d non-empty strings", maxStops)
	}
	c := &completion{maxTokens: defaultMaxTokens, stops: stops, stream: req.Stream,
		sampler: engine.SamplerConfig{Temperature: 1, TopP: 1, Seed: uint64(time.Now().UnixNano())}}
	capacity := s.capacity
	if req.MaxTokens != nil {
		c.maxTokens = *req.MaxTokens
	}
	if c.maxTokens < 1 || c.maxTokens > capacity {
		return nil, badRequest("max_tokens %d: want 1 to %d", c.maxTokens, capacity)
	}
	if t := req.Temperature; t != nil {
		if *t < 0 || *t > 2 {
			return nil, badRequest("temperature %g: want 0 to 2", *t)
		}
		c.sampler.Temperature = *t
	}
	if p := req.TopP; p != nil {
		if *p <= 0 || *p > 1 {
			return nil, badRequest("top_p %g: want above 0, at most 1", *p)
		}
		c.sampler.TopP = *p
	}
	if req.Seed != nil {
		c.sampler.Seed = *req.Seed
	}
	tok := s.p.Tok
	if req.Suffix != "" {
		if c.ids, c.context, err = s.fimPrompt(prompts[0], req.Suffix, req.Context == nil || *req.Context); err != nil {
			return nil, badRequest("suffix: %v", err)
		}
		if len(c.context) > 0 && !s.cfg.CursorAlways {
			if c.plain, err = fimTokens(tok, prompts[0], req.Suffix); err != nil {
				return nil, badRequest("suffix: %v", err)
			}
		}
	} else {
		c.ids = tok.Encode(prompts[0], true)
	}
	if len(c.ids) == 0 {
		return nil, badRequest("prompt: empty")
	}
	if len(c.ids) >= capacity {
		return nil, badRequest("prompt: %d tokens fill the model's context of %d", len(c.ids), capacity)
	}
	return c, nil
}

// stringOrList reads a JSON string or list of strings (absent: none).
func stringOrList(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var list []string
	err := json.Unmarshal(raw, &list)
	return list, err
}

// The fill-in-the-middle tokens of Qwen2.5-Coder (and StarCoder-style
// models with the same names).
const (
	fimPrefix = "<|fim_prefix|>"
	fimSuffix = "<|fim_suffix|>"
	fimMiddle = "<|fim_middle|>"
)

// fimTokens lays out prefix and suffix for the model to write the middle:
// <|fim_prefix|>prefix<|fim_suffix|>suffix<|fim_middle|>. The texts are
// encoded as plain text (a special token's name in them stays text).
func fimTokens(tok *tokenizer.Tokenizer, prefix, suffix string) ([]int32, error) {
	var special [3]int32
	for i, name := range []string{fimPrefix, fimSuffix, fimMiddle} {
		ids := tok.EncodeSpecial(name, false)
		if len(ids) != 1 || tok.TokenText(ids[0]) != name {
			return nil, fmt.Errorf("the model has no fill-in-the-middle token %s", name)
		}
		special[i] = ids[0]
	}
	var out []int32
	if tok.AddsBOS() {
		out = append(out, tok.BOS())
	}
	out = append(append(out, special[0]), tok.Encode(prefix, false)...)
	out = append(append(out, special[1]), tok.Encode(suffix, false)...)
	return append(out, special[2]), nil
}

// fimPrompt is the prompt of a completion with a suffix. When context is
// on and a served repository holds the file the text around the cursor
// comes from, it is /infill's prompt: the model's repository format with
// that repository's context (the chunks shown are returned); else the
// model's plain fill-in-the-middle layout (fimTokens). Editors that speak
// OpenAI's completions (Continue, say) send the text, not the file's name.
func (s *Server) fimPrompt(prefix, suffix string, context bool) ([]int32, []contextChunk, error) {
	if context && len(s.repos.names) > 0 && s.p.Tok.FIM().Infill() {
		line := strings.LastIndexByte(prefix, '\n') + 1 // the cursor's line starts here
		j := &infillJob{input: infill.Input{Prefix: prefix[:line], Middle: prefix[line:], Suffix: suffix, LineLast: s.cfg.CursorLineLast}, context: true}
		if _, _, found := s.cursorFile(j); found {
			p, _, err := s.infillPrompt(j)
			if err != nil {
				return nil, nil, err
			}
			var shown []contextChunk
			for _, c := range p.Chunks {
				shown = append(shown, contextChunk{Path: c.Path, Source: c.Source})
			}
			return p.IDs, shown, nil
		}
	}
	ids, err := fimTokens(s.p.Tok, prefix, suffix)
	return ids, nil, err
}

// errStopString ends a completion at a stop string.
var errStopString = errors.New("stop string")

// completions answers POST /v1/completions: the prompt continued by the
// model, whole or streamed; with a suffix, the middle, with the served
// repository's context when the cursor's file is in it (fimPrompt).
func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	var req completionRequest
	c, ctx, done, ok := admit(s, w, r, &req, false, s.parseCompletion)
	if !ok {
		return
	}
	defer done()
	chunk := completionChunk{ID: "cmpl-" + randomID(), Object: "text_completion", Created: time.Now().Unix(), Model: s.modelName()}
	var st *sse
	if c.stream {
		st = startSSE(w)
	}
	send := func(text string, finish *string) error {
		chunk.Choices = []choice{{Text: text, FinishReason: finish}}
		return st.send(chunk)
	}
	emit := func(piece string) error {
		if st != nil && piece != "" {
			return send(piece, nil)
		}
		return nil
	}
	var res written
	var err error
	shown := c.context
	var ch *contextChoice
	if c.plain != nil {
		if res, ch, err = s.chooseCompletion(ctx, c); err == nil {
			err = emit(res.text)
		}
		if ch != nil && !ch.Context {
			shown = nil
		}
	} else {
		res, err = s.writeCompletion(ctx, c, c.ids, emit)
	}
	if err != nil {
		s.fail(w, st, ctx, err)
		return
	}
	chunk.Context, chunk.Choice = shown, ch
	u := &usage{PromptTokens: res.prompt, CompletionTokens: res.n, TotalTokens: res.prompt + res.n}
	if st != nil {
		chunk.Usage = u
		send("", &res.finish)
		st.done()
		return
	}
	chunk.Choices, chunk.Usage = []choice{{Text: res.text, FinishReason: &res.finish}}, u
	writeJSON(w, http.StatusOK, chunk)
}

// written is a completion written: its text, why it ended, the prompt
// tokens and the tokens written, and their log-probabilities.
type written struct {
	text, finish string
	prompt, n    int
	logProbs     []float64
}

// writeCompletion writes a completion of ids in the session whose cache
// starts most like them, each piece of text passed to emit as it is
// final (a stop string cuts the text before it).
func (s *Server) writeCompletion(ctx context.Context, c *completion, ids []int32, emit func(string) error) (written, error) {
	res := written{prompt: len(ids)}
	cut := &infill.Guard{Stops: c.stops}
	var text strings.Builder
	add := func(piece string) error {
		text.WriteString(piece)
		return emit(piece)
	}
	sess, err := s.caches.pick(ids)
	if err != nil {
		return written{}, err
	}
	pred, _, err := sess.PrefillReusing(ids, s.caches.reuse)
	if err != nil {
		return written{}, err
	}
	stop, err := generate.Decode(sess, s.p.Tok, pred, engine.NewSampler(c.sampler), c.maxTokens, func(step generate.Step) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if step.ID >= 0 && !s.p.Tok.EOG(step.ID) {
			res.n++
			res.logProbs = append(res.logProbs, step.Pred.LogProb(step.ID))
		}
		piece, hit := cut.Add(step.Text)
		if err := add(piece); err != nil {
			return err
		}
		if hit {
			return errStopString
		}
		return nil
	})
	res.finish = "length"
	switch {
	case errors.Is(err, errStopString):
		res.finish, err = "stop", nil
	case err == nil:
		if stop == "eog" {
			res.finish = "stop"
		}
		err = add(cut.Rest())
	}
	res.text = text.String()
	return res, err
}

// chooseCompletion writes the completion without the repository's
// context (c.plain) and with it (c.ids) and returns the one the model is
// surer of, as /infill's chooseInfill, with the choice; its prompt and
// written tokens count both completions'.
func (s *Server) chooseCompletion(ctx context.Context, c *completion) (written, *contextChoice, error) {
	var res [2]written
	for i, ids := range [][]int32{c.plain, c.ids} {
		r, err := s.writeCompletion(ctx, c, ids, func(string) error { return nil })
		if err != nil {
			return written{}, nil, err
		}
		res[i] = r
	}
	ch := newChoice(res[0].text, res[0].logProbs, res[1].text, res[1].logProbs)
	out := res[0]
	if ch.Context {
		out = res[1]
	}
	out.prompt, out.n = res[0].prompt+res[1].prompt, res[0].n+res[1].n
	return out, ch, nil
}

// fail answers an error of a running request: on its stream when it has
// one, else as JSON; a time limit is a 504, a client gone needs no answer.
func (s *Server) fail(w http.ResponseWriter, st *sse, ctx context.Context, err error) {
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = &apiError{http.StatusGatewayTimeout, "timeout_error", fmt.Sprintf("the request ran past the time limit of %s", s.cfg.Timeout)}
		} else {
			err = &apiError{499, "cancelled", "the request was cancelled"}
		}
	}
	fmt.Fprintf(s.cfg.Log, "serve: %v\n", err)
	if st != nil {
		st.fail(err)
		return
	}
	writeError(w, err)
}

func randomID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
