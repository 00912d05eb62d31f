package generate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"actor/engine"
	"actor/retrieve"
	"actor/tokenizer"
)

// Decoder runs a generator's samples on one model. It keeps the KV caches
// of recent sequences (a few engine sessions, see Sessions): a prompt that
// shares a prefix with a cached sequence — the next sample of the same task,
// ACToR's rebuilt prompt after a context change, or a return to a context
// used earlier in the sample — recomputes only what follows the shared
// prefix (engine.Session.Prefill gives the same logits as a fresh prefill).
// It counts the engine's work.
type Decoder struct {
	model *engine.Model
	tok   *tokenizer.Tokenizer
	opt   DecoderOptions
	kv    kvSet
	cur   *slot // the cache that Step extends
	// hidden: the running sample reads hidden states (ACToR's probe).
	hidden bool
	stats  Stats
	// ctx and observe are the running sample's (see watch).
	ctx     context.Context
	observe Observer
	// batch, when set, runs prefills and steps with other lanes' (see
	// GenerateSamples); lane is the decoder's place among them.
	batch *batcher
	lane  int
	// lanes are the lane decoders of the last GenerateSamples, kept with
	// their KV caches for the next one (see laneDecoders).
	lanes []*Decoder
	// scratch computes blocks alone for Blocks; placedTokens and
	// aloneTokens count the block tokens this decoder placed from it and
	// computed alone for it; check is CheckReuse's session
	scratch, check            *engine.Session
	placedTokens, aloneTokens int
}

// DecoderOptions configure a Decoder when it is made; they do not change
// afterwards.
type DecoderOptions struct {
	// Sessions is the most KV caches kept (0: DefaultSessions); each holds
	// the model's context length.
	Sessions int
	// Blocks, when set, switches block KV reuse on: after a context change
	// the new prompt's blocks are placed from this store instead of being
	// computed (see BlockStore). Nil decodes every prompt exactly.
	Blocks *BlockStore
	// ReuseTail, with Blocks, also moves the target's prompt and the
	// generated tokens after a context change instead of recomputing
	// them: only the last token is computed, attending to the new blocks
	// (a further approximation: the moved tokens keep what they attended
	// to before the change).
	ReuseTail bool
	// CheckReuse, with Blocks, also prefills every prompt after a context
	// change exactly, in a session of its own, and records in the trace
	// how far the placed blocks moved the prediction (TokenEvent.Reuse).
	// For measuring the approximation: it costs exact ACToR's re-prefills.
	CheckReuse bool
	// OnPrefill, when set, is called after every prefill with the
	// sequence and its prediction; tests compare it with a fresh session.
	OnPrefill func(seq []int32, p engine.Prediction)
}

// Observer sees every token event as an attempt records it (the attempt
// holds its stage, number and initial blocks): a server streams the
// tokens, critical tokens and context changes of a sample as they happen.
// An error it returns ends the sample with that error (a client gone).
// The lanes of GenerateSamples call it from their goroutines. Nil costs
// nothing.
type Observer func(a *Attempt, ev *TokenEvent) error

// DefaultSessions is the number of KV caches a Decoder keeps: enough for
// ACToR to go back and forth between a few contexts within a sample.
const DefaultSessions = 4

// Stats is the engine work done through a Decoder.
type Stats struct {
	// Prefills counts prefill calls, Steps single-token steps.
	Prefills int `json:"prefills"`
	Steps    int `json:"steps"`
	// Evaluated counts the tokens run through the model: the part of each
	// prefilled sequence after the prefix its cache already held (at
	// least its last token), plus one per step.
	Evaluated int `json:"evaluated"`
}

func (s Stats) minus(o Stats) Stats {
	return Stats{s.Prefills - o.Prefills, s.Steps - o.Steps, s.Evaluated - o.Evaluated}
}

func (s Stats) plus(o Stats) Stats {
	return Stats{s.Prefills + o.Prefills, s.Steps + o.Steps, s.Evaluated + o.Evaluated}
}

// NewDecoder opens a session of the model; tok must be the model's own
// tokenizer.
func NewDecoder(m *engine.Model, tok *tokenizer.Tokenizer, o DecoderOptions) (*Decoder, error) {
	d := &Decoder{model: m, tok: tok, opt: o, kv: kvSet{model: m, limit: o.Sessions}, ctx: context.Background()}
	if _, err := d.kv.add(); err != nil {
		return nil, err
	}
	return d, nil
}

