package generate

import (
	"strings"
	"testing"
	"unicode/utf8"

	"actor/engine"
)

func TestStopAt(t *testing.T) {
	cases := []struct {
		text string
		want int
	}{
		{"    return x\n", -1},            // undecided: nothing after the newline yet
		{"    return x\n    y = 1\n", -1}, // indented lines continue
		{"    return x\n\n    y\n", -1},   // blank line, then indented
		{"    return x\ndef g():\n", 12},  // back at column 0: cut before the newline
		{"    a\n\tb\n\n\x1fc\nz", 12},    // tab and U+001F are \s; z is not
		{"    a\n\u3000b\nc", 10},         // ideographic space is \s
		{"    a\n\u00e9", 5},              // é is not
		{"    a\n\xe3\x80", -1},           // the rune after the newline is incomplete
		{"    a\n\xff", 5},                // an invalid byte is not \s
		{"x\n", -1},                       // generation starting at column 0 is not cut
		{"", -1},
	}
	for _, c := range cases {
		if got := stopAt([]byte(c.text), 0, false); got != c.want {
			t.Errorf("stopAt(%q) = %d, want %d", c.text, got, c.want)
		}
	}
	// Text that starts a line of its own (after a FIM prefix ending with
	// its newline): a first character at column 0 is a return to it.
	for _, c := range []struct {
		text string
		want int
	}{
		{"def g():\n", 0},      // the next definition at once: cut at 0
		{"x", 0},               // decided by the first rune alone
		{"    return x\n", -1}, // indented: the body goes on
		{"\n\ndef g():", 1},    // blank lines, then column 0
		{"\xe3\x80", -1},       // first rune incomplete: undecided
		{"\u3000b\nc", 4},      // ideographic space is \s
		{"", -1},
	} {
		if got := stopAt([]byte(c.text), 0, true); got != c.want {
			t.Errorf("stopAt(%q) at a line start = %d, want %d", c.text, got, c.want)
		}
	}
}

// refStopAt is the rule applied to the whole string: the first "\n"
// followed by a complete rune that is not Python white space; at a line
// start, a first complete rune that is not white space too.
func refStopAt(s string, lineStart bool) int {
	if lineStart && s != "" {
		if !utf8.FullRuneInString(s) {
			return -1
		}
		if r, _ := utf8.DecodeRuneInString(s); !pySpace(r) {
			return 0
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' && i+1 < len(s) && utf8.FullRuneInString(s[i+1:]) {
			if r, _ := utf8.DecodeRuneInString(s[i+1:]); !pySpace(r) {
				return i
			}
		}
		if s[i] == '\n' && i+1 < len(s) && !utf8.FullRuneInString(s[i+1:]) {
			return -1
		}
	}
	return -1
}

// FuzzStopAt feeds text piece by piece as decoding does (rescanning the
// last utf8Max bytes) and checks the cut against the whole-string rule.
func FuzzStopAt(f *testing.F) {
	for _, s := range []string{"    return x\ndef", "  a\n\u3000b\nc", "a\n\xe3\x80\x80b\nq", "\n\n\n", "x"} {
		f.Add(s, uint8(3), false)
		f.Add(s, uint8(1), true)
	}
	f.Fuzz(func(t *testing.T, s string, piece uint8, lineStart bool) {
		n := int(piece%7) + 1
		var text []byte
		from, got := 0, -1
		for i := 0; i < len(s) && got < 0; i += n {
			text = append(text, s[i:min(i+n, len(s))]...)
			got = stopAt(text, from, lineStart)
			from = max(0, len(text)-utf8Max)
		}
		want := refStopAt(string(text), lineStart)
		if got != want {
			t.Fatalf("%q in pieces of %d (line start %v): cut at %d, whole-string rule %d", s, n, lineStart, got, want)
		}
	})
}

func TestRetryReason(t *testing.T) {
	for body, want := range map[string]string{"": "empty", " \n\t": "empty", "    pass": "pass", "pass\n": "pass",
		"    pass  # todo": "", "    return 1": "", "    passed = 1": ""} {
		if got := retryReason(body); got != want {
			t.Errorf("retryReason(%q) = %q, want %q", body, got, want)
		}
	}
}

// runBodies decodes a sample whose attempts return bodies in turn.
func runBodies(t *testing.T, retries int, bodies ...string) (string, *Sample) {
	t.Helper()
	b := &base{cfg: DefaultConfig, method: "m"}
	s := b.newSample(tinyTarget, 2)
	body, err := b.attempts(s, tinyTarget, "generate", 0, retries, func(a *Attempt, _ *engine.Sampler) (string, error) {
		a.Tokens = 2
		return bodies[len(s.Trace.Attempts)], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return body, s
}

func TestAttemptsRegenerateEmptyAndPass(t *testing.T) {
	body, s := runBodies(t, 3, "", "    pass", "    return 1", "    unused")
	att := s.Trace.Attempts
	if body != "    return 1" || len(att) != 3 || att[0].Retry != "empty" || att[1].Retry != "pass" || att[2].Retry != "" {
		t.Errorf("body %q, attempts %+v", body, att)
	}
	if att[0].Seed == att[1].Seed || att[1].Seed == att[2].Seed || s.Trace.Generated != 6 || s.Trace.Tokens != 2 {
		t.Errorf("seeds %d %d %d, generated %d, tokens %d", att[0].Seed, att[1].Seed, att[2].Seed, s.Trace.Generated, s.Trace.Tokens)
	}
	// The bound: after one regeneration the bare pass is kept.
	body, s = runBodies(t, 1, "", "    pass", "    return 1")
	if body != "    pass" || len(s.Trace.Attempts) != 2 || s.Trace.Attempts[1].Retry != "" {
		t.Errorf("bounded: body %q, attempts %+v", body, s.Trace.Attempts)
	}
}

func TestLines(t *testing.T) {
	text := "a\n\nb\nc\n"
	if got := lastLines(text, 2, false); got != "b\nc" {
		t.Errorf("lastLines = %q", got)
	}
	if got := lastLines(text, 3, true); got != "a\nb\nc" {
		t.Errorf("lastLines non-empty = %q", got)
	}
	if got := firstLines(text, 2); got != "a\n" {
		t.Errorf("firstLines = %q", got)
	}
	if got := firstLines("", 10); got != "" || !strings.HasPrefix(lastLines("x", 5, true), "x") {
		t.Errorf("empty texts: %q", got)
	}
}
