package retrieve

import (
	"fmt"
	"strings"
	"testing"

	"actor/index"
)

// frameOf is a frame with one symbol and the target file's code around the
// function.
func frameOf(f Format) *Frame {
	sym := Result{Candidate: index.Candidate{Path: "pkg/money.py", Start: 1, End: 2, Text: "def fmt(c):\n    ..."}, Source: SourceSymbol}
	return &Frame{Format: f, Repo: "shop", Symbols: []Result{sym}, Path: "pkg/t.py",
		Above: "import os\n\n", Prompt: target, Below: "\ndef after():\n    pass\n"}
}

// TestFrameFormats pins each format's exact layout: the head, a symbol, two
// blocks (chosen under the budget best first), the target's file.
func TestFrameFormats(t *testing.T) {
	blocks := ranked[:1]
	cases := map[Format]string{
		FormatAuthors: "# file path: pkg/money.py\n\n# def fmt(c):\n#     ...\n\n" +
			"# file path: a.py\n\n# def f():\n#     return 1\n\n" +
			"# file path: pkg/t.py\n\nimport os\n\n" + target,
		FormatPlain: "# file: pkg/money.py\ndef fmt(c):\n    ...\n\n" +
			"# file: a.py\ndef f():\n    return 1\n\n" +
			"# file: pkg/t.py\nimport os\n\n" + target,
		FormatRepo: "<|repo_name|>shop\n<|file_sep|>pkg/money.py\ndef fmt(c):\n    ...\n" +
			"<|file_sep|>a.py\ndef f():\n    return 1\n" +
			"<|file_sep|>pkg/t.py\nimport os\n\n" + target,
		FormatFIM: "<|repo_name|>shop\n<|file_sep|>pkg/money.py\ndef fmt(c):\n    ...\n" +
			"<|file_sep|>a.py\ndef f():\n    return 1\n" +
			"<|file_sep|>pkg/t.py\n<|fim_prefix|>import os\n\n" + target +
			"<|fim_suffix|>\ndef after():\n    pass\n<|fim_middle|>",
	}
	for f, want := range cases {
		fr := frameOf(f)
		p, err := fr.Ranked(blocks, wordCounter{}, Budget{MaxTokens: 100, MaxBlocks: 10})
		if err != nil {
			t.Fatal(err)
		}
		if p.Text != want {
			t.Errorf("%s:\n got %q\nwant %q", f, p.Text, want)
		}
		if p.Special != (f == FormatRepo || f == FormatFIM) {
			t.Errorf("%s: Special %v", f, p.Special)
		}
		// Spans: the head with the symbol, then the block, back to back
		// from the start.
		if len(p.Spans) != 2 || p.Spans[0].Start != 0 || p.Spans[1].Start != p.Spans[0].End {
			t.Fatalf("%s: spans %+v", f, p.Spans)
		}
		if got := p.Text[p.Spans[1].Start:p.Spans[1].End]; !strings.Contains(got, "a.py") || strings.Contains(got, "money") {
			t.Errorf("%s: block span %q", f, got)
		}
		if f != FormatFIM && strings.Contains(p.Text, "after") {
			t.Errorf("%s shows the code below the function", f)
		}
		// The model's text follows FIM's prefix, otherwise the whole prompt.
		lead := p.Text
		if f == FormatFIM {
			lead = "import os\n\n" + target
		}
		if p.Lead() != lead || !strings.HasSuffix(p.Lead(), target) {
			t.Errorf("%s: lead %q, want %q", f, p.Lead(), lead)
		}
	}
}

// The authors' format without symbols or file code is ACToRPrompt, byte for
// byte, and RepoCoder's is RepoCoderPrompt.
func TestFrameAuthorsIsThePapers(t *testing.T) {
	b := Budget{MaxTokens: 30, MaxBlocks: 10}
	old, _ := ACToRPrompt(ranked, "pkg/t.py", target, wordCounter{}, b)
	fr := &Frame{Format: FormatAuthors, Path: "pkg/t.py", Prompt: target}
	p, err := fr.Ranked(ranked, wordCounter{}, b)
	if err != nil || p.Text != old.Text {
		t.Errorf("authors frame %q, want %q (%v)", p.Text, old.Text, err)
	}
	none, _ := fr.Ranked(nil, wordCounter{}, b)
	if none.Text != "\n\n# file path: pkg/t.py\n\n"+target {
		t.Errorf("no blocks: %q", none.Text)
	}
}

