package pyscan

import (
	"strings"
	"testing"
)

const sample = `import os

@decorator
@other(1,
       2)
def first(a,
          b=")"):
    """Doc with def fake(): inside.
def not_a_function():
    """
    x = [1,
2]
# a comment at column 0 inside the body
    s = 'it''s' \
        "more"
    def inner():
        return 1
    return a

# trailing comment

async def second(): return 2
class K:
	def method(self):
		return '''
def hidden():
'''
	x = 1
def last(
`

func TestFunctions(t *testing.T) {
	s := Parse(sample)
	got := map[string]Func{}
	var names []string
	for _, f := range s.Functions() {
		got[f.Name] = f
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "first,inner,second,method,last" {
		t.Fatalf("functions = %v", names)
	}
	// Line numbers are 0-based indices into the sample's lines.
	check := func(name string, first, def, body, last, indent int) {
		t.Helper()
		f := got[name]
		if f.First != first || f.Def != def || f.Body != body || f.Last != last || f.Indent != indent {
			t.Errorf("%s = %+v, want first=%d def=%d body=%d last=%d indent=%d", name, f, first, def, body, last, indent)
		}
	}
	check("first", 2, 5, 7, 17, 0)
	check("inner", 15, 15, 16, 16, 4)
	check("second", 21, 21, 22, 21, 0)
	check("method", 23, 23, 24, 26, 8)
	check("last", 28, 28, 30, 29, 0)

	f := got["first"]
	code := s.Code(f)
	if !strings.HasPrefix(code, "def first(a,") || !strings.HasSuffix(code, "    return a") {
		t.Errorf("Code(first) = %q", code)
	}
}

func TestFind(t *testing.T) {
	src := "class A:\n    def f(self):\n        return 1\n\ndef f():\n    return 2\n\ndef f():\n    return 3\n"
	s := Parse(src)
	f, ok := s.Find("f")
	if !ok || s.Code(f) != "def f():\n    return 3" {
		t.Fatalf("Find = %q, %v", s.Code(f), ok)
	}
	if m, _ := s.FindNear("f", 0); s.Code(m) != "def f(self):\n        return 1" || s.IndentText(m) != "    " {
		t.Fatalf("method = %q indent %q", s.Code(m), s.IndentText(m))
	}
	f, ok = s.FindNear("f", 1)
	if !ok || f.Def != 1 {
		t.Fatalf("FindNear(1) = %+v", f)
	}
	if _, ok := s.Find("g"); ok {
		t.Fatal("found a function that does not exist")
	}
}

func TestLinesIndentAndStrings(t *testing.T) {
	src := "a = 1\n\tb = 2\n  \t c\nx = '''\n  y\n'''\n  # c\nz = ('a' # )\n  )\nw = r'\\''\nv = 'a\\\n  b'\nq\n"
	ls := Lines(src)
	type want struct {
		logical, blank bool
		indent         int
	}
	wants := []want{
		{true, false, 0}, {true, false, 8}, {true, false, 9}, {true, false, 0},
		{false, false, 0}, {false, false, 0}, {true, true, 2}, {true, false, 0},
		{false, false, 0}, {true, false, 0}, {true, false, 0}, {false, false, 0},
		{true, false, 0}, {true, true, 0},
	}
	if len(ls) != len(wants) {
		t.Fatalf("%d lines, want %d", len(ls), len(wants))
	}
	for i, w := range wants {
		l := ls[i]
		if l.Logical != w.logical || (w.logical && (l.Blank != w.blank || l.Indent != w.indent)) {
			t.Errorf("line %d %q = %+v, want %+v", i, l.Text(src), l, w)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("def f(:\n  '''\n")
	f.Add("x = \"\\\n")
	f.Add("\r\n\tdef a(): pass\r\n")
	f.Fuzz(func(t *testing.T, src string) {
		s := Parse(src)
		if len(s.Lines) == 0 {
			t.Fatal("no lines")
		}
		prev := -1
		for _, l := range s.Lines {
			if l.Start < prev || l.End < l.Start || l.End > len(src) {
				t.Fatalf("bad line %+v", l)
			}
			prev = l.End
		}
		for _, fn := range s.Functions() {
			if fn.First > fn.Def || fn.Def >= fn.Body || fn.Last < fn.Def || fn.Body > fn.Last+1 {
				t.Fatalf("bad func %+v", fn)
			}
			a, b := s.Offsets(fn)
			if a > b {
				t.Fatalf("bad offsets %d %d", a, b)
			}
		}
	})
}
