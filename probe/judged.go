package probe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The reasons Skip gives for a token Algorithm 1 does not judge; they are
// the skip field of generation traces.
const (
	SkipFirst = "first" // the first token of the body
	SkipEOG   = "eog"   // an end-of-generation token
	SkipSpace = "space" // a token whose text is white space only
	// SkipComment marks a token inside a # comment, which generation
	// judges only without its SkipComments option (see InComment).
	SkipComment = "comment"
)

// InComment reports whether a token with text piece, following linePrefix
// (the text of its line before it), stands in a Python # comment: the
// line's code so far is a comment, or the token starts one on a line with
// no code yet. (A # inside a string literal or after code on the same line
// is not seen as a comment: bodies rarely have them, and a trigger there
// is kept.)
func InComment(linePrefix, piece string) bool {
	lead := strings.TrimSpace(linePrefix)
	return strings.HasPrefix(lead, "#") || (lead == "" && strings.HasPrefix(strings.TrimSpace(piece), "#"))
}

// Skip is the one rule for which tokens the probe judges (Algorithm 1):
// not the body's first token (pos 0), not an end-of-generation token, not
// a token whose text is white space only. It returns why a token is not
// judged, or "" when it is. Generation, the probe's threshold calibration
// and the label analysis all ask it, so the rate a probe is calibrated on
// is the rate generation sees. piece is the token's text; an empty or
// invalid-UTF-8 piece is not white space.
func Skip(pos int, piece string, eog bool) string {
	switch {
	case pos == 0:
		return SkipFirst
	case eog:
		return SkipEOG
	case whitespace(piece):
		return SkipSpace
	}
	return ""
}

// whitespace reports whether piece is non-empty valid UTF-8 made of white
// space only.
func whitespace(piece string) bool {
	if piece == "" || !utf8.ValidString(piece) {
		return false
	}
	for _, r := range piece {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}
