package index

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// numbered returns n lines "<prefix>1" … "<prefix>n".
func numbered(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i+1)
	}
	return out
}

func TestSplitAggregateBlankRunsAndMerge(t *testing.T) {
	// Lines 1-2 a, 3 blank, 4 spaces only, 5-7 b, 8 tab only, 9-20 c (12
	// lines), 21 blank, 22 d.
	var lines []string
	lines = append(lines, "a1", "a2", "", "   ")
	lines = append(lines, "b1", "b2", "b3", "\t")
	lines = append(lines, numbered("c", 12)...)
	lines = append(lines, "", "d1")
	got := DefaultSplitter.Split("m.py", strings.Join(lines, "\n")+"\n")
	// a(2)+b(3)=5 fits; +c(12)=17 does not: emit 1-7. c(12)+d(1)=13 fits.
	want := []Candidate{
		{"m.py", 1, 7, "a1\na2\nb1\nb2\nb3"},
		{"m.py", 9, 22, strings.Join(numbered("c", 12), "\n") + "\nd1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

func TestSplitAggregateCutAt15(t *testing.T) {
	// Line 1 blank, then 33 non-blank lines (2-34): cut 15/15/3; 15+15 and
	// 15+3 exceed 15, so nothing merges.
	lines := append([]string{""}, numbered("x", 33)...)
	got := DefaultSplitter.Split("f.py", strings.Join(lines, "\n"))
	want := []Candidate{
		{"f.py", 2, 16, strings.Join(numbered("x", 33)[0:15], "\n")},
		{"f.py", 17, 31, strings.Join(numbered("x", 33)[15:30], "\n")},
		{"f.py", 32, 34, strings.Join(numbered("x", 33)[30:33], "\n")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

func TestSplitAggregateExactly15Merges(t *testing.T) {
	// 10 lines, blank, 5 lines: 10+5 = 15 is "at or under", so one block
	// spanning lines 1-16; a following 1-line piece starts a new block.
	lines := append(numbered("p", 10), "")
	lines = append(lines, numbered("q", 5)...)
	lines = append(lines, "", "r1")
	got := DefaultSplitter.Split("g.py", strings.Join(lines, "\n"))
	want := []Candidate{
		{"g.py", 1, 16, strings.Join(append(numbered("p", 10), numbered("q", 5)...), "\n")},
		{"g.py", 18, 18, "r1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

func TestSplitDedupWithinFile(t *testing.T) {
	block := numbered("same", 15)
	lines := append(append(append([]string{}, block...), ""), block...)
	lines = append(lines, "", "tail")
	got := DefaultSplitter.Split("d.py", strings.Join(lines, "\r\n")+"\r\n")
	want := []Candidate{
		{"d.py", 1, 15, strings.Join(block, "\n")},
		{"d.py", 33, 33, "tail"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

func TestSplitEmptyAndBlankFiles(t *testing.T) {
	for _, s := range []Splitter{DefaultSplitter, WindowSplitter} {
		for _, content := range []string{"", "\n", "  \n\t\n\x1c\n"} {
			if got := s.Split("e.py", content); len(got) != 0 {
				t.Errorf("%v on %q: %#v", s, content, got)
			}
		}
	}
}

func TestWindows(t *testing.T) {
	// 25 lines, window 20, step 10: l=0 -> [0,10), l=10 -> [0,20),
	// l=20 -> [10,25); 1-based 1-10, 1-20, 11-25. Blank lines are kept.
	lines := numbered("w", 25)
	lines[4] = ""
	got := WindowSplitter.Split("w.py", strings.Join(lines, "\n")+"\n")
	want := []Candidate{
		{"w.py", 1, 10, strings.Join(lines[0:10], "\n")},
		{"w.py", 1, 20, strings.Join(lines[0:20], "\n")},
		{"w.py", 11, 25, strings.Join(lines[10:25], "\n")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

func TestLines(t *testing.T) {
	cases := map[string][]string{
		"":           nil,
		"a":          {"a"},
		"a\n":        {"a"},
		"a\r\nb\r\n": {"a", "b"},
		"a\n\n":      {"a", ""},
		"\n":         {""},
	}
	for in, want := range cases {
		if got := Lines(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Lines(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitterValidate(t *testing.T) {
	for _, s := range []Splitter{{Kind: "sa"}, {Kind: "window", Window: 20}, {Kind: "x"}} {
		if s.Validate() == nil {
			t.Errorf("%+v accepted", s)
		}
	}
	if DefaultSplitter.Validate() != nil || WindowSplitter.Validate() != nil {
		t.Error("defaults rejected")
	}
}

func FuzzSplit(f *testing.F) {
	f.Add("a\n\nb\r\n  \n" + strings.Repeat("x\n", 40))
	f.Add("")
	f.Add("\x1c\n\u2028\nz")
	f.Fuzz(func(t *testing.T, content string) {
		n := len(Lines(content))
		for _, s := range []Splitter{DefaultSplitter, WindowSplitter} {
			seen := map[string]bool{}
			for _, c := range s.Split("f.py", content) {
				if c.Start < 1 || c.End < c.Start || c.End > n || c.Text == "" || seen[c.Text] {
					t.Fatalf("%v: bad candidate %+v in a %d-line file", s, c, n)
				}
				seen[c.Text] = true
				if s.Kind == "sa" && strings.Count(c.Text, "\n")+1 > s.MaxLines {
					t.Fatalf("block of more than %d lines: %+v", s.MaxLines, c)
				}
			}
		}
	})
}
