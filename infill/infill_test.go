package infill

import (
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"actor/engine"
	"actor/gguf"
	"actor/internal/testsupport"
	"actor/tokenizer"
)

var qwenTok struct {
	once sync.Once
	tok  *tokenizer.Tokenizer
	err  error
}

// qwen is Qwen2.5-Coder's tokenizer (read from the model's metadata).
func qwen(t *testing.T) *tokenizer.Tokenizer {
	t.Helper()
	path := testsupport.Model(t, "qwen2.5-coder-0.5b")
	qwenTok.once.Do(func() {
		g, err := gguf.Open(path)
		if err != nil {
			qwenTok.err = err
			return
		}
		qwenTok.tok, qwenTok.err = tokenizer.FromGGUF(g)
	})
	if qwenTok.err != nil {
		t.Fatal(qwenTok.err)
	}
	return qwenTok.tok
}

// TestLayoutRepository lays a completion out as llama.cpp does for Qwen:
// the repository's name, each chunk as a file, the cursor's file, then
// prefix and cursor line, suffix, middle.
func TestLayoutRepository(t *testing.T) {
	tok := qwen(t)
	in := Input{Prefix: "def f(x):\n", Middle: "    return ", Suffix: "\n\nprint(f(2))\n"}
	chunks := []Chunk{{Path: "a.py", Text: "A = 1\n"}, {Path: "b.py", Text: "B = 2\n"}}
	p, err := Layout(tok, in, chunks, BatchBudget(512, 4096, 128))
	if err != nil {
		t.Fatal(err)
	}
	want := "<|repo_name|>myproject\n<|file_sep|>a.py\nA = 1\n<|file_sep|>b.py\nB = 2\n<|file_sep|>filename\n" +
		"<|fim_prefix|>def f(x):\n    return <|fim_suffix|>\n\nprint(f(2))\n<|fim_middle|>"
	if got := tok.DecodeSpecial(p.IDs); got != want || p.Truncated || len(p.Chunks) != 2 {
		t.Errorf("layout %q (truncated %v, %d chunks), want %q", got, p.Truncated, len(p.Chunks), want)
	}
	// LineLast: the cursor line's text starts the middle
	in.LineLast = true
	p, _ = Layout(tok, in, chunks, BatchBudget(512, 4096, 128))
	last := strings.Replace(want, "def f(x):\n    return <|fim_suffix|>\n\nprint(f(2))\n<|fim_middle|>", "def f(x):\n<|fim_suffix|>\n\nprint(f(2))\n<|fim_middle|>    return ", 1)
	if got := tok.DecodeSpecial(p.IDs); got != last || last == want {
		t.Errorf("line last: %q, want %q", got, last)
	}
	in.LineLast = false
	in.Repo, in.Path = "inventory", "inventory/report.py"
	p, _ = Layout(tok, in, nil, BatchBudget(512, 4096, 128))
	if got := tok.DecodeSpecial(p.IDs); !strings.HasPrefix(got, "<|repo_name|>inventory\n<|file_sep|>inventory/report.py\n<|fim_prefix|>") {
		t.Errorf("known repository and file: %q", got)
	}
	// A special token's name in the editor's text stays text.
	p, _ = Layout(tok, Input{Prefix: "<|fim_middle|>"}, nil, BatchBudget(512, 4096, 128))
	if n := strings.Count(tok.DecodeSpecial(p.IDs), "<|fim_middle|>"); n != 2 || slices.Index(p.IDs, tok.FIM().Middle) != len(p.IDs)-1 {
		t.Errorf("the prefix's <|fim_middle|> became the token: %v", p.IDs)
	}
}

// TestLayoutBudget keeps the end of the prefix, the start of the suffix
// and the chunks nearest the cursor.
func TestLayoutBudget(t *testing.T) {
	tok := qwen(t)
	var pre, suf strings.Builder
	for i := range 200 {
		pre.WriteString("x = " + strings.Repeat("a", i%7) + "\n")
		suf.WriteString("y = " + strings.Repeat("b", i%5) + "\n")
	}
	in := Input{Prefix: pre.String() + "LAST\n", Middle: "z", Suffix: "FIRST\n" + suf.String()}
	chunks := []Chunk{{Path: "far.py", Text: strings.Repeat("far = 1\n", 40)}, {Path: "near.py", Text: "near = 2\n"}}
	b := Budget{Prefix: 50, Suffix: 20, Context: 30}
	p, err := Layout(tok, in, chunks, b)
	if err != nil {
		t.Fatal(err)
	}
	text := tok.DecodeSpecial(p.IDs)
	fim := tok.FIM()
	pi, si, mi := slices.Index(p.IDs, fim.Prefix), slices.Index(p.IDs, fim.Suffix), slices.Index(p.IDs, fim.Middle)
	if !p.Truncated || si-pi-1 != 50+len(tok.Encode("z", false)) || mi-si-1 != 20-2-1 {
		t.Errorf("prefix %d tokens, suffix %d (truncated %v)", si-pi-1, mi-si-1, p.Truncated)
	}
	if !strings.Contains(text, "LAST\nz<|fim_suffix|>FIRST\n") || strings.Contains(text, "far.py") || !strings.Contains(text, "near.py") {
		t.Errorf("kept %q", text)
	}
	if _, err := Layout(tok, in, chunks, Budget{Prefix: 10, Suffix: 10}); err != nil {
		t.Error(err)
	}
}

