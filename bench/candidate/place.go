package candidate

import (
	"fmt"
	"strings"

	"actor/bench/candidate/internal/pyscan"
)

// Target says which function of a source file a candidate replaces.
type Target struct {
	// Name is the function's name.
	Name string
	// Gold is the gold function's source; a definition equal to it (up to
	// indentation) is preferred over any other definition of Name.
	Gold string
	// Line is a 1-based line hint (CoderEval's lineno); 0 when unknown.
	Line int
}

// locate finds the target's definition in src: the one equal to the gold
// source, else the one nearest the line hint, else the top-level one.
func locate(src *pyscan.Source, t Target) (pyscan.Func, bool) {
	if gold := normalize(t.Gold); gold != "" {
		for _, f := range src.Functions() {
			if f.Name == t.Name && normalize(Dedent(src.Code(f), f.Indent)) == gold {
				return f, true
			}
		}
	}
	if t.Line > 0 {
		return src.FindNear(t.Name, t.Line-1)
	}
	return src.Find(t.Name)
}

// normalize dedents a function's source to its first line and trims it.
func normalize(code string) string {
	code = strings.TrimSpace(code)
	if code == "" {
		return ""
	}
	src := pyscan.Parse(code)
	if fs := src.Functions(); len(fs) > 0 {
		code = Dedent(code, fs[0].Indent)
	}
	return strings.TrimSpace(code)
}

// Place replaces the target function in file (its def line through the end
// of its body; decorators stay) with fn, indented like the replaced def
// line. It returns the new text and the 1-based line span replaced.
func Place(file string, t Target, fn string) (string, [2]int, error) {
	src := pyscan.Parse(file)
	f, ok := locate(src, t)
	if !ok {
		return "", [2]int{}, fmt.Errorf("no definition of function %q", t.Name)
	}
	start, end := src.Offsets(f)
	placed := Reindent(strings.TrimRight(fn, " \t\r\n"), 0, src.IndentText(f))
	return file[:start] + placed + file[end:], [2]int{f.Def + 1, f.Last + 1}, nil
}

// Span returns the 1-based line span (def line to last body line) of the
// target function in file.
func Span(file string, t Target) ([2]int, bool) {
	src := pyscan.Parse(file)
	f, ok := locate(src, t)
	return [2]int{f.Def + 1, f.Last + 1}, ok
}

// Defines reports whether file defines a function named name, as Place
// finds one.
func Defines(file, name string) bool {
	_, ok := pyscan.Parse(file).Find(name)
	return ok
}
