package infill

import (
	"hash/fnv"
	"slices"
	"strings"
)

// Files finds which file of a repository an editor's text comes from, and
// the line of its cursor, from the lines around the cursor: the plugins
// send the text, not the file's name. A line votes for the files that hold
// it (lines shorter than minKey characters, once trimmed, do not vote).
type Files struct {
	paths []string
	at    map[uint64][]place
}

// place is a line of a file.
type place struct{ file, line int32 }

// minKey is the shortest trimmed line that votes.
const minKey = 6

// Probing: how many lines above and below the cursor vote.
const (
	probeAbove = 40
	probeBelow = 20
)

// NewFiles indexes the lines of files (path → content).
func NewFiles(files map[string][]byte) *Files {
	x := &Files{at: map[uint64][]place{}}
	for path, b := range files {
		f := int32(len(x.paths))
		x.paths = append(x.paths, path)
		for i, line := range strings.Split(string(b), "\n") {
			if k, ok := lineKey(line); ok {
				x.at[k] = append(x.at[k], place{f, int32(i + 1)})
			}
		}
	}
	return x
}

func lineKey(line string) (uint64, bool) {
	t := strings.TrimSpace(line)
	if len(t) < minKey {
		return 0, false
	}
	h := fnv.New64a()
	h.Write([]byte(t))
	return h.Sum64(), true
}

// Match is the file an editor's text comes from: its path, the cursor's
// 1-based line in it, and how many of the lines around the cursor voted
// for it (to choose between repositories).
type Match struct {
	Path        string
	Line, Votes int
}

// Find returns the file the text around a cursor comes from (prefix: the
// lines above the cursor's line, each ended by "\n"; suffix: the rest of
// the cursor's line, "\n", the lines below) and the cursor's line in it.
// A file is found when more voting lines are in it than in any other
// file, at least min(3, half of the voting lines) and a quarter of them
// (lines common to many files, `return false;`, `} else {`, must not
// make a file of another language the cursor's; a quarter still finds a
// file whose lines above the cursor were mostly typed since it was read).
func (x *Files) Find(prefix, suffix string) (Match, bool) {
	above, below := probes(prefix, suffix)
	votes := map[int32]int{}
	voters := 0
	for _, l := range slices.Concat(above, below) {
		k, ok := lineKey(l)
		if !ok {
			continue
		}
		voters++
		seen := map[int32]bool{}
		for _, p := range x.at[k] {
			if !seen[p.file] {
				seen[p.file] = true
				votes[p.file]++
			}
		}
	}
	best, bestN, tie := int32(-1), 0, false
	for f, n := range votes {
		switch {
		case n > bestN:
			best, bestN, tie = f, n, false
		case n == bestN:
			tie = true
		}
	}
	if best < 0 || tie || bestN < min(3, (voters+1)/2) || 4*bestN < voters {
		return Match{}, false
	}
	return Match{Path: x.paths[best], Line: x.line(best, above, below), Votes: bestN}, true
}

// Line returns the cursor's line in the file at path, as Find does.
func (x *Files) Line(path, prefix, suffix string) int {
	above, below := probes(prefix, suffix)
	if f := slices.Index(x.paths, path); f >= 0 {
		return x.line(int32(f), above, below)
	}
	return len(above) + 1
}

// probes are the lines above the cursor's line and below it that vote.
func probes(prefix, suffix string) (above, below []string) {
	if prefix != "" {
		above = strings.Split(strings.TrimSuffix(prefix, "\n"), "\n")
	}
	above = above[max(0, len(above)-probeAbove):]
	below = strings.Split(suffix, "\n")
	below = below[min(1, len(below)):min(len(below), 1+probeBelow)]
	return above, below
}

// line is the cursor's line in file f: from the nearest line around it
// that the file holds once (the line below the window when none does).
func (x *Files) line(f int32, above, below []string) int {
	once := func(l string) (int, bool) {
		k, ok := lineKey(l)
		if !ok {
			return 0, false
		}
		n, at := 0, 0
		for _, p := range x.at[k] {
			if p.file == f {
				n, at = n+1, int(p.line)
			}
		}
		return at, n == 1
	}
	for d := 1; d <= max(len(above), len(below)); d++ {
		if d <= len(above) {
			if at, ok := once(above[len(above)-d]); ok {
				return at + d
			}
		}
		if d <= len(below) {
			if at, ok := once(below[d-1]); ok {
				return max(1, at-d)
			}
		}
	}
	return len(above) + 1
}