// Close frees the sessions, the lanes' too.
func (d *Decoder) Close() {
	for _, l := range d.lanes {
		l.Close()
	}
	d.lanes = nil
	d.kv.close()
	for _, s := range []*engine.Session{d.scratch, d.check} {
		if s != nil {
			s.Close()
		}
	}
	d.cur, d.scratch, d.check = nil, nil, nil
}

// Stats returns the work done so far.
func (d *Decoder) Stats() Stats { return d.stats }

// Tokenizer returns the model's tokenizer.
func (d *Decoder) Tokenizer() *tokenizer.Tokenizer { return d.tok }

// Model returns the decoder's model.
func (d *Decoder) Model() *engine.Model { return d.model }

// prefill makes a cache hold seq and predicts the token after it. spans
// are seq's blocks (with Blocks set); with place they are placed from the
// store rather than computed (a prompt after a context change).
func (d *Decoder) prefill(seq []int32, spans []tokenSpan, place bool) (engine.Prediction, error) {
	if err := d.ctx.Err(); err != nil {
		return engine.Prediction{}, err
	}
	s, _ := d.kv.choose(seq)
	prev := d.cur
	if d.opt.Blocks != nil {
		if err := d.harvest(prev); err != nil {
			return engine.Prediction{}, err
		}
	}
	d.kv.use(s)
	d.cur = s
	s.sess.Hidden = d.hidden
	c0 := s.sess.Computed()
	var p engine.Prediction
	var err error
	if place && d.opt.Blocks != nil {
		// prev may be s itself: its spans still describe what it holds.
		if err = d.place(prev, s, seq, spans); err != nil {
			s.cached, s.spans = s.sess.Tokens(), nil
			return p, err
		}
	}
	s.spans = spans
	if d.batch != nil {
		p, err = d.batch.do(d.lane, s.sess, seq)
	} else {
		p, err = s.sess.Prefill(seq)
	}
	if err != nil {
		s.cached, s.spans = s.sess.Tokens(), nil
		return p, err
	}
	d.stats.Prefills++
	d.stats.Evaluated += s.sess.Computed() - c0
	s.cached = append(s.cached[:0], seq...)
	if d.opt.OnPrefill != nil {
		d.opt.OnPrefill(slices.Clone(seq), p)
	}
	return p, nil
}

func (d *Decoder) step(t int32) (engine.Prediction, error) {
	s := d.cur
	s.sess.Hidden = d.hidden
	var p engine.Prediction
	var err error
	if d.batch != nil {
		p, err = d.batch.do(d.lane, s.sess, stepSeq(s.cached, t))
	} else {
		p, err = s.sess.Step(t)
	}
	if err != nil {
		return p, err
	}
	d.stats.Steps++
	d.stats.Evaluated++
	s.cached = append(s.cached, t)
	return p, nil
}

// judge watches every sampled token before it is accepted (ACToR's
// critical-token inference is the one judge).
type judge interface {
	// hidden reports whether check needs Prediction.Hidden.
	hidden() bool
	// check decides on token t, sampled at position i of the body from
	// pred, after the body text so far; it fills ev. A prompt with text
	// means the context changed: t is dropped and the position decoded
	// again from prompt + the body's tokens (the replacement is not judged).
	check(i int, t int32, body string, pred *engine.Prediction, ev *TokenEvent) (prompt retrieve.Prompt, err error)
}

// modelPrompt is the text the model is given for prompt: with heal, a
// final newline is left for the model to write (see Config.HealNewline).
func modelPrompt(prompt string, heal bool) string {
	if heal {
		return strings.TrimSuffix(prompt, "\n")
	}
	return prompt
}

