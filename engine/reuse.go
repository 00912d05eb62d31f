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
// runs of at least minRun tokens the cache holds further on, as
// llama.cpp's server does with --cache-reuse: where text was removed
// before them (a line deleted, the editor's window of the file moved
// down), the tokens after it are placed at their new positions, keys
// rotated as Place does, instead of being computed. They keep what they
// attended to before: an approximation (exact for the common prefix). As
// in llama.cpp, a token the cache does not hold at the next place stops
// the reuse, so text typed before a run is never followed by keys and
// values computed without it (reusing those made the model ignore what
// was typed). minRun below 1 reuses only the prefix, as Prefill.
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
	for i, rn := range runs { // each run starts where the previous ended
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

// run is old[from:from+n] found again at seq[at:at+n], at <= from.
type run struct{ from, at, n int }

// findRuns walks old and seq after keep as llama.cpp's server does: at
// seq's next token it looks for a run of at least minRun tokens
// starting at the next place in old and, while none starts there, moves
// on in old only; a run found is taken whole (never reaching the last
// token of seq) and both move past it. The runs are contiguous in seq
// from keep on and only ever move toward the start.
func findRuns(old, seq []int32, keep, minRun int) []run {
	var out []run
	end := len(seq) - 1
	for i, j := keep, keep; i < len(old) && j < end; {
		n := 0
		for i+n < len(old) && j+n < end && old[i+n] == seq[j+n] {
			n++
		}
		if n < minRun {
			i++
			continue
		}
		out = append(out, run{from: i, at: j, n: n})
		i, j = i+n, j+n
	}
	return out
}
