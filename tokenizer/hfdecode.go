package tokenizer

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Decoders of Hugging Face tokenizers: a chain that rewrites the token
// texts of a sequence, whose results are then concatenated. Where
// tokenizers writes U+FFFD for bytes that are not UTF-8 (ByteLevel,
// ByteFallback), these keep the bytes, so that decoding inverts encoding.

// decodeState tells a decoder where its tokens stand: mid means the first
// of them does not start the text (a piece of a stream), fused that an
// earlier step has joined all tokens into one.
type decodeState struct{ mid, fused bool }

// decoder rewrites the texts of consecutive tokens.
type decoder interface {
	decode(toks []string, st decodeState) ([]string, decodeState)
}

// decSeq applies decoders in order.
type decSeq []decoder

func (q decSeq) decode(toks []string, st decodeState) ([]string, decodeState) {
	for _, d := range q {
		toks, st = d.decode(toks, st)
	}
	return toks, st
}

// byteLevelDec maps byte-level characters back to bytes and joins the
// tokens; a token with a character outside the byte-level alphabet stays
// as it is.
type byteLevelDec struct{}

func (byteLevelDec) decode(toks []string, st decodeState) ([]string, decodeState) {
	var sb strings.Builder
	for _, t := range toks {
		sb.WriteString(fromByteLevel(t))
	}
	st.fused = true
	return []string{sb.String()}, st
}

// fromByteLevel returns the bytes of a byte-level token text, or the text
// itself when a character is not byte-level.
func fromByteLevel(t string) string {
	buf := make([]byte, 0, len(t))
	for _, r := range t {
		b, ok := runeToByte[r]
		if !ok {
			return t
		}
		buf = append(buf, b)
	}
	return string(buf)
}

// wordPieceDec joins WordPiece tokens: a token after the first loses its
// prefix ("##") or gains a leading space; cleanup removes the space before
// punctuation and English contractions.
type wordPieceDec struct {
	prefix  string
	cleanup bool
}

func (w wordPieceDec) decode(toks []string, st decodeState) ([]string, decodeState) {
	out := make([]string, len(toks))
	for i, t := range toks {
		if i > 0 || st.mid {
			if rest, ok := strings.CutPrefix(t, w.prefix); ok {
				t = rest
			} else {
				t = " " + t
			}
		}
		if w.cleanup {
			t = cleanupSeq(t)
		}
		out[i] = t
	}
	return out, st
}

// cleanupSeq applies the cleanup replacements one after the other, as
// tokenizers' chain of str::replace calls does.
func cleanupSeq(t string) string {
	if !strings.ContainsRune(t, ' ') {
		return t
	}
	for _, r := range [][2]string{{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
		{" n't", "n't"}, {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}} {
		t = strings.ReplaceAll(t, r[0], r[1])
	}
	return t
}

// metaspaceDec turns the replacement character back into spaces; in the
// first token of a text it is dropped instead unless prepend_scheme is
// "never".
type metaspaceDec struct {
	repl      rune
	dropFirst bool
}

func (m metaspaceDec) decode(toks []string, st decodeState) ([]string, decodeState) {
	out := make([]string, len(toks))
	for i, t := range toks {
		drop := i == 0 && !st.mid && m.dropFirst
		out[i] = strings.Map(func(r rune) rune {
			switch {
			case r != m.repl:
				return r
			case drop:
				return -1
			}
			return ' '
		}, t)
	}
	return out, st
}

// byteFallbackDec turns runs of <0xXX> tokens into their bytes.
type byteFallbackDec struct{}

func (byteFallbackDec) decode(toks []string, st decodeState) ([]string, decodeState) {
	out := make([]string, 0, len(toks))
	var pend []byte
	for _, t := range toks {
		if b, ok := byteToken(t); ok {
			pend = append(pend, b)
			continue
		}
		if len(pend) > 0 {
			out = append(out, string(pend))
			pend = pend[:0]
		}
		out = append(out, t)
	}
	if len(pend) > 0 {
		out = append(out, string(pend))
	}
	return out, st
}

// byteToken parses "<0xXX>".
func byteToken(t string) (byte, bool) {
	if len(t) != 6 || !strings.HasPrefix(t, "<0x") || t[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(t[3:5], 16, 8)
	return byte(v), err == nil
}

// fuseDec joins all tokens into one.
type fuseDec struct{}

func (fuseDec) decode(toks []string, st decodeState) ([]string, decodeState) {
	st.fused = true
	return []string{strings.Join(toks, "")}, st
}

// stripDec removes up to start leading and stop trailing copies of a
// character from each token. After a Fuse the one token is the whole text,
// so in the middle of a stream there is nothing to strip.
type stripDec struct {
	content     rune
	start, stop int
}

func (s stripDec) decode(toks []string, st decodeState) ([]string, decodeState) {
	if st.fused && st.mid {
		return toks, st
	}
	out := make([]string, len(toks))
	for i, t := range toks {
		for range s.start {
			r, n := utf8.DecodeRuneInString(t)
			if n == 0 || r != s.content {
				break
			}
			t = t[n:]
		}
		for range s.stop {
			r, n := utf8.DecodeLastRuneInString(t)
			if n == 0 || r != s.content {
				break
			}
			t = t[:len(t)-n]
		}
		out[i] = t
	}
	return out, st
}

// replaceDec replaces a pattern in each token.
type replaceDec struct {
	f       finder
	content string
}

func (r replaceDec) decode(toks []string, st decodeState) ([]string, decodeState) {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = replaceAll(t, r.f, r.content)
	}
	return out, st
}

// bpeSuffixDec is BPEDecoder: the end-of-word suffix becomes a space, or
// nothing in the last token.
type bpeSuffixDec struct{ suffix string }

func (b bpeSuffixDec) decode(toks []string, st decodeState) ([]string, decodeState) {
	out := make([]string, len(toks))
	for i, t := range toks {
		rep := " "
		if i == len(toks)-1 && !st.mid {
			rep = ""
		}
		out[i] = strings.ReplaceAll(t, b.suffix, rep)
	}
	return out, st
}