// run decodes one attempt: prefill the prompt, then sample until an
// end-of-generation token, the stop rule, the token limit or a full
// context. It records the attempt's events in a and returns the body, the
// text that follows prompt.
func (d *Decoder) run(a *Attempt, p retrieve.Prompt, smp *engine.Sampler, cfg Config, j judge) (string, error) {
	prompt := p.Text
	before := d.stats
	start := time.Now()
	// With healing the model writes the prompt's last newline itself: the
	// generated text then starts with it, and the body is what follows.
	healed := cfg.HealNewline && strings.HasSuffix(prompt, "\n")
	body := func(text []byte) string {
		if healed {
			return strings.TrimPrefix(string(text), "\n")
		}
		return string(text)
	}
	maxNew := cfg.MaxNewTokens
	g := guardFor(p, healed, cfg)
	ids, spans := d.encode(p, healed)
	if len(ids) == 0 {
		return "", errors.New("generate: the prompt is empty")
	}
	d.hidden = j != nil && j.hidden()
	a.PromptTokens = len(ids)
	pred, err := d.prefill(ids, spans, false)
	if err != nil {
		return "", fmt.Errorf("generate: prompt of %d tokens: %w", len(ids), err)
	}
	a.PrefillMs = msSince(start)
	decodeStart := time.Now()
	var gen []int32
	var text []byte
	from := 0 // the stop rule is decided for text[:from]
	defer func() {
		a.DecodeMs = msSince(decodeStart)
		a.Tokens = len(gen)
		a.Work = d.stats.minus(before)
	}()
	for {
		evStart := time.Now()
		ev := TokenEvent{}
		t := d.sample(smp, pred.Logits, text, g)
		if j != nil {
			next, err := j.check(len(gen), t, body(text), &pred, &ev)
			if err != nil {
				return "", err
			}
			if next.Text != "" {
				ev.Dropped = &TokenRef{ID: t, Text: d.tok.Piece(t)}
				ids, spans = d.encode(next, healed)
				a.PromptTokens = len(ids)
				p0, w0, placed0, alone0 := time.Now(), d.stats.Evaluated, d.placedTokens, d.aloneTokens
				seq := append(slices.Clip(ids), gen...)
				if pred, err = d.prefill(seq, spans, true); err != nil {
					return d.stopOnFull(a, body(text), err, ev)
				}
				ev.PrefillMs, ev.Evaluated = msSince(p0), d.stats.Evaluated-w0
				ev.Reprefilled, ev.Placed, ev.Alone = ev.Evaluated, d.placedTokens-placed0, d.aloneTokens-alone0
				if ev.Reuse, err = d.checkReuse(seq, pred); err != nil {
					return d.stopOnFull(a, body(text), err, ev)
				}
				t = d.sample(smp, pred.Logits, text, g)
			}
		}
		ev.ID, ev.Text = t, d.tok.Piece(t)
		if d.tok.EOG(t) {
			ev.Ms = msSince(evStart)
			a.Stop = "eog"
			return body(text), d.record(a, ev)
		}
		gen = append(gen, t)
		text = append(text, ev.Text...)
		if cut := stopAt(text, from, g.lineStart); cut >= 0 {
			ev.Ms = msSince(evStart)
			a.Stop = "rule"
			return body(text[:cut]), d.record(a, ev)
		}
		from = max(0, len(text)-utf8Max)
		if len(gen) >= maxNew {
			ev.Ms = msSince(evStart)
			a.Stop = "max"
			return body(text), d.record(a, ev)
		}
		w0 := d.stats.Evaluated
		if pred, err = d.step(t); err != nil {
			return d.stopOnFull(a, body(text), err, ev)
		}
		ev.Evaluated += d.stats.Evaluated - w0
		ev.Ms = msSince(evStart)
		if err := d.record(a, ev); err != nil {
			return "", err
		}
	}
}

// record appends an event to the attempt and shows it to the running
// sample's observer; a cancelled or expired context ends the sample.
func (d *Decoder) record(a *Attempt, ev TokenEvent) error {
	a.Events = append(a.Events, ev)
	if err := d.ctx.Err(); err != nil {
		return err
	}
	if d.observe == nil {
		return nil
	}
	return d.observe(a, &a.Events[len(a.Events)-1])
}

// watch makes ctx and obs the running sample's until the returned
// function is called (a generator's Generate defers it).
func (d *Decoder) watch(ctx context.Context, obs Observer) func() {
	d.ctx, d.observe = ctx, obs
	return func() { d.ctx, d.observe = context.Background(), nil }
}

// encode is the prompt's tokens and, when blocks are reused, its blocks'
// token spans.
func (d *Decoder) encode(p retrieve.Prompt, heal bool) ([]int32, []tokenSpan) {
	if d.opt.Blocks == nil {
		return d.encodeText(p, modelPrompt(p.Text, heal), true), nil
	}
	return d.promptTokens(p, heal)
}

// encodeText encodes text of prompt p, matching special-token texts as
// those tokens when p's format writes them (retrieve.Prompt.Special).
func (d *Decoder) encodeText(p retrieve.Prompt, text string, addSpecial bool) []int32 {
	if p.Special {
		return d.tok.EncodeSpecial(text, addSpecial)
	}
	return d.tok.Encode(text, addSpecial)
}

// maxBlankRedraws bounds the tokens the blank guard rules out for one
// position; past it, or when nothing else has any probability, the
// model's first draw stands (its blank body is then what Retries redraw).
const maxBlankRedraws = 64

