package engine

// Reuse counts what a prefill took from the cache instead of computing:
// Kept tokens of the common prefix, Moved tokens of runs found further on
// and placed at their new positions.
type Reuse struct {
	Kept, Moved int
}

// Cached is every token taken from the cache.
func (r Reuse) Cached() int { return r.Kept + r.Moved }

// ReusePolicy says which runs of the cache PrefillReusing places after
// the common prefix.
type ReusePolicy struct {
	// MinRun is the shortest run placed; below 1 only the common prefix is
	// reused, as Prefill.
	MinRun int
	// Chunked lets a run start after inserted text right after a Boundary
	// token, the token that opens a chunk of context (a file separator):
	// a chunk that moved because chunks were added before it is placed
	// (all but its first token), as ACToR's block KV reuse places blocks.
	// Text inserted anywhere else stops the reuse.
	Chunked  bool
	Boundary int32
}

// PrefillReusing is Prefill that also reuses, after the common prefix,
// runs of at least p.MinRun tokens the cache holds further on, as
// llama.cpp's server does with --cache-reuse: where text was removed
// before them (a line deleted, the editor's window of the file moved
// down), the tokens after it are placed at their new positions, keys
// rotated as Place does, instead of being computed. They keep what they
// attended to before: an approximation (exact for the common prefix). As
// in llama.cpp, a token the cache does not hold at the next place stops
// the reuse, so text typed before a run is never followed by keys and
// values computed without it (reusing those made the model ignore what
// was typed); with p.Chunked, runs starting at a chunk boundary after
// inserted chunks are placed too.
func (s *Session) PrefillReusing(seq []int32, p ReusePolicy) (Prediction, Reuse, error) {
	if len(seq) == 0 {
		pred, err := s.Prefill(seq)
		return pred, Reuse{}, err
	}
	keep := min(commonPrefix(s.tokens, seq), len(seq)-1)
	r := Reuse{Kept: keep}
	if p.MinRun < 1 || s.cache == nil {
		pred, err := s.Prefill(seq)
		return pred, r, err
	}
	runs := findRuns(s.tokens, seq, keep, p)
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
		if rn.at > len(s.tokens) { // inserted chunks before it
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

// Reusable is how many tokens of seq PrefillReusing with p would take
// from the cache instead of computing them; nothing changes.
func (s *Session) Reusable(seq []int32, p ReusePolicy) int {
	if len(seq) == 0 {
		return 0
	}
	keep := min(commonPrefix(s.tokens, seq), len(seq)-1)
	n := keep
	if p.MinRun >= 1 {
		for _, r := range findRuns(s.tokens, seq, keep, p) {
			n += r.n
		}
	}
	return n
}

// run is old[from:from+n] found again at seq[at:at+n].
type run struct{ from, at, n int }

// findRuns walks old and seq after keep as llama.cpp's server does: at
// seq's next token it looks for a run of at least p.MinRun tokens
// starting at the next place in old and, while none starts there, moves
// on in old only; a run found is taken whole (never reaching the last
// token of seq) and both move past it. Where no run starts at seq's next
// token, the walk ends, or with p.Chunked goes on after seq's next
// boundary token (the tokens up to it inserted). The runs never overlap in
// old or in seq.
func findRuns(old, seq []int32, keep int, p ReusePolicy) []run {
	var out []run
	end := len(seq) - 1
	from := keep // old's first token after the last run
	for j := keep; j < end; {
		found := false
		for i := from; i < len(old); i++ {
			n := 0
			for i+n < len(old) && j+n < end && old[i+n] == seq[j+n] {
				n++
			}
			if n >= p.MinRun {
				out = append(out, run{from: i, at: j, n: n})
				from, j, found = i+n, j+n, true
				break
			}
		}
		if found {
			continue
		}
		if !p.Chunked {
			break
		}
		next := -1
		for k := j; k < end-1; k++ {
			if seq[k] == p.Boundary {
				next = k
				break
			}
		}
		if next < 0 {
			break
		}
		j = next + 1
	}
	return out
}
