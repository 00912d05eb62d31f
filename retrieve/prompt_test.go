package retrieve

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"actor/index"
)

// wordCounter counts whitespace-separated words: easy to work by hand.
type wordCounter struct{}

func (wordCounter) CountTokens(s string) (int, error) { return len(strings.Fields(s)), nil }

func res(path, text string, score float64) Result {
	return Result{Candidate: index.Candidate{Path: path, Start: 1, End: strings.Count(text, "\n") + 1, Text: text}, Score: score}
}

// Blocks best first, with their word counts as rendered by ACToR:
// "# file path: P" is 4 words, each code line adds "#" and its words.
var ranked = []Result{
	res("a.py", "def f():\n    return 1", 0.9),            // 4 + 3 + 3 = 10 -> 10
	res("b.py", "x = 1\ny = 2\nz = 3\nw = 4\nv = 5", 0.8), // 4 + 20 = 24 -> 34 >= 30: skip
	res("c.py", "import os", 0.7),                         // 4 + 3 = 7 -> 17
	res("d.py", "pass", 0.6),                              // 4 + 2 = 6 -> 23
	res("e.py", "a b c", 0.5),                             // 4 + 4 = 8 -> 31: skip
	res("f.py", "q", 0.4),                                 // 6 -> 29 < 30: keep
	res("g.py", "q2", 0.3),                                // 6 -> 35: skip
}

const target = "def target(x):\n    \"\"\"Doc.\"\"\"\n"

