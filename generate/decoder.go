package generate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"actor/engine"
	"actor/tokenizer"
)

// Decoder is one model session shared by a generator's samples. It keeps
// the KV cache between prompts, so a prompt that shares a prefix with the
// previous sequence (the next sample of the same task, ACToR's rebuilt
// prompt after a context change) recomputes only what follows the shared
// prefix (engine.Session.Prefill), and it counts the engine's work.
type Decoder struct {
	model  *engine.Model
	tok    *tokenizer.Tokenizer
	sess   *engine.Session
	cached []int32 // the session's tokens, mirrored to count reuse
	stats  Stats
	// OnPrefill, when set, is called after every prefill with the
	// sequence and its prediction; tests compare it with a fresh session.
	OnPrefill func(seq []int32, p engine.Prediction)
}

// Stats is the engine work done through a Decoder.
type Stats struct {
	// Prefills counts prefill calls, Steps single-token steps.
	Prefills int `json:"prefills"`
	Steps    int `json:"steps"`
	// Evaluated counts the tokens run through the model: the part of each
	// prefilled sequence after the prefix the cache already held (at
	// least its last token), plus one per step.
	Evaluated int `json:"evaluated"`
}

func (s Stats) minus(o Stats) Stats {
	return Stats{s.Prefills - o.Prefills, s.Steps - o.Steps, s.Evaluated - o.Evaluated}
}

// NewDecoder opens a session of the model; tok must be the model's own
// tokenizer.
func NewDecoder(m *engine.Model, tok *tokenizer.Tokenizer) (*Decoder, error) {
	s, err := m.NewSession()
	if err != nil {
		return nil, err
	}
	return &Decoder{model: m, tok: tok, sess: s}, nil
}

// Close frees the session.
func (d *Decoder) Close() { d.sess.Close() }

// Stats returns the work done so far.
func (d *Decoder) Stats() Stats { return d.stats }

// Tokenizer returns the model's tokenizer.
func (d *Decoder) Tokenizer() *tokenizer.Tokenizer { return d.tok }

// Model returns the decoder's model.
func (d *Decoder) Model() *engine.Model { return d.model }

func (d *Decoder) prefill(seq []int32) (engine.Prediction, error) {
	p, err := d.sess.Prefill(seq)
	if err != nil {
		d.cached = d.sess.Tokens()
		return p, err
	}
	keep := min(commonPrefix(d.cached, seq), len(seq)-1)
	d.stats.Prefills++
	d.stats.Evaluated += len(seq) - keep
	d.cached = append(d.cached[:0], seq...)
	if d.OnPrefill != nil {
		d.OnPrefill(slices.Clone(seq), p)
	}
	return p, nil
}

func (d *Decoder) step(t int32) (engine.Prediction, error) {
	p, err := d.sess.Step(t)
	if err != nil {
		return p, err
	}
	d.stats.Steps++
	d.stats.Evaluated++
	d.cached = append(d.cached, t)
	return p, nil
}

func commonPrefix(a, b []int32) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// judge watches every sampled token before it is accepted (ACToR's
// critical-token inference is the one judge).
type judge interface {
	// hidden reports whether check needs Prediction.Hidden.
	hidden() bool
	// check decides on token t, sampled at position i of the body from
	// pred, after the body text so far; it fills ev. A non-empty prompt
	// means the context changed: t is dropped and the position decoded
	// again from prompt + the body's tokens (the replacement is not judged).
	check(i int, t int32, body string, pred *engine.Prediction, ev *TokenEvent) (prompt string, err error)
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
func (d *Decoder) run(a *Attempt, prompt string, smp *engine.Sampler, cfg Config, j judge) (string, error) {
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
	ids := d.tok.Encode(modelPrompt(prompt, healed), true)
	if len(ids) == 0 {
		return "", errors.New("generate: the prompt is empty")
	}
	d.sess.Hidden = j != nil && j.hidden()
	a.PromptTokens = len(ids)
	pred, err := d.prefill(ids)
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
		t := smp.Sample(pred.Logits)
		if j != nil {
			next, err := j.check(len(gen), t, body(text), &pred, &ev)
			if err != nil {
				return "", err
			}
			if next != "" {
				ev.Dropped = &TokenRef{ID: t, Text: d.tok.Piece(t)}
				ids = d.tok.Encode(modelPrompt(next, healed), true)
				a.PromptTokens = len(ids)
				p0, w0 := time.Now(), d.stats.Evaluated
				if pred, err = d.prefill(append(slices.Clip(ids), gen...)); err != nil {
					return d.stopOnFull(a, body(text), err, ev)
				}
				ev.PrefillMs, ev.Evaluated = msSince(p0), d.stats.Evaluated-w0
				t = smp.Sample(pred.Logits)
			}
		}
		ev.ID, ev.Text = t, d.tok.Piece(t)
		if d.tok.EOG(t) {
			ev.Ms = msSince(evStart)
			a.Events = append(a.Events, ev)
			a.Stop = "eog"
			return body(text), nil
		}
		gen = append(gen, t)
		text = append(text, ev.Text...)
		if cut := stopAt(text, from); cut >= 0 {
			ev.Ms = msSince(evStart)
			a.Events = append(a.Events, ev)
			a.Stop = "rule"
			return body(text[:cut]), nil
		}
		from = max(0, len(text)-utf8Max)
		if len(gen) >= maxNew {
			ev.Ms = msSince(evStart)
			a.Events = append(a.Events, ev)
			a.Stop = "max"
			return body(text), nil
		}
		w0 := d.stats.Evaluated
		if pred, err = d.step(t); err != nil {
			return d.stopOnFull(a, body(text), err, ev)
		}
		ev.Evaluated += d.stats.Evaluated - w0
		ev.Ms = msSince(evStart)
		a.Events = append(a.Events, ev)
	}
}

// stopOnFull ends an attempt whose context is full, keeping the body so
// far; other errors are returned.
func (d *Decoder) stopOnFull(a *Attempt, body string, err error, ev TokenEvent) (string, error) {
	if !errors.Is(err, engine.ErrContextFull) {
		return "", err
	}
	a.Events = append(a.Events, ev)
	a.Stop = "context"
	return body, nil
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }
