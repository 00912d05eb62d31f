package generate

import (
	"math"
	"testing"

	"actor/engine"
	"actor/retrieve"
	"actor/tokenizer"
)

// TestBlankGuard checks, with logits made by hand over the tiny model's
// byte-level vocabulary, that while the body is blank the guard rules out
// an end-of-generation token and any token after which the stop rule cuts
// the body back to white space, and takes the best token that remains; once
// the body has text, or with the guard off, the draw is untouched.
func TestBlankGuard(t *testing.T) {
	m, tok := loadTiny(t)
	d := newDecoder(t, m, tok)
	id := func(s string) int32 { return oneToken(t, tok, s) }
	var eog int32 = -1
	for i := range int32(m.Config.Vocab) {
		if tok.EOG(i) {
			eog = i
			break
		}
	}
	if eog < 0 {
		t.Fatal("the tiny vocabulary has no end-of-generation token")
	}
	nl, hash, space, x := id("\n"), id("#"), id(" "), id("x")
	logits := func(ranked ...int32) []float32 { return rankedLogits(m.Config.Vocab, ranked...) }
	greedy := engine.NewSampler(engine.SamplerConfig{})
	cases := []struct {
		name  string
		text  string
		l     []float32
		guard bool
		want  int32
		// lineStart: the text starts a line (a FIM prefix ends with its
		// newline); otherwise it continues the prompt's last line.
		lineStart bool
	}{
		{"end of generation first, blank body", "", logits(eog, x), true, x, false},
		{"column 0 at a line start", "", logits(x, space), true, space, true},
		{"column 0 after a blank line", "\n", logits(hash, nl, x), true, nl, false},
		{"column 0 after blank lines, then space", "\n\n", logits(hash, eog, space), true, space, false},
		{"a newline alone does not end the body", "", logits(nl, x), true, nl, false},
		{"guard off", "\n", logits(hash, x), false, hash, false},
		{"body has text", "\n    y = 1\n", logits(hash, x), true, hash, false},
		{"body has text, end of generation", "\n    y", logits(eog, x), true, eog, false},
	}
	for _, c := range cases {
		orig := append([]float32(nil), c.l...)
		if got := d.sample(greedy, c.l, []byte(c.text), bodyGuard{blank: c.guard, lineStart: c.lineStart}); got != c.want {
			t.Errorf("%s: drew %q (%d), want %q (%d)", c.name, tok.Piece(got), got, tok.Piece(c.want), c.want)
		}
		for i := range orig {
			if orig[i] != c.l[i] {
				t.Fatalf("%s: the guard changed the caller's logits", c.name)
			}
		}
	}
	// a model that gives nothing else any probability keeps its draw
	all := make([]float32, m.Config.Vocab)
	for i := range all {
		all[i] = float32(math.Inf(-1))
	}
	all[eog] = 0
	if got := d.sample(greedy, all, nil, bodyGuard{blank: true}); got != eog {
		t.Errorf("only an end token possible: drew %d, want %d", got, eog)
	}
}

// TestIndentGuard checks, with logits made by hand, that while the body is
// blank the indent guard rules out a token that starts the body left of
// its column (the model's " def" one column in, a line at column 0) and
// keeps one at the column or deeper; once the body has text, or with no
// column, the draw is untouched. The tiny vocabulary has single-byte
// tokens, so the texts before the draw carry the indentation.
func TestIndentGuard(t *testing.T) {
	m, tok := loadTiny(t)
	d := newDecoder(t, m, tok)
	id := func(s string) int32 { return oneToken(t, tok, s) }
	sp, r, x := id(" "), id("r"), id("x")
	logits := func(ranked ...int32) []float32 { return rankedLogits(m.Config.Vocab, ranked...) }
	greedy := engine.NewSampler(engine.SamplerConfig{})
	cases := []struct {
		name string
		text string
		g    bodyGuard
		l    []float32
		want int32
	}{
		{"one column in, body at 4", "\n ", bodyGuard{minColumn: 4}, logits(r, sp), sp},
		{"at the column", "\n    ", bodyGuard{minColumn: 4}, logits(r, sp), r},
		{"deeper", "\n      ", bodyGuard{minColumn: 4}, logits(r, sp), r},
		{"column 0 after a blank line", "\n\n", bodyGuard{minColumn: 4}, logits(r, sp), sp},
		{"text that starts the line itself", "  ", bodyGuard{minColumn: 4, lineStart: true}, logits(x, sp), sp},
		{"on the prompt's last line", "", bodyGuard{minColumn: 4}, logits(x, sp), x},
		{"no column", "\n ", bodyGuard{blank: true}, logits(r, sp), r},
		{"body has text", "\n    y\n", bodyGuard{minColumn: 4}, logits(r, sp), r},
	}
	for _, c := range cases {
		if got := d.sample(greedy, c.l, []byte(c.text), c.g); got != c.want {
			t.Errorf("%s: drew %q, want %q", c.name, tok.Piece(got), tok.Piece(c.want))
		}
	}
}