func TestACToRPromptBudgetSkipsNotStops(t *testing.T) {
	p, err := ACToRPrompt(ranked, "pkg/t.py", target, wordCounter{}, Budget{MaxTokens: 30, MaxBlocks: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := "# file path: a.py\n\n# def f():\n#     return 1" +
		"\n\n# file path: c.py\n\n# import os" +
		"\n\n# file path: d.py\n\n# pass" +
		"\n\n# file path: f.py\n\n# q" +
		"\n\n# file path: pkg/t.py\n\n" + target
	if p.Text != want {
		t.Errorf("prompt\n%q\nwant\n%q", p.Text, want)
	}
	var paths []string
	for _, b := range p.Blocks {
		paths = append(paths, b.Path)
	}
	if strings.Join(paths, " ") != "a.py c.py d.py f.py" {
		t.Errorf("blocks %v", paths)
	}
	var spans []string
	for _, sp := range p.Spans {
		spans = append(spans, p.Text[sp.Start:sp.End])
	}
	wantSpans := []string{"# file path: a.py\n\n# def f():\n#     return 1\n\n", "# file path: c.py\n\n# import os\n\n",
		"# file path: d.py\n\n# pass\n\n", "# file path: f.py\n\n# q\n\n"}
	if !slices.Equal(spans, wantSpans) || p.Spans[0].Start != 0 {
		t.Errorf("block spans %q, want %q", spans, wantSpans)
	}
	// A block landing exactly on the budget is refused (strictly under).
	p, _ = ACToRPrompt(ranked[:1], "t.py", target, wordCounter{}, Budget{MaxTokens: 10, MaxBlocks: 10})
	if len(p.Blocks) != 0 || len(p.Spans) != 0 || p.Text != "\n\n# file path: t.py\n\n"+target {
		t.Errorf("exact-budget block kept: %q", p.Text)
	}
}

func TestACToRPromptAtMostMaxBlocks(t *testing.T) {
	var many []Result
	for i := 0; i < 12; i++ {
		many = append(many, res(fmt.Sprintf("m%d.py", i), "x", 1))
	}
	p, err := ACToRPrompt(many, "t.py", target, wordCounter{}, DefaultBudget)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Blocks) != 10 || p.Blocks[9].Path != "m9.py" || strings.Contains(p.Text, "m10.py") {
		t.Errorf("%d blocks: %q", len(p.Blocks), p.Text)
	}
}

func TestRepoCoderPrompt(t *testing.T) {
	// Header: 14 + 2 = 16 words. Fragment: "# the below code fragment can be
	// found in:" 9, "# P" 2, two rules 2 each, plus the commented lines.
	// a.py: 9+2+2+6+2 = 21 -> 37; b.py: +35 -> 72 skip; c.py: 18 -> 55;
	// d.py: 17 -> 72 skip; e.py: 19 skip; f.py: 17 skip; g.py: 17 skip.
	p, err := RepoCoderPrompt(ranked, "def g():\n", wordCounter{}, Budget{MaxTokens: 60, MaxBlocks: 10})
	if err != nil {
		t.Fatal(err)
	}
	rule := "# " + strings.Repeat("-", 50)
	want := "# Here are some relevant code fragments from other files of the repo:\n" + rule + "\n" +
		"# the below code fragment can be found in:\n# c.py\n" + rule + "\n# import os\n" + rule + "\n" +
		"# the below code fragment can be found in:\n# a.py\n" + rule + "\n# def f():\n#     return 1\n" + rule + "\n" +
		"\ndef g():\n"
	if p.Text != want {
		t.Errorf("prompt\n%s\nwant\n%s", p.Text, want)
	}
	if len(p.Blocks) != 2 || p.Blocks[0].Path != "c.py" || p.Blocks[1].Path != "a.py" {
		t.Errorf("blocks %+v", p.Blocks)
	}
}

type failingCounter struct{}

func (failingCounter) CountTokens(string) (int, error) { return 0, errors.New("no tokenizer") }

func TestPromptCounterErrors(t *testing.T) {
	if _, err := ACToRPrompt(ranked, "t.py", target, failingCounter{}, DefaultBudget); err == nil {
		t.Error("ACToR: counter error swallowed")
	}
	if _, err := RepoCoderPrompt(ranked, target, failingCounter{}, DefaultBudget); err == nil {
		t.Error("RepoCoder: counter error swallowed")
	}
}

func paths(rs []Result) string {
	var ps []string
	for _, r := range rs {
		ps = append(ps, r.Path)
	}
	return strings.Join(ps, " ")
}

func TestStablePromptKeepsPlaces(t *testing.T) {
	a, c, d, f, g := ranked[0], ranked[2], ranked[3], ranked[5], ranked[6]
	b := Budget{MaxTokens: 30, MaxBlocks: 10}
	// Previous prompt a c d. New ranking f d a g: the budget keeps all four
	// (6 + 6 + 10 + 6 = 28 < 30) and drops c. The staying blocks keep
	// prev's order (a before d), the new ones follow best first.
	p, err := StablePrompt([]Result{f, d, a, g}, []Result{a, c, d}, "t.py", target, wordCounter{}, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(p.Blocks); got != "a.py d.py f.py g.py" {
		t.Errorf("blocks %s, want a.py d.py f.py g.py", got)
	}
	want := "# file path: a.py\n\n# def f():\n#     return 1\n\n# file path: d.py\n\n# pass" +
		"\n\n# file path: f.py\n\n# q\n\n# file path: g.py\n\n# q2\n\n# file path: t.py\n\n" + target
	if p.Text != want {
		t.Errorf("prompt\n%q\nwant\n%q", p.Text, want)
	}
	// The ranked layout of the same ranking starts with the new block f.
	r, _ := ACToRPrompt([]Result{f, d, a, g}, "t.py", target, wordCounter{}, b)
	if paths(r.Blocks) != "f.py d.py a.py g.py" || !SameBlockSet(r.Blocks, p.Blocks) {
		t.Errorf("ranked layout %s: not the same set as the stable one", paths(r.Blocks))
	}
	// The budget is the ranked layout's: a block the ranking no longer
	// fits leaves even if prev showed it (b.py alone is 24 words).
	p, _ = StablePrompt([]Result{f, d, a, ranked[1]}, []Result{ranked[1], a}, "t.py", target, wordCounter{}, b)
	if got := paths(p.Blocks); got != "a.py f.py d.py" {
		t.Errorf("over budget: blocks %s, want a.py f.py d.py", got)
	}
}

func TestStablePromptReorderIsNoChange(t *testing.T) {
	a, c := ranked[0], ranked[2]
	prev, _ := ACToRPrompt([]Result{a, c}, "t.py", target, wordCounter{}, DefaultBudget)
	p, err := StablePrompt([]Result{c, a}, prev.Blocks, "t.py", target, wordCounter{}, DefaultBudget)
	if err != nil {
		t.Fatal(err)
	}
	if p.Text != prev.Text || !SameBlocks(p.Blocks, prev.Blocks) {
		t.Errorf("a reorder changed the prompt:\n%q\nwas\n%q", p.Text, prev.Text)
	}
	// Without a previous prompt it is the ranked layout.
	q, _ := StablePrompt([]Result{c, a}, nil, "t.py", target, wordCounter{}, DefaultBudget)
	r, _ := ACToRPrompt([]Result{c, a}, "t.py", target, wordCounter{}, DefaultBudget)
	if q.Text != r.Text {
		t.Errorf("no prev: %q, want the ranked %q", q.Text, r.Text)
	}
}

func TestSameBlockSet(t *testing.T) {
	a, c, d := ranked[0], ranked[2], ranked[3]
	moved := a
	moved.End++
	for _, tc := range []struct {
		x, y []Result
		want bool
	}{
		{[]Result{a, c}, []Result{c, a}, true},
		{[]Result{a, c}, []Result{a, c}, true},
		{nil, nil, true},
		{[]Result{a, c}, []Result{a, d}, false},
		{[]Result{a, c}, []Result{a}, false},
		{[]Result{a, a}, []Result{a, c}, false},
		{[]Result{a, c}, []Result{moved, c}, false},
	} {
		if got := SameBlockSet(tc.x, tc.y); got != tc.want {
			t.Errorf("SameBlockSet(%s; %s) = %v", paths(tc.x), paths(tc.y), got)
		}
	}
}
