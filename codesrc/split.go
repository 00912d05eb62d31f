package codesrc

import (
	"slices"
	"strings"

	"actor/index"
)

// Split cuts a source file into retrievable blocks: with a grammar, the
// file is first cut where each definition starts (with the comments,
// annotations and decorators right above it), so that no block runs from
// one definition into the next, then each part is cut as the index
// cuts a file (index.DefaultSplitter: runs of non-blank lines merged up to
// 15 lines); without, into the index's line windows (20 lines every 10).
// Blocks whose text an earlier block has are dropped.
func Split(file string, src []byte) []index.Candidate {
	if Lang(file) == nil {
		return index.WindowSplitter.Split(file, string(src))
	}
	lines := index.Lines(string(src))
	cuts := []int{1}
	for _, d := range Definitions(file, src) {
		cuts = append(cuts, leading(lines, d.Start))
	}
	cuts = append(cuts, len(lines)+1)
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var out []index.Candidate
	for i := 0; i+1 < len(cuts); i++ {
		from, to := cuts[i], min(cuts[i+1]-1, len(lines))
		if from > to {
			continue
		}
		for _, c := range index.DefaultSplitter.Split(file, strings.Join(lines[from-1:to], "\n")) {
			c.Start, c.End = c.Start+from-1, c.End+from-1
			out = append(out, c)
		}
	}
	return index.Dedup(out)
}

// leading is the first line of the comments, annotations and decorators
// right above line start (1-based), start when there are none.
func leading(lines []string, start int) int {
	for start > 1 {
		l := strings.TrimSpace(lines[start-2])
		if l == "" || !(strings.HasPrefix(l, "//") || strings.HasPrefix(l, "/*") || strings.HasPrefix(l, "*") ||
			strings.HasPrefix(l, "#") || strings.HasPrefix(l, "@")) {
			break
		}
		start--
	}
	return start
}