// TestGuardStops ends the text at a stop string, holding back what may
// start one.
func TestGuardStops(t *testing.T) {
	g := &Guard{Stops: []string{"\n\n", "END"}}
	var sent strings.Builder
	var stopped bool
	for _, piece := range []string{"ab", "c\n", "d E", "N", "x", "E", "ND more"} {
		out, s := g.Add(piece)
		sent.WriteString(out)
		if stopped = s; s {
			break
		}
	}
	if !stopped || sent.String() != "abc\nd ENx" || g.Text() != "abc\nd ENx" || g.Stopped() != StopWord || g.Word() != "END" {
		t.Errorf("sent %q, text %q, stopped %v %q %q", sent.String(), g.Text(), stopped, g.Stopped(), g.Word())
	}
	g = &Guard{Stops: []string{"STOP"}}
	out, _ := g.Add("one ST")
	if out != "one " || g.Rest() != "ST" || g.Stopped() != "" {
		t.Errorf("held back %q then %q", out, g.Rest())
	}
}

// TestGuardIndent ends the text before the first new line indented less
// than asked, holding back a line's leading whitespace until it is known.
func TestGuardIndent(t *testing.T) {
	g := &Guard{Indent: 4}
	var sent strings.Builder
	for _, piece := range []string{"x = 1\n", "    ", "", "y = 2\n", "\n", "  ", "z"} {
		out, stop := g.Add(piece)
		sent.WriteString(out)
		if piece == "    " && out != "" {
			t.Errorf("sent %q before the line's indentation was known", out)
		}
		if stop {
			break
		}
	}
	if sent.String() != "x = 1\n    y = 2\n\n" || g.Text() != sent.String() || g.Stopped() != StopLimit {
		t.Errorf("sent %q, text %q, stopped %q", sent.String(), g.Text(), g.Stopped())
	}
}

// TestGuardTime ends the text once the limit has passed and a newline
// has been written.
func TestGuardTime(t *testing.T) {
	now := time.Unix(0, 0)
	g := &Guard{Limit: time.Second, Start: now, Now: func() time.Time { return now }}
	now = now.Add(2 * time.Second)
	if _, stop := g.Add("no newline yet"); stop {
		t.Error("stopped before a newline")
	}
	if out, stop := g.Add(" done\nmore"); !stop || out != " done\nmore" || g.Stopped() != StopLimit {
		t.Errorf("after the newline: %q %v %q", out, stop, g.Stopped())
	}
}

// TestReweigh: llama.cpp's infill rule keeps only the end when it is
// likely enough, merges a token into the token its text starts, and drops
// unlikely text tokens.
func TestReweigh(t *testing.T) {
	tok := qwen(t)
	id := func(s string) int32 {
		ids := tok.Encode(s, false)
		if len(ids) != 1 {
			t.Fatalf("%q is %d tokens", s, len(ids))
		}
		return ids[0]
	}
	cand := func(id int32, p float64) engine.Candidate { return engine.Candidate{ID: id, P: p} }
	eos := tok.EOS()
	ret, retu, x := id("ret"), id("return"), id("x")
	// 3 * 0.2 * 3 > 0.8: the end alone
	got := Reweigh(tok, []engine.Candidate{cand(ret, 0.5), cand(x, 0.3), cand(eos, 0.2)})
	if len(got) != 1 || got[0].ID != eos {
		t.Errorf("likely end: %+v", got)
	}
	// "ret" starts "return": the likelier keeps both; x (0.15) is under 0.2
	got = Reweigh(tok, []engine.Candidate{cand(retu, 0.5), cand(ret, 0.34), cand(x, 0.15), cand(eos, 0.01)})
	if len(got) != 2 || got[0].ID != retu || math.Abs(got[0].P-0.84) > 1e-9 || got[1].ID != eos {
		t.Errorf("merged: %+v", got)
	}
	// no text token left: the end
	got = Reweigh(tok, []engine.Candidate{cand(ret, 0.19), cand(x, 0.18), cand(id("y"), 0.17), cand(id("z"), 0.16), cand(id("w"), 0.15), cand(id("v"), 0.15)})
	if len(got) != 1 || !tok.EOG(got[0].ID) {
		t.Errorf("nothing likely: %+v", got)
	}
}
