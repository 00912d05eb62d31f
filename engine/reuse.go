package engine

// Reuse counts what a prefill took from the cache instead of computing:
// Kept tokens of the common prefix, Moved tokens of runs found further on
// and placed at their new positions.
type Reuse struct {
	Kept, Moved int
}

// Cached is every token taken from the cache.
func (r Reuse) Cached() int { return r.Kept + r.Moved }

// PrefillReusing is Prefill that also reuses, after the common prefix,
// every run of at least minRun tokens the cache held elsewhere (llama.cpp's
// --cache-reuse): an editor's next request has the same text after the
// cursor, moved by what was typed. The run's keys and values are placed at
// their new positions, keys rotated, as Place does, so they keep what
// they attended to before: an approximation where the tokens before them
// changed (exact for the common prefix). minRun below 1 reuses only the
// prefix, as Prefill.
func (s *Session) PrefillReusing(seq []int32, minRun int) (Prediction, Reuse, error) {
	if len(seq) == 0 {
		pred, err := s.Prefill(seq)
		return pred, Reuse{}, err
	}
	keep := min(commonPrefix(s.tokens, seq), len(seq)-1)
	r := Reuse{Kept: keep}
	if minRun < 1 || s.cache == nil {
		pred, err := s.Prefill(seq)
		return pred, r, err
	}
	runs := findRuns(s.tokens, seq, keep, minRun)
	saved := make([]*KV, len(runs))
	defer func() {
		for _, kv := range saved {
			if kv != nil {
				kv.Close()
			}
		}
	}()
	for i, rn := range runs {
		kv, err := s.Save(rn.from, rn.from+rn.n)
		if err != nil {
			return Prediction{}, r, err
		}
		saved[i] = kv
	}
	s.tokens = s.tokens[:keep]
	for i, rn := range runs {
		if rn.at > len(s.tokens) {
			if _, err := s.Prefill(seq[:rn.at]); err != nil {
				return Prediction{}, r, err
			}
		}
		if err := s.Place(saved[i]); err != nil {
			return Prediction{}, r, err
		}
		r.Moved += rn.n
	}
	pred, err := s.Prefill(seq)
	return pred, r, err
}

// Reusable is how many tokens of seq PrefillReusing with minRun would take
// from the cache instead of computing them; nothing changes.
func (s *Session) Reusable(seq []int32, minRun int) int {
	if len(seq) == 0 {
		return 0
	}
	keep := min(commonPrefix(s.tokens, seq), len(seq)-1)
	n := keep
	if minRun >= 1 {
		for _, r := range findRuns(s.tokens, seq, keep, minRun) {
			n += r.n
		}
	}
	return n
}

// run is old[from:from+n] found again at seq[at:at+n].
type run struct{ from, at, n int }

// findRuns finds, left to right in seq after keep, runs of at least
// minRun tokens that old holds after keep, each as long as it goes, never
// reaching the last token of seq; a later run starts after the earlier
// one in both.
func findRuns(old, seq []int32, keep, minRun int) []run {
	if len(old)-keep < minRun {
		return nil
	}
	// the positions in old of every minRun-gram after keep, by its hash
	at := map[uint64][]int{}
	for i := keep; i+minRun <= len(old); i++ {
		h := hashRun(old[i : i+minRun])
		at[h] = append(at[h], i)
	}
	var out []run
	from := keep
	end := len(seq) - 1
	for j := keep; j+minRun <= end; {
		best := run{}
		for _, i := range at[hashRun(seq[j:j+minRun])] {
			if i < from {
				continue
			}
			n := 0
			for i+n < len(old) && j+n < end && old[i+n] == seq[j+n] {
				n++
			}
			if n >= minRun && n > best.n {
				best = run{from: i, at: j, n: n}
			}
		}
		if best.n == 0 {
			j++
			continue
		}
		out = append(out, best)
		from, j = best.from+best.n, j+best.n
	}
	return out
}

// hashRun is FNV-1a over a run's tokens.
func hashRun(ids []int32) uint64 {
	h := uint64(14695981039346656037)
	for _, id := range ids {
		for k := 0; k < 4; k++ {
			h ^= uint64(byte(id >> (8 * k)))
			h *= 1099511628211
		}
	}
	return h
}