// bodyGuard is what a token drawn while the body is blank may not do:
// end the attempt there (blank, Config.BlankGuard), or put the body's
// first character at a column below minColumn (Config.IndentGuard; 0:
// any column). lineStart says that the generated text starts a line (the
// code it follows ended with a newline the model is not left to write);
// otherwise the body's first line begins at the text's first newline.
type bodyGuard struct {
	blank     bool
	minColumn int
	lineStart bool
}

// guardFor is the body guard of an attempt on prompt p. The model's text
// follows p's lead (the prompt, or a FIM prompt's code before the middle);
// it starts a line when the lead ends with a newline that the model is
// not left to write (healed).
func guardFor(p retrieve.Prompt, healed bool, cfg Config) bodyGuard {
	lead := p.Lead()
	g := bodyGuard{blank: cfg.BlankGuard, lineStart: !healed && strings.HasSuffix(lead, "\n")}
	if cfg.IndentGuard && strings.HasSuffix(lead, "\n") {
		g.minColumn = bodyColumn(lead)
	}
	return g
}

// sample draws the next token after text (the generated text so far).
// While the body is blank, a token that g rules out is set to −∞ in a copy
// of the logits and the position drawn again, which samples from the rest
// of the distribution.
func (d *Decoder) sample(smp *engine.Sampler, logits []float32, text []byte, g bodyGuard) int32 {
	first := smp.Sample(logits)
	if !g.blank && g.minColumn == 0 || !blank(text) {
		return first
	}
	var masked []float32
	t := first
	for range maxBlankRedraws {
		if !d.ruledOut(t, text, g) {
			return t
		}
		if masked == nil {
			masked = slices.Clone(logits)
		}
		masked[t] = float32(math.Inf(-1))
		if t = smp.Sample(masked); math.IsInf(float64(masked[t]), -1) {
			break
		}
	}
	return first
}

// blank reports whether text is white space only (so is its body, with or
// without a healed newline).
func blank(text []byte) bool { return len(bytes.TrimSpace(text)) == 0 }

// ruledOut reports whether g rules out token t after the blank text: an
// end-of-generation token or a line back at column 0 (the stop rule) with
// nothing but white space before it, when g guards blank bodies; a first
// character of the body at a column below g.minColumn.
func (d *Decoder) ruledOut(t int32, text []byte, g bodyGuard) bool {
	if d.tok.EOG(t) {
		return g.blank
	}
	next := append(slices.Clip(text), d.tok.Piece(t)...)
	if cut := stopAt(next, 0, g.lineStart); g.blank && cut >= 0 && blank(next[:cut]) {
		return true
	}
	return g.minColumn > 0 && firstColumn(next, g.lineStart) < g.minColumn
}

// firstColumn is the column (in bytes) of text's first character that is
// not white space, counted from the newline before it, or from the start
// of text when lineStart; a large number when there is none or when it
// lies on the line the text continues.
func firstColumn(text []byte, lineStart bool) int {
	k := bytes.IndexFunc(text, func(r rune) bool { return !pySpace(r) })
	nl := bytes.LastIndexByte(text[:max(k, 0)], '\n')
	switch {
	case k < 0 || nl < 0 && !lineStart:
		return math.MaxInt
	case nl < 0:
		return k
	}
	return k - nl - 1
}

// bodyColumn is the column at which the body of prompt's target starts:
// that of its docstring's first line, or one right of its "def" line
// when it has no docstring; 0 when the prompt has no "def" line.
func bodyColumn(prompt string) int {
	lines := strings.Split(prompt, "\n")
	def := -1
	for i := len(lines) - 1; i >= 0 && def < 0; i-- {
		if t := strings.TrimLeft(lines[i], " \t"); strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "async def ") {
			def = i
		}
	}
	if def < 0 {
		return 0
	}
	for _, l := range lines[def+1:] {
		t := strings.TrimLeft(strings.TrimLeft(l, " \t"), "rRuU")
		if strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, `'''`) {
			return indentation(l)
		}
	}
	return indentation(lines[def]) + 1
}

// indentation is the width of line's leading blanks.
func indentation(line string) int { return len(line) - len(strings.TrimLeft(line, " \t")) }

// stopOnFull ends an attempt whose context is full, keeping the body so
// far; other errors are returned.
func (d *Decoder) stopOnFull(a *Attempt, body string, err error, ev TokenEvent) (string, error) {
	if !errors.Is(err, engine.ErrContextFull) {
		return "", err
	}
	a.Stop = "context"
	return body, d.record(a, ev)
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }
