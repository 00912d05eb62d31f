package retrieve

import (
	"fmt"
	"slices"
	"strings"

	"actor/pysrc"
)

// FileCode is the part of the target's own file a prompt shows: the file's
// head (everything up to its last module-level import before the target:
// module docstring, imports), then as much of the code nearest the
// function as the budget allows. The function's own lines are never in it.
type FileCode struct {
	// Above is the head, "...\n" where lines were left out, and the lines
	// just above the function; Below the lines just below it.
	Above, Below string
	// HeadEnd is the head's last line (0: none); AboveFrom the first line
	// of the code shown just above the function; BelowTo the last line
	// shown below it (1-based; AboveFrom = DeclStart and BelowTo = End when
	// none is shown). DeclStart and End are the function's own lines.
	HeadEnd, AboveFrom, BelowTo, DeclStart, End int
}

// Shows reports whether the lines [start, end] are all in the shown code.
func (c FileCode) Shows(start, end int) bool {
	return end <= c.HeadEnd || (start >= c.AboveFrom && end < c.DeclStart) || (start > c.End && end <= c.BelowTo)
}

// gapLine marks left-out lines (valid Python: an Ellipsis statement).
const gapLine = "...\n"

// CutFile chooses the code of the file src to show around the function on
// lines declStart (its first decorator) to end: the head always, then
// lines nearest the function first, one above and one below in turn (below
// only with withBelow), while the running total of tokens (each line
// counted on its own with its newline) stays within tokens. The code
// shown is then cut at statements (pysrc.File.Bounds): the code above
// starts with a whole statement, the code below ends with one. A cut
// inside a docstring shows the model an unclosed string (the docstring's
// closing quotes open one), and a suffix cut inside the next function
// leads a model writing the middle to finish that one instead.
func CutFile(src []byte, declStart, end int, tc TokenCounter, tokens int, withBelow bool) (FileCode, error) {
	lines := strings.SplitAfter(string(src), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if declStart < 1 || end < declStart || end > len(lines) {
		return FileCode{}, fmt.Errorf("file code: function lines %d-%d outside a file of %d lines", declStart, end, len(lines))
	}
	f, err := pysrc.Parse(src)
	if err != nil {
		return FileCode{}, err
	}
	defer f.Close()
	fn, ok := functionOn(f, declStart, end)
	if !ok {
		return FileCode{}, fmt.Errorf("file code: no function on lines %d-%d", declStart, end)
	}
	headEnd := importsEnd(f, declStart)
	count := func(l string) (int, error) {
		n, err := tc.CountTokens(l)
		if err != nil {
			return 0, fmt.Errorf("counting prompt tokens: %w", err)
		}
		return n, nil
	}
	used := 0
	for _, l := range lines[:headEnd] {
		n, err := count(l)
		if err != nil {
			return FileCode{}, err
		}
		used += n
	}
	// 1-based: above walks down from declStart-1 to headEnd+1, below up
	// from end+1. fits takes line i into the budget when it fits.
	fits := func(i int) (bool, error) {
		n, err := count(lines[i-1])
		if err != nil || used+n > tokens {
			return false, err
		}
		used += n
		return true, nil
	}
	above, below := declStart-1, end+1
	aboveOpen, belowOpen := above > headEnd, withBelow && below <= len(lines)
	for aboveOpen || belowOpen {
		if aboveOpen {
			ok, err := fits(above)
			if err != nil {
				return FileCode{}, err
			}
			if ok {
				above--
			}
			aboveOpen = ok && above > headEnd
		}
		if belowOpen {
			ok, err := fits(below)
			if err != nil {
				return FileCode{}, err
			}
			if ok {
				below++
			}
			belowOpen = ok && below <= len(lines)
		}
	}
	// Cut at statements: the code above starts with a whole statement,
	// the code below ends with one.
	starts, ends := f.Bounds(fn)
	if above > headEnd {
		first := declStart
		if i, _ := slices.BinarySearch(starts, above+1); i < len(starts) {
			first = starts[i]
		}
		above = first - 1
	}
	last := end
	if i, _ := slices.BinarySearch(ends, below); i > 0 {
		last = ends[i-1]
	}
	below = last + 1
	c := FileCode{HeadEnd: headEnd, AboveFrom: above + 1, BelowTo: below - 1, DeclStart: declStart, End: end}
	var b strings.Builder
	b.WriteString(strings.Join(lines[:headEnd], ""))
	if above > headEnd {
		b.WriteString(gapLine)
	}
	b.WriteString(strings.Join(lines[above:declStart-1], ""))
	c.Above = b.String()
	c.Below = strings.Join(lines[end:below-1], "")
	return c, nil
}

// importsEnd is the last line of the file's last module-level import
// statement before line declStart (0 when there is none).
func importsEnd(f *pysrc.File, declStart int) int {
	last := 0
	for _, im := range f.Imports() {
		if im.End < declStart {
			last = max(last, im.End)
		}
	}
	return last
}

// functionOn is the function of f on lines declStart (its first
// decorator) to end.
func functionOn(f *pysrc.File, declStart, end int) (pysrc.Function, bool) {
	for _, fn := range f.Functions() {
		if fn.DeclStart == declStart && fn.End == end {
			return fn, true
		}
	}
	return pysrc.Function{}, false
}
