package tokenizer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalizers of Hugging Face tokenizers: each rewrites the text before it
// is pre-tokenised (offsets are not tracked; ids do not need them).

// normalizer rewrites text.
type normalizer interface {
	normalize(s string) string
}

// normSeq applies normalizers in order.
type normSeq []normalizer

func (q normSeq) normalize(s string) string {
	for _, n := range q {
		s = n.normalize(s)
	}
	return s
}

// unicodeNorm is NFC, NFD, NFKC or NFKD.
type unicodeNorm struct{ form norm.Form }

func (u unicodeNorm) normalize(s string) string { return u.form.String(s) }

// lowercaseNorm lowercases every character (full mapping, no context:
// U+0130 becomes "i̇", a final sigma stays σ), as Rust's char::to_lowercase.
type lowercaseNorm struct{}

func (lowercaseNorm) normalize(s string) string { return lowercase(s) }

func lowercase(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			sb.WriteByte(c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			sb.WriteByte(s[i]) // not UTF-8: kept as is
		} else {
			writeLower(&sb, r)
		}
		i += n
	}
	return sb.String()
}

func writeLower(sb *strings.Builder, r rune) {
	if r == 'İ' {
		sb.WriteString("i\u0307")
		return
	}
	sb.WriteRune(unicode.ToLower(r))
}

// stripNorm removes white space from the ends.
type stripNorm struct{ left, right bool }

func (st stripNorm) normalize(s string) string {
	if st.left {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	if st.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s
}

// stripAccentsNorm removes combining marks (Mn, Mc, Me); used after NFD.
type stripAccentsNorm struct{}

func (stripAccentsNorm) normalize(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.M, r) {
			return -1
		}
		return r
	}, s)
}

// replaceNorm replaces every match of a pattern.
type replaceNorm struct {
	f       finder
	content string
}

func (r replaceNorm) normalize(s string) string { return replaceAll(s, r.f, r.content) }

// prependNorm puts a string before non-empty text.
type prependNorm string

func (p prependNorm) normalize(s string) string {
	if s == "" {
		return s
	}
	return string(p) + s
}

// bertNorm is BertNormalizer: clean_text drops NUL, U+FFFD and control
// characters and turns white space into spaces; handle_chinese_chars puts
// spaces around CJK ideographs; strip_accents (default: lowercase) removes
// non-spacing marks after NFD; lowercase lowercases.
type bertNorm struct{ clean, chinese, strip, lower bool }

func (b bertNorm) normalize(s string) string {
	if isASCII(s) {
		return b.normalizeASCII(s)
	}
	var sb strings.Builder
	sb.Grow(len(s) + len(s)/4)
	for _, r := range s {
		if b.clean {
			if r == 0 || r == utf8.RuneError || isControlBert(r) {
				continue
			}
			if isSpaceBert(r) {
				r = ' '
			}
		}
		if b.chinese && isChineseChar(r) {
			sb.WriteByte(' ')
			sb.WriteRune(r)
			sb.WriteByte(' ')
			continue
		}
		sb.WriteRune(r)
	}
	s = sb.String()
	if b.strip {
		s = norm.NFD.String(s)
	}
	if !b.strip && !b.lower {
		return s
	}
	sb.Reset()
	sb.Grow(len(s))
	for _, r := range s {
		if b.strip && unicode.Is(unicode.Mn, r) {
			continue
		}
		if b.lower {
			writeLower(&sb, r)
		} else {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// normalizeASCII is normalize for ASCII text, in one pass.
func (b bertNorm) normalizeASCII(s string) string {
	buf := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if b.clean {
			switch {
			case c == '\t' || c == '\n' || c == '\r':
				c = ' '
			case c < 0x20 || c == 0x7F:
				continue
			}
		}
		if b.lower && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return string(buf)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// isSpaceBert is BERT's white space: \t \n \r and Unicode White_Space.
func isSpaceBert(r rune) bool { return unicode.IsSpace(r) }

// isControlBert is BERT's control character: categories Cc, Cf, Co and Cs
// except \t \n \r.
func isControlBert(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// isChineseChar reports CJK ideographs, the blocks BERT splits apart.
func isChineseChar(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) || (r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) || (r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}
