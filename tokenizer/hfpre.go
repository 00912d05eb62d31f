package tokenizer

import (
	"strings"
	"sync"
	"unicode"
)

// Pre-tokenizers of Hugging Face tokenizers: each splits every piece left
// by the previous one, some also rewrite the pieces.

// preStep is one pre-tokenizer.
type preStep interface {
	// split appends the pre-tokens of s; first reports whether s starts at
	// the beginning of the input text.
	split(s string, first bool, out []string) []string
}

// matcherStep runs hand-written matchers (known regexes and character
// classes, delimiters isolated), several in a row sharing one decoding of
// the text into runes.
type matcherStep struct{ p *pretokenizer }

var spanPool = sync.Pool{New: func() any { return new([]span) }}

func (m matcherStep) split(s string, _ bool, out []string) []string {
	buf := spanPool.Get().(*[]span)
	defer spanPool.Put(buf)
	*buf = m.p.split(s, (*buf)[:0])
	for _, w := range *buf {
		out = append(out, s[w.a:w.b])
	}
	return out
}

// patternStep splits by a pattern with a behaviour (Split, Punctuation,
// WhitespaceSplit, BertPreTokenizer, ...).
type patternStep struct {
	f      finder
	beh    behavior
	invert bool
}

func (p patternStep) split(s string, _ bool, out []string) []string {
	return splitPattern(s, p.f, p.beh, p.invert, out)
}

// byteLevelStep is the ByteLevel pre-tokenizer: an optional space before
// each piece, the GPT-2 regex split (use_regex), then the bytes of each
// pre-token as byte-level characters. When it is the last step the mapping
// is left to the model (mapBytes false), which caches words by their raw
// bytes.
type byteLevelStep struct {
	prefixSpace bool
	regex       *pretokenizer // nil: no split
	mapBytes    bool
}

func (b byteLevelStep) split(s string, _ bool, out []string) []string {
	if b.prefixSpace && !strings.HasPrefix(s, " ") {
		s = " " + s
	}
	n := len(out)
	if b.regex != nil {
		out = matcherStep{b.regex}.split(s, false, out)
	} else {
		out = append(out, s)
	}
	if b.mapBytes {
		for i := n; i < len(out); i++ {
			out[i] = byteLevel(out[i])
		}
	}
	return out
}

// Prepend schemes of Metaspace.
const (
	prependAlways = iota
	prependFirst
	prependNever
)

// metaspaceStep is the Metaspace pre-tokenizer: spaces become the
// replacement character (▁), which is also put before a piece (always, or
// only before the start of the text), then pieces are cut before each
// replacement character.
type metaspaceStep struct {
	repl   string
	scheme int
	cut    bool
}

func (m metaspaceStep) split(s string, first bool, out []string) []string {
	s = strings.ReplaceAll(s, " ", m.repl)
	if !strings.HasPrefix(s, m.repl) && (m.scheme == prependAlways || m.scheme == prependFirst && first) {
		s = m.repl + s
	}
	if !m.cut {
		return append(out, s)
	}
	return splitPattern(s, literalFinder(m.repl), behMergedWithNext, false, out)
}

// preScratch holds the double buffer of pretokenize.
type preScratch struct{ a, b []string }

var prePool = sync.Pool{New: func() any { return new(preScratch) }}

// pretokenize runs the steps over s and calls fn with each pre-token.
func pretokenize(steps []preStep, s string, first bool, fn func(word string)) {
	if len(steps) == 0 {
		fn(s)
		return
	}
	sc := prePool.Get().(*preScratch)
	defer prePool.Put(sc)
	cur := append(sc.a[:0], s)
	next := sc.b[:0]
	for _, st := range steps {
		next = next[:0]
		for i, p := range cur {
			next = st.split(p, first && i == 0, next)
		}
		cur, next = next, cur
	}
	for _, w := range cur {
		fn(w)
	}
	clear(cur)
	clear(next)
	sc.a, sc.b = cur[:0], next[:0]
}

// isBertPunct is BERT's punctuation: ASCII punctuation (symbols such as $
// + < = > ^ ` | ~ included) and Unicode punctuation (P*).
func isBertPunct(r rune) bool {
	if r < 128 {
		return r > ' ' && r < 127 && !('0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z')
	}
	return unicode.IsPunct(r)
}

// matchWordRuns isolates maximal runs of word characters (\w) and of other
// characters; with white space removed first it is the Whitespace
// pre-tokenizer's \w+|[^\w\s]+.
func matchWordRuns(r []rune, pc span, out []span) []span {
	e := emitter{out: out, prev: pc.a}
	for i := pc.a; i < pc.b; {
		w := isWordChar(r[i])
		j := i + 1
		for j < pc.b && isWordChar(r[j]) == w {
			j++
		}
		e.match(i, j)
		i = j
	}
	return e.finish(pc.b)
}
