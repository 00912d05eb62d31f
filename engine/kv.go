package engine

import (
	"errors"
	"fmt"
	"slices"

	"actor/engine/ggml"
)

// KV is the keys and values of a run of tokens taken out of a session
// (Session.Save), to be placed again at another position of any session of
// the same model (Session.Place) instead of being computed there: ACToR's
// block KV reuse. It is an approximation when the tokens around the new
// place differ: the saved tokens keep what they attended to when they were
// computed.
type KV struct {
	tokens []int32
	from   int // position of the first token when it was computed
	cache  *ggml.Cache
}

// Tokens returns a copy of the saved tokens.
func (kv *KV) Tokens() []int32 { return slices.Clone(kv.tokens) }

// Len is the number of saved tokens.
func (kv *KV) Len() int { return len(kv.tokens) }

// Bytes is the memory the saved keys and values take.
func (kv *KV) Bytes() int64 {
	if kv.cache == nil {
		return 0
	}
	return kv.cache.Bytes()
}

// Close frees the saved keys and values.
func (kv *KV) Close() {
	if kv.cache != nil {
		kv.cache.Close()
		kv.cache = nil
	}
}

// Save copies the keys and values of the session's positions start…end-1.
func (s *Session) Save(start, end int) (*KV, error) {
	switch {
	case s.cache == nil:
		return nil, errors.New("engine: session is closed")
	case start < 0 || end <= start || end > len(s.tokens):
		return nil, fmt.Errorf("engine: save of positions %d…%d: the session holds %d tokens", start, end, len(s.tokens))
	}
	n := end - start
	c, err := s.m.net.NewCache(n, s.cache.Type())
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if err := c.CopyRange(s.cache, start, 0, n, 0); err != nil {
		c.Close()
		return nil, fmt.Errorf("engine: %w", err)
	}
	return &KV{tokens: slices.Clone(s.tokens[start:end]), from: start, cache: c}, nil
}

// Place appends kv's tokens to the session with their saved keys and
// values, the keys rotated to their new positions; nothing is computed
// (Computed does not count them). kv must come from a session of the same
// model and cache type.
func (s *Session) Place(kv *KV) error {
	switch {
	case kv == nil || kv.cache == nil:
		return errors.New("engine: place of closed saved keys and values")
	}
	at := len(s.tokens)
	if err := s.fits(at + kv.Len()); err != nil {
		return err
	}
	if err := s.cache.CopyRange(kv.cache, 0, at, kv.Len(), at-kv.from); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	s.tokens = append(s.tokens, kv.tokens...)
	return nil
}