// TestGuardFor checks where an attempt's text starts, worked by hand: a
// FIM prompt's text starts the line after its prefix (so the next
// definition at column 0 is a return to it) at the prefix's docstring
// column; a healed prompt's text continues the docstring's line; a prompt
// that ends inside a line is not at a line start.
func TestGuardFor(t *testing.T) {
	const target = "def f(x):\n    \"\"\"Doc.\"\"\"\n"
	fim := retrieve.Prompt{Special: true,
		Text: "<|file_sep|>t.py\n<|fim_prefix|>" + target + "<|fim_suffix|>\ndef g():\n  \"\"\"g.\"\"\"\n<|fim_middle|>"}
	cfg := Config{BlankGuard: true, IndentGuard: true}
	cases := []struct {
		name   string
		p      retrieve.Prompt
		healed bool
		want   bodyGuard
	}{
		{"FIM", fim, false, bodyGuard{blank: true, minColumn: 4, lineStart: true}},
		{"healed", retrieve.Prompt{Text: target}, true, bodyGuard{blank: true, minColumn: 4}},
		{"not healed", retrieve.Prompt{Text: target}, false, bodyGuard{blank: true, minColumn: 4, lineStart: true}},
		{"inside a line", retrieve.Prompt{Text: "x = f("}, false, bodyGuard{blank: true}},
		{"FIM tokens as plain text", retrieve.Prompt{Text: fim.Text}, false, bodyGuard{blank: true}},
	}
	for _, c := range cases {
		if got := guardFor(c.p, c.healed, cfg); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	// In the FIM prompt, a first token at column 0 is ruled out: it would
	// end the body blank.
	m, tok := loadTiny(t)
	d := newDecoder(t, m, tok)
	if x := oneToken(t, tok, "x"); !d.ruledOut(x, nil, guardFor(fim, false, cfg)) {
		t.Error("FIM: \"x\" at column 0 is allowed as the body's first token")
	}
}

// TestBodyColumn checks the body's column on prompts worked by hand: the
// docstring's, with a prefix or a signature over two lines; one right of
// the def without a docstring; the last def of a prompt with blocks above.
func TestBodyColumn(t *testing.T) {
	cases := []struct {
		prompt string
		want   int
	}{
		{"def f(x):\n    \"\"\"Doc.\"\"\"\n", 4},
		{"class A:\n    def m(self,\n          y):\n        r\"\"\"Doc.\n\n        More.\n        \"\"\"\n", 8},
		{"async def g():\n  '''x'''\n", 2},
		{"    def h(self):\n", 5},
		{"# file path: a.py\n# def other():\ndef k():\n    \"\"\"k.\"\"\"\n", 4},
		{"x = 1\n", 0},
	}
	for _, c := range cases {
		if got := bodyColumn(c.prompt); got != c.want {
			t.Errorf("bodyColumn(%q) = %d, want %d", c.prompt, got, c.want)
		}
	}
}

// oneToken is s's one token in tok's vocabulary (the test fails when s
// is more than one).
func oneToken(t *testing.T, tok *tokenizer.Tokenizer, s string) int32 {
	t.Helper()
	ids := tok.Encode(s, false)
	if len(ids) != 1 {
		t.Fatalf("%q is %d tokens in the tiny vocabulary, want 1", s, len(ids))
	}
	return ids[0]
}

// rankedLogits are logits over a vocabulary of n tokens that rank the
// given tokens first to last, the rest far below.
func rankedLogits(n int, ranked ...int32) []float32 {
	l := make([]float32, n)
	for i := range l {
		l[i] = -100
	}
	for k, t := range ranked {
		l[t] = float32(10 - k)
	}
	return l
}
