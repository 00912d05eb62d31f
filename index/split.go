package index

import (
	"fmt"
	"strings"
	"unicode"
)

// Candidate is one retrievable block of a repository file.
type Candidate struct {
	Path  string // slash-separated, relative to the repository root
	Start int    // first line, 1-based
	End   int    // last line, 1-based, inclusive
	Text  string // the block's lines joined with "\n"
}

// Splitter chooses how files are cut into candidates.
type Splitter struct {
	// Kind is "sa" (Split-and-Aggregate, the ACToR/RLCoder unit) or
	// "window" (RepoCoder's sliding windows).
	Kind string
	// MaxLines is the Split-and-Aggregate block limit (15).
	MaxLines int
	// Window and Step are the RepoCoder window size and stride (20, 10).
	Window, Step int
}

// DefaultSplitter is Split-and-Aggregate with 15-line blocks.
var DefaultSplitter = Splitter{Kind: "sa", MaxLines: 15}

// WindowSplitter is RepoCoder's unit: 20-line windows every 10 lines.
var WindowSplitter = Splitter{Kind: "window", Window: 20, Step: 10}

// String names the splitter and its parameters; the store keeps it so a
// change of unit re-splits every file.
func (s Splitter) String() string {
	if s.Kind == "window" {
		return fmt.Sprintf("window:%d/%d", s.Window, s.Step)
	}
	return fmt.Sprintf("sa:%d", s.MaxLines)
}

// Validate reports a splitter that cannot work.
func (s Splitter) Validate() error {
	switch s.Kind {
	case "sa":
		if s.MaxLines < 1 {
			return fmt.Errorf("split-and-aggregate needs MaxLines >= 1, got %d", s.MaxLines)
		}
	case "window":
		if s.Window < 1 || s.Step < 1 {
			return fmt.Errorf("windows need size and step >= 1, got %d/%d", s.Window, s.Step)
		}
	default:
		return fmt.Errorf("unknown splitter %q (want sa or window)", s.Kind)
	}
	return nil
}

// Split cuts one file into candidates with the splitter; duplicate blocks
// within the file are dropped (the first one is kept).
func (s Splitter) Split(path, content string) []Candidate {
	var out []Candidate
	if s.Kind == "window" {
		out = windows(path, Lines(content), s.Window, s.Step)
	} else {
		out = splitAggregate(path, Lines(content), s.MaxLines)
	}
	return Dedup(out)
}

// Lines splits file content into lines the way editors and tree-sitter
// number them: at "\n", with a trailing "\r" removed from each line and no
// empty last line after a final newline.
func Lines(content string) []string {
	if content == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// isBlank reports whether a line holds only whitespace, as Python's
// str.strip() sees it (Go's unicode.IsSpace plus the separators 0x1c-0x1f).
func isBlank(line string) bool {
	for _, r := range line {
		if !unicode.IsSpace(r) && (r < 0x1c || r > 0x1f) {
			return false
		}
	}
	return true
}

// piece is a run of consecutive non-blank lines, first at line `start`.
type piece struct {
	start int
	lines []string
}

// splitAggregate is RLCoder's "Split and Aggregate": runs of non-blank lines
// (mini-blocks) longer than max are cut into max-line pieces, then pieces
// are merged greedily in file order while the block stays at or under max
// lines. Blank lines between merged pieces are not part of the text; Start
// and End are the real line numbers of the first and last line.
func splitAggregate(path string, lines []string, max int) []Candidate {
	var pieces []piece
	cur := piece{}
	flush := func() {
		for len(cur.lines) > 0 {
			n := min(max, len(cur.lines))
			pieces = append(pieces, piece{cur.start, cur.lines[:n]})
			cur = piece{cur.start + n, cur.lines[n:]}
		}
	}
	for i, l := range lines {
		if isBlank(l) {
			flush()
			continue
		}
		if len(cur.lines) == 0 {
			cur.start = i + 1
		}
		cur.lines = append(cur.lines, l)
	}
	flush()

	var out []Candidate
	var block []string
	start, end := 0, 0
	emit := func() {
		if len(block) > 0 {
			out = append(out, Candidate{Path: path, Start: start, End: end, Text: strings.Join(block, "\n")})
		}
	}
	for _, p := range pieces {
		if len(block)+len(p.lines) <= max && len(block) > 0 {
			block = append(block, p.lines...)
		} else {
			emit()
			block = append([]string(nil), p.lines...)
			start = p.start
		}
		end = p.start + len(p.lines) - 1
	}
	emit()
	return out
}

// windows is RepoCoder's unit: for every step-th line l (0-based) a window
// of lines [l - size/2, l + size - size/2) clipped to the file, so the first
// window is only half as long. Windows of blank lines only are dropped.
func windows(path string, lines []string, size, step int) []Candidate {
	var out []Candidate
	half := size / 2
	for l := 0; l < len(lines); l += step {
		lo := max(0, l-half)
		hi := min(len(lines), l+size-half)
		w := lines[lo:hi]
		blank := true
		for _, s := range w {
			if !isBlank(s) {
				blank = false
				break
			}
		}
		if blank {
			continue
		}
		out = append(out, Candidate{Path: path, Start: lo + 1, End: hi, Text: strings.Join(w, "\n")})
	}
	return out
}

// Dedup drops candidates whose text equals an earlier one's, keeping order.
func Dedup(cands []Candidate) []Candidate {
	seen := make(map[string]bool, len(cands))
	out := cands[:0:0]
	for _, c := range cands {
		if seen[c.Text] {
			continue
		}
		seen[c.Text] = true
		out = append(out, c)
	}
	return out
}
