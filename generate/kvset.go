package generate

import "actor/engine"

// kvSet is a decoder's KV caches: engine sessions, each with the tokens
// it holds, at most limit of them (0: DefaultSessions). A prompt goes to
// the cache whose tokens share the longest prefix with it, so that a
// return to an earlier context recomputes only what follows.
type kvSet struct {
	model *engine.Model
	limit int
	slots []*slot
	clock int // counts uses, for the least recently used
}

// slot is one engine session and the tokens its cache holds.
type slot struct {
	sess   *engine.Session
	cached []int32
	spans  []tokenSpan // the blocks of cached's prompt (with Blocks set)
	used   int         // clock of the last use
}

// add opens one more cache.
func (k *kvSet) add() (*slot, error) {
	s, err := k.model.NewSession()
	if err != nil {
		return nil, err
	}
	sl := &slot{sess: s}
	k.slots = append(k.slots, sl)
	return sl, nil
}

// choose returns the cache to prefill seq into and the prefix it shares.
// The cache sharing the longest prefix is reused, unless it shares less
// than a quarter of seq: then the sequence goes to a new cache while fewer
// than the limit exist (the others stay for a later return), else to the
// least recently used one.
func (k *kvSet) choose(seq []int32) (*slot, int) {
	var best *slot
	lcp := -1
	for _, s := range k.slots {
		if n := commonPrefix(s.cached, seq); n > lcp || n == lcp && s.used > best.used {
			best, lcp = s, n
		}
	}
	if 4*lcp >= len(seq) || len(best.cached) == 0 {
		return best, lcp
	}
	limit := k.limit
	if limit <= 0 {
		limit = DefaultSessions
	}
	if len(k.slots) < limit {
		if s, err := k.add(); err == nil {
			return s, 0
		}
	}
	lru := k.slots[0]
	for _, s := range k.slots {
		if s.used < lru.used {
			lru = s
		}
	}
	return lru, commonPrefix(lru.cached, seq)
}

// use marks s as the most recently used cache.
func (k *kvSet) use(s *slot) {
	k.clock++
	s.used = k.clock
}

// close frees the caches.
func (k *kvSet) close() {
	for _, s := range k.slots {
		s.sess.Close()
	}
	k.slots = nil
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
