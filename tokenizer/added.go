package tokenizer

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// addedToken is an entry of a tokenizer.json's added_tokens: a text that
// is matched verbatim before the model runs.
type addedToken struct {
	ID         int32  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"` // only where no word character touches it
	LStrip     bool   `json:"lstrip"`      // takes the white space before it
	RStrip     bool   `json:"rstrip"`      // takes the white space after it
	Normalized bool   `json:"normalized"`  // matched in normalised text
	Special    bool   `json:"special"`     // skipped by Decode; matched only by EncodeSpecial
}

// addedMatcher finds added tokens in text as Hugging Face tokenizers does:
// leftmost-longest matches, without overlaps, then each token's
// single_word, lstrip and rstrip rules.
type addedMatcher struct {
	toks    []addedToken
	pattern []string     // what is matched: the content, or its normalised form
	byFirst [256][]int32 // indexes into toks by first byte, longest pattern first
}

func newAddedMatcher(toks []addedToken, patterns []string) *addedMatcher {
	m := &addedMatcher{toks: toks, pattern: patterns}
	for i, p := range patterns {
		if p != "" {
			m.byFirst[p[0]] = append(m.byFirst[p[0]], int32(i))
		}
	}
	for b := range m.byFirst {
		slices.SortStableFunc(m.byFirst[b], func(x, y int32) int { return len(patterns[y]) - len(patterns[x]) })
	}
	return m
}

// longestAt returns the index of the longest pattern that starts at s[p:],
// -1 if none.
func (m *addedMatcher) longestAt(s string, p int) int {
	for _, i := range m.byFirst[s[p]] {
		if strings.HasPrefix(s[p:], m.pattern[i]) {
			return int(i)
		}
	}
	return -1
}

// split appends the fragments of s (offsets relative to base): text
// between matches and the matched tokens. Special tokens are skipped when
// !special, but their text is still consumed by the match, as in
// tokenizers' encode_special_tokens mode.
func (m *addedMatcher) split(s string, base int, special bool, out []fragment) []fragment {
	if m == nil || len(m.toks) == 0 {
		return append(out, fragment{base, base + len(s), -1})
	}
	done := 0 // end of the last accepted token (with its stripped space)
	for p := 0; p < len(s); {
		i := m.longestAt(s, p)
		if i < 0 {
			p++
			continue
		}
		tok := &m.toks[i]
		start, stop := p, p+len(m.pattern[i])
		p = stop
		if tok.Special && !special {
			continue
		}
		if tok.SingleWord && (start > 0 && endsWithWord(s[:start]) || stop < len(s) && startsWithWord(s[stop:])) {
			continue
		}
		if tok.LStrip {
			start = max(len(strings.TrimRightFunc(s[:start], unicode.IsSpace)), done)
		}
		if tok.RStrip {
			stop = len(s) - len(strings.TrimLeftFunc(s[stop:], unicode.IsSpace))
		}
		if done < start {
			out = append(out, fragment{base + done, base + start, -1})
		}
		out = append(out, fragment{base + start, base + stop, tok.ID})
		done = stop
	}
	if done < len(s) {
		out = append(out, fragment{base + done, base + len(s), -1})
	}
	return out
}

// isWordChar is the \w of Rust's regex crate: Alphabetic, marks, decimal
// digits, connector punctuation and Join_Control.
func isWordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.In(r, unicode.Nl, unicode.Other_Alphabetic, unicode.M, unicode.Nd,
		unicode.Pc, unicode.Join_Control)
}

func endsWithWord(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return isWordChar(r)
}

func startsWithWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isWordChar(r)
}
