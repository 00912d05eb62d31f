package probe

import "testing"

func TestSkip(t *testing.T) {
	cases := []struct {
		pos   int
		piece string
		eog   bool
		want  string
	}{
		{0, "x", false, SkipFirst},
		{0, " ", true, SkipFirst},
		{3, "", true, SkipEOG},
		{3, " ", false, SkipSpace},
		{3, "\n\t  ", false, SkipSpace},
		{3, "\u00a0", false, SkipSpace},
		{3, " x", false, ""},
		{3, "", false, ""},
		{3, "\xe2\x80", false, ""},
		{1, "return", false, ""},
	}
	for _, c := range cases {
		if got := Skip(c.pos, c.piece, c.eog); got != c.want {
			t.Errorf("Skip(%d, %q, %v) = %q, want %q", c.pos, c.piece, c.eog, got, c.want)
		}
	}
}

// InComment, worked by hand.
func TestInComment(t *testing.T) {
	for _, c := range []struct {
		prefix, piece string
		want          bool
	}{
		{"    # Check", " if", true},
		{"    ", " #", true},
		{"", "#", true},
		{"    ", " if", false},
		{"    x = 1  ", "#", false}, // after code: not seen as a comment
		{"    s = '", "#", false},
	} {
		if got := InComment(c.prefix, c.piece); got != c.want {
			t.Errorf("InComment(%q, %q) = %v", c.prefix, c.piece, got)
		}
	}
}
