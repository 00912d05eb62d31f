package engine

import (
	"errors"
	"fmt"
	"slices"

	"actor/engine/ggml"
)

// Session is one sequence being decoded: a KV cache of fixed capacity and
// the tokens it holds. A session is not safe for concurrent use; different
// sessions of one model may run in parallel goroutines.
type Session struct {
	// Hidden makes Step and Prefill also return the final hidden state
	// (Prediction.Hidden). Off by default: it costs one extra copy of
	// Config.Embed floats per call.
	Hidden bool

	m      *Model
	cache  *ggml.Cache
	tokens []int32 // tokens whose keys and values are in the cache
	// computed counts tokens run through the model (tests check reuse)
	computed int
}

// ErrContextFull is returned (wrapped) when a sequence would not fit the
// session's context.
var ErrContextFull = errors.New("context length exceeded")

// cacheType is the element type of the model's KV caches.
func (m *Model) cacheType() ggml.CacheType {
	if m.opts.F32Cache {
		return ggml.CacheF32
	}
	return ggml.CacheF16
}

// NewSession allocates a KV cache of Options.ContextLength positions.
func (m *Model) NewSession() (*Session, error) {
	c, err := m.net.NewCache(m.opts.ContextLength, m.cacheType())
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return &Session{m: m, cache: c}, nil
}

// Close frees the session's KV cache.
func (s *Session) Close() {
	if s.cache != nil {
		s.cache.Close()
		s.cache = nil
	}
}

// Len is the number of tokens in the cache.
func (s *Session) Len() int { return len(s.tokens) }

// Capacity is the number of positions the session holds (0 once closed).
func (s *Session) Capacity() int {
	if s.cache == nil {
		return 0
	}
	return s.cache.Size()
}

// Tokens returns a copy of the tokens in the cache.
func (s *Session) Tokens() []int32 { return slices.Clone(s.tokens) }

// Truncate keeps the first n tokens of the cache and forgets the rest.
func (s *Session) Truncate(n int) error {
	if n < 0 || n > len(s.tokens) {
		return fmt.Errorf("engine: truncate to %d: the session holds %d tokens", n, len(s.tokens))
	}
	s.tokens = s.tokens[:n]
	return nil
}

// Prefill makes the cache hold exactly seq and returns the prediction for
// the token after it. The longest common prefix of seq and the cached tokens
// is kept (at least the last token is recomputed to obtain its logits), so
// editing the middle of a prompt only recomputes from the edit on. The
// result equals a prefill into an empty session.
func (s *Session) Prefill(seq []int32) (Prediction, error) {
	if len(seq) == 0 {
		return Prediction{}, errors.New("engine: prefill of an empty sequence")
	}
	if err := s.fits(len(seq)); err != nil {
		return Prediction{}, err
	}
	keep := commonPrefix(s.tokens, seq)
	keep = min(keep, len(seq)-1)
	s.tokens = s.tokens[:keep]
	var out ggml.Output
	for start := keep; start < len(seq); start += s.m.opts.BatchSize {
		end := min(start+s.m.opts.BatchSize, len(seq))
		b := ggml.Batch{Tokens: seq[start:end], Start: start}
		if end == len(seq) {
			b.Outputs, b.Logits, b.Hidden = []int{end - start - 1}, true, s.Hidden
		}
		var err error
		if out, err = s.forward(b); err != nil {
			return Prediction{}, err
		}
	}
	return newPrediction(out.Logits, out.Hidden), nil
}

// Step appends token to the sequence and returns the prediction for the
// token after it.
func (s *Session) Step(token int32) (Prediction, error) {
	if err := s.fits(len(s.tokens) + 1); err != nil {
		return Prediction{}, err
	}
	out, err := s.forward(ggml.Batch{
		Tokens: []int32{token}, Start: len(s.tokens),
		Outputs: []int{0}, Logits: true, Hidden: s.Hidden,
	})
	if err != nil {
		return Prediction{}, err
	}
	return newPrediction(out.Logits, out.Hidden), nil
}

// forward runs one batch at the end of the cached tokens and records them.
func (s *Session) forward(b ggml.Batch) (ggml.Output, error) {
	out, err := s.m.net.Forward(s.cache, b)
	if err != nil {
		return out, fmt.Errorf("engine: %w", err)
	}
	s.tokens = append(s.tokens, b.Tokens...)
	s.computed += len(b.Tokens)
	return out, nil
}

// fits checks that n tokens fit the session's context.
func (s *Session) fits(n int) error {
	if s.cache == nil {
		return errors.New("engine: session is closed")
	}
	if n > s.Capacity() {
		return fmt.Errorf("engine: %d tokens exceed the context of %d: %w", n, s.Capacity(), ErrContextFull)
	}
	return nil
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
