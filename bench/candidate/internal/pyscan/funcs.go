package pyscan

import (
	"regexp"
	"strings"
)

// Func is a function definition found in a source text. Its fields index the
// slice returned by Lines for the same text.
type Func struct {
	Name   string
	Indent int
	// First is the first decorator line, or Def when there is none.
	First int
	// Def is the line holding the def keyword.
	Def int
	// Body is the first line after the signature's logical line; it is
	// Last+1 for a function whose body sits on the def line.
	Body int
	// Last is the last line of the body, trailing blank and comment lines
	// excluded.
	Last int
}

var defRe = regexp.MustCompile(`^(?:async[ \t]+)?def[ \t]+([\p{L}_][\p{L}\p{N}_]*)`)

// Source holds a text and its lines, the input of every search here.
type Source struct {
	Text  string
	Lines []Line
	// logical lists the indices of logical lines in order.
	logical []int
}

// Parse splits text into lines once for repeated searches.
func Parse(text string) *Source {
	s := &Source{Text: text, Lines: Lines(text)}
	for i, l := range s.Lines {
		if l.Logical {
			s.logical = append(s.logical, i)
		}
	}
	return s
}

// stmt returns the trimmed text of line i.
func (s *Source) stmt(i int) string {
	return strings.TrimLeft(s.Lines[i].Text(s.Text), " \t\f")
}

// extentEnd returns the last physical line of the logical line at position
// k of s.logical.
func (s *Source) extentEnd(k int) int {
	if k+1 < len(s.logical) {
		return s.logical[k+1] - 1
	}
	return len(s.Lines) - 1
}

// Functions returns every function definition in s, nested ones included,
// in source order.
func (s *Source) Functions() []Func {
	var out []Func
	for k, i := range s.logical {
		l := s.Lines[i]
		if l.Blank {
			continue
		}
		m := defRe.FindStringSubmatch(s.stmt(i))
		if m == nil {
			continue
		}
		f := Func{Name: m[1], Indent: l.Indent, First: i, Def: i}
		f.Last = s.extentEnd(k)
		f.Body = f.Last + 1
		for j := k + 1; j < len(s.logical); j++ {
			b := s.Lines[s.logical[j]]
			if b.Blank {
				continue
			}
			if b.Indent <= l.Indent {
				break
			}
			f.Last = s.extentEnd(j)
		}
		for j := k - 1; j >= 0; j-- {
			d := s.Lines[s.logical[j]]
			if d.Blank {
				continue
			}
			if d.Indent != l.Indent || !strings.HasPrefix(s.stmt(s.logical[j]), "@") {
				break
			}
			f.First = s.logical[j]
		}
		out = append(out, f)
	}
	return out
}

// Offsets returns the byte span of f from its def line (decorators
// excluded) to the end of its last line, without the final newline.
func (s *Source) Offsets(f Func) (start, end int) {
	return s.Lines[f.Def].Start, s.Lines[f.Last].End
}

// Code returns the source of f from its def keyword to its last line.
func (s *Source) Code(f Func) string {
	a, b := s.Offsets(f)
	return strings.TrimLeft(s.Text[a:b], " \t\f")
}

// IndentText returns the leading whitespace of f's def line as written.
func (s *Source) IndentText(f Func) string {
	line := s.Lines[f.Def].Text(s.Text)
	return line[:len(line)-len(strings.TrimLeft(line, " \t\f"))]
}

// Find returns the last definition of name with the lowest indentation
// (the top-level one when there is one); ok is false when there is none.
func (s *Source) Find(name string) (Func, bool) {
	var best Func
	found := false
	for _, f := range s.Functions() {
		if f.Name == name && (!found || f.Indent <= best.Indent) {
			best, found = f, true
		}
	}
	return best, found
}

// FindNear returns the definition of name whose def line is closest to the
// 0-based line hint; ok is false when there is none.
func (s *Source) FindNear(name string, hint int) (Func, bool) {
	var best Func
	found := false
	for _, f := range s.Functions() {
		if f.Name != name {
			continue
		}
		if !found || abs(f.Def-hint) < abs(best.Def-hint) {
			best, found = f, true
		}
	}
	return best, found
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