// TestCutFile works a file by hand: the imports always, then the lines
// nearest the function, one above and one below in turn, within the
// budget; the function's own lines never.
func TestCutFile(t *testing.T) {
	src := "import os\n" + // 1: 2 words
		"from x import (a,\n    b)\n" + // 2-3: 5 words
		"A = 1\n" + // 4: 3
		"B = 2\n" + // 5: 3
		"\n" + // 6: 0
		"def target():\n    return SECRET\n" + // 7-8: the function
		"C = 3\n" + // 9: 3
		"D = 4\n" // 10: 3
	// head 7 words; budget 16: above 6 (0 words), below 9 (3) → 10,
	// above 5 (3) → 13, below 10 (3) → 16, above 4 (3) → 19 > 16: stop.
	c, err := CutFile([]byte(src), 7, 8, wordCounter{}, 16, true)
	if err != nil {
		t.Fatal(err)
	}
	if c.Above != "import os\nfrom x import (a,\n    b)\n...\nB = 2\n\n" || c.Below != "C = 3\nD = 4\n" {
		t.Errorf("above %q below %q", c.Above, c.Below)
	}
	if c.HeadEnd != 3 || c.AboveFrom != 5 || c.BelowTo != 10 {
		t.Errorf("lines: head to %d, above from %d, below to %d", c.HeadEnd, c.AboveFrom, c.BelowTo)
	}
	if !c.Shows(5, 5) || c.Shows(4, 4) || !c.Shows(1, 3) || !c.Shows(9, 10) {
		t.Error("Shows disagrees with the cut")
	}
	// Without the code below, the budget goes above; a budget under the
	// head still shows the head.
	c, _ = CutFile([]byte(src), 7, 8, wordCounter{}, 16, false)
	if c.Above != "import os\nfrom x import (a,\n    b)\nA = 1\nB = 2\n\n" || c.Below != "" {
		t.Errorf("above only: %q %q", c.Above, c.Below)
	}
	c, _ = CutFile([]byte(src), 7, 8, wordCounter{}, 1, true)
	if c.Above != "import os\nfrom x import (a,\n    b)\n...\n" || c.Below != "" {
		t.Errorf("tiny budget: %q %q", c.Above, c.Below)
	}
	for _, c := range []FileCode{c} {
		if strings.Contains(c.Above+c.Below, "SECRET") {
			t.Error("the function's own lines are shown")
		}
	}
	if _, err := CutFile([]byte(src), 9, 20, wordCounter{}, 16, true); err == nil {
		t.Error("a function past the file's end should fail")
	}
}

// TestCutFileAtStatements: the code above starts with a whole statement
// and the code below ends with one, never inside a call or a docstring.
func TestCutFileAtStatements(t *testing.T) {
	src := "import os\n" + // 1: 2 words
		"def before():\n" + // 2: 2
		"    \"\"\"doc\n    more\"\"\"\n" + // 3-4: 1 + 1
		"    return 0\n" + // 5: 2
		"def target():\n    return SECRET\n" + // 6-7: the function
		"X = f(1,\n      2)\n" + // 8-9: 3 + 1
		"def after():\n" + // 10: 2
		"    \"\"\"doc\n    more\"\"\"\n" + // 11-12: 1 + 1
		"    return 1\n" // 13: 2
	// Lines are taken in turn: 5, 8, 4, 9, 3, 10, 2, 11, (above done) 12, 13.
	for _, c := range []struct {
		tokens       int
		above, below string
	}{
		// 5, 8, 4, 9 fit: above 4-5 opens in a docstring, below 8-9 is whole.
		{9, "import os\n...\n", "X = f(1,\n      2)\n"},
		// 5, 8 fit: above 5 is no statement's start, below 8 opens a call.
		{7, "import os\n...\n", ""},
		// all above, below up to 12: def after is not whole.
		{16, "import os\ndef before():\n    \"\"\"doc\n    more\"\"\"\n    return 0\n", "X = f(1,\n      2)\n"},
		// everything.
		{22, "import os\ndef before():\n    \"\"\"doc\n    more\"\"\"\n    return 0\n",
			"X = f(1,\n      2)\ndef after():\n    \"\"\"doc\n    more\"\"\"\n    return 1\n"},
	} {
		code, err := CutFile([]byte(src), 6, 7, wordCounter{}, c.tokens, true)
		if err != nil {
			t.Fatal(err)
		}
		if code.Above != c.above || code.Below != c.below {
			t.Errorf("budget %d: above %q below %q, want %q and %q", c.tokens, code.Above, code.Below, c.above, c.below)
		}
		if strings.Contains(code.Above+code.Below, "SECRET") {
			t.Errorf("budget %d: the function's own lines are shown", c.tokens)
		}
	}
	if _, err := CutFile([]byte(src), 8, 9, wordCounter{}, 8, true); err == nil {
		t.Error("lines that are no function should fail")
	}
}

// Blocks the frame already shows are left out of the budget: one inside a
// symbol shown whole, one inside the target file's shown code; a block
// inside a symbol shown as a summary stays.
func TestFrameLeavesOutWhatItShows(t *testing.T) {
	whole := Result{Candidate: index.Candidate{Path: "m.py", Start: 10, End: 11, Text: "def f():\n    return 1"}, Source: SourceSymbol}
	summary := Result{Candidate: index.Candidate{Path: "m.py", Start: 20, End: 40, Text: "def g():\n    \"\"\"Doc.\"\"\"\n    ..."}, Source: SourceSymbol}
	fr := &Frame{Format: FormatRepo, Symbols: []Result{whole, summary}, Path: "t.py", Above: "import os\n", Prompt: target,
		Code: FileCode{HeadEnd: 1, AboveFrom: 5, BelowTo: 9, DeclStart: 7, End: 8}}
	in := []Result{res("m.py", "return 1", 0.9), res("m.py", "x", 0.8), res("t.py", "y", 0.7), res("u.py", "z", 0.6)}
	in[0].Start, in[0].End = 11, 11 // inside f, shown whole
	in[1].Start, in[1].End = 30, 31 // inside g's body, only summarised
	in[2].Start, in[2].End = 5, 6   // the target file's code above the function
	p, err := fr.Ranked(in, wordCounter{}, Budget{MaxTokens: 1000, MaxBlocks: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range p.Blocks {
		got = append(got, fmt.Sprintf("%s:%d", b.Path, b.Start))
	}
	if strings.Join(got, " ") != "m.py:30 u.py:1" {
		t.Errorf("blocks %v, want m.py:30 u.py:1", got)
	}
}
