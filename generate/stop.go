package generate

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// utf8Max is the longest UTF-8 encoding of a rune: the stop rule rescans
// this many trailing bytes, since a rune may arrive split over tokens.
const utf8Max = utf8.UTFMax

// stopAt applies the benchmarks' stop rule, the regular expression
// "\n[^\s]" (a line that returns to column 0), to text from byte from on:
// it returns the index of the newline to cut at, or -1. A newline followed
// by an incomplete rune is left undecided until more text arrives. When
// lineStart, text begins a line of its own (the code it follows ends with
// a newline, as a fill-in-the-middle prefix does): a first character at
// column 0 returns to it too, and the cut is at 0.
func stopAt(text []byte, from int, lineStart bool) int {
	if lineStart && from == 0 && len(text) > 0 {
		if !utf8.FullRune(text) {
			return -1
		}
		if r, _ := utf8.DecodeRune(text); !pySpace(r) {
			return 0
		}
	}
	for i := from; i < len(text)-1; i++ {
		if text[i] != '\n' {
			continue
		}
		rest := text[i+1:]
		if !utf8.FullRune(rest) {
			return -1
		}
		if r, _ := utf8.DecodeRune(rest); !pySpace(r) {
			return i
		}
	}
	return -1
}

// pySpace is Python's \s for str patterns (str.isspace): Unicode white
// space plus the separators U+001C–U+001F.
func pySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// retryReason says why a body must be generated again: "empty" or "pass"
// (a bare pass statement), or "" when it is kept.
func retryReason(body string) string {
	switch strings.TrimSpace(body) {
	case "":
		return "empty"
	case "pass":
		return "pass"
	}
	return ""
}
