package serve

import "actor/engine"

// slots are the sessions that keep recent completions' caches: an
// editor's requests alternate between prompts (a completion, then the
// plugin's request for what comes after it), and each keeps its own
// cache. A request continues in the session whose cache starts most like
// its prompt; when none holds half of it, in a new session while there
// are fewer than max, else in that best one all the same. What a cache
// holds counts as Session.Reusable does with the server's reuse policy.
type slots struct {
	m     *engine.Model
	max   int
	reuse engine.ReusePolicy
	sess  []*engine.Session
	used  []int // when each was last picked
	clock int
}

// DefaultSlots is the number of completion caches a server keeps.
const DefaultSlots = 4

// pick returns the session for a prompt.
func (sl *slots) pick(ids []int32) (*engine.Session, error) {
	best, bestN := -1, -1
	for i, s := range sl.sess {
		n := s.Reusable(ids, sl.reuse)
		if n > bestN || n == bestN && sl.used[i] > sl.used[best] {
			best, bestN = i, n
		}
	}
	if (best < 0 || 2*bestN < len(ids)) && len(sl.sess) < sl.max {
		s, err := sl.m.NewSession()
		if err != nil {
			return nil, err
		}
		sl.sess, sl.used = append(sl.sess, s), append(sl.used, 0)
		best = len(sl.sess) - 1
	}
	sl.clock++
	sl.used[best] = sl.clock
	return sl.sess[best], nil
}

// close frees the sessions.
func (sl *slots) close() {
	for _, s := range sl.sess {
		s.Close()
	}
	sl.sess, sl.used = nil, nil
}
