package tokenizer

import "unicode"

// Hand-written matchers for the pre-tokenizer regexes. Each one appends the
// matches of its regex in runes[pc.a:pc.b] (leftmost first, each search
// starting where the previous match ended, as a backtracking engine finds
// them) and the non-empty gaps between them. They are 20-50x faster than
// running the regexes through github.com/dlclark/regexp2, which remains
// their specification: pretok_regex_test.go checks every matcher against
// its regex on fuzzed input.
type matcher func(runes []rune, pc span, out []span) []span

// Character classes of the regexes: \p{L}, \p{N}, \s (Unicode White_Space)
// and "other", [^\s\p{L}\p{N}].
const (
	clsOther = iota
	clsLetter
	clsNumber
	clsSpace
)

var asciiClass = func() (c [128]uint8) {
	for r := range rune(128) {
		c[r] = classOfSlow(r)
	}
	return c
}()

func classOfSlow(r rune) uint8 {
	switch {
	case unicode.IsLetter(r):
		return clsLetter
	case unicode.IsNumber(r):
		return clsNumber
	case unicode.IsSpace(r):
		return clsSpace
	}
	return clsOther
}

func classOf(r rune) uint8 {
	if r < 128 {
		return asciiClass[r]
	}
	return classOfSlow(r)
}

func isLetter(r rune) bool { return classOf(r) == clsLetter }
func isNumber(r rune) bool { return classOf(r) == clsNumber }
func isSpace(r rune) bool  { return classOf(r) == clsSpace }
func isOther(r rune) bool  { return classOf(r) == clsOther }
func isCRLF(r rune) bool   { return r == '\r' || r == '\n' }

// emitter appends matches and the gaps before them.
type emitter struct {
	out  []span
	prev int
}

func (e *emitter) match(a, b int) {
	if a > e.prev {
		e.out = append(e.out, span{e.prev, a})
	}
	e.out = append(e.out, span{a, b})
	e.prev = b
}

func (e *emitter) finish(b int) []span {
	if e.prev < b {
		e.out = append(e.out, span{e.prev, b})
	}
	return e.out
}

// run returns the end of the run of runes in class from i.
func run(r []rune, i, b int, class func(rune) bool) int {
	for i < b && class(r[i]) {
		i++
	}
	return i
}

// Case folding of contractions: none ('s), ASCII ('[sS], llama.cpp) or
// Oniguruma's (?i:'s), which also folds U+017F (ſ) to s.
const (
	foldNone = iota
	foldASCII
	foldUnicode
)

// contraction returns the length of an English contraction at i ('s 't
// 'm 'd 're 've 'll), 0 if none, under the given case folding.
func contraction(r []rune, i, b int, fold int) int {
	if r[i] != '\'' || i+1 >= b {
		return 0
	}
	lower := func(c rune) rune {
		switch {
		case fold >= foldASCII && c >= 'A' && c <= 'Z':
			return c + 'a' - 'A'
		case fold == foldUnicode && c == 'ſ':
			return 's'
		}
		return c
	}
	switch lower(r[i+1]) {
	case 's', 't', 'm', 'd':
		return 2
	}
	if i+2 < b {
		switch c1, c2 := lower(r[i+1]), lower(r[i+2]); {
		case c1 == 'r' && c2 == 'e', c1 == 'v' && c2 == 'e', c1 == 'l' && c2 == 'l':
			return 3
		}
	}
	return 0
}

// matchGPT2 is reGPT2:
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)
func matchGPT2(r []rune, pc span, out []span) []span {
	e := emitter{out: out, prev: pc.a}
	b := pc.b
	for i := pc.a; i < b; {
		if n := contraction(r, i, b, foldNone); n > 0 {
			e.match(i, i+n)
			i += n
			continue
		}
		j := i
		if r[i] == ' ' && i+1 < b {
			j = i + 1
		}
		if cls := classOf(r[j]); cls != clsSpace {
			end := j + 1
			for end < b && classOf(r[end]) == cls {
				end++
			}
			e.match(i, end)
			i = end
			continue
		}
		end := run(r, i, b, isSpace)
		switch {
		case end == b:
			e.match(i, end)
			i = end
		case end-i > 1:
			e.match(i, end-1)
			i = end - 1
		default:
			i++ // one space before a non-space: no match here
		}
	}
	return e.finish(b)
}

// matchLlama3 and matchQwen2 are reLlama3 and reQwen2, which differ only in
// the length of digit groups (\p{N}{1,3} and \p{N}):
// (?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|
// \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// matchLlama3HF and matchQwen2HF are the same regexes as tokenizer.json
// files spell them, with (?i:'s|...) under Oniguruma's case folding.
func matchLlama3(r []rune, pc span, out []span) []span {
	return matchDigitGroups(r, pc, out, 3, foldASCII)
}
func matchQwen2(r []rune, pc span, out []span) []span {
	return matchDigitGroups(r, pc, out, 1, foldASCII)
}
func matchLlama3HF(r []rune, pc span, out []span) []span {
	return matchDigitGroups(r, pc, out, 3, foldUnicode)
}
func matchQwen2HF(r []rune, pc span, out []span) []span {
	return matchDigitGroups(r, pc, out, 1, foldUnicode)
}

func matchDigitGroups(r []rune, pc span, out []span, digits, fold int) []span {
	e := emitter{out: out, prev: pc.a}
	b := pc.b
	for i := pc.a; i < b; {
		if n := contraction(r, i, b, fold); n > 0 {
			e.match(i, i+n)
			i += n
			continue
		}
		c, cls := r[i], classOf(r[i])
		var end int
		switch {
		case cls == clsLetter:
			end = run(r, i+1, b, isLetter)
		case !isCRLF(c) && cls != clsNumber && i+1 < b && isLetter(r[i+1]):
			end = run(r, i+2, b, isLetter)
		case cls == clsNumber:
			end = i + 1
			for end < b && end-i < digits && isNumber(r[end]) {
				end++
			}
		case cls == clsOther || (c == ' ' && i+1 < b && isOther(r[i+1])):
			end = run(r, run(r, i+1, b, isOther), b, isCRLF)
		default: // white space
			end = run(r, i, b, isSpace)
			lastCRLF := -1
			for k := i; k < end; k++ {
				if isCRLF(r[k]) {
					lastCRLF = k
				}
			}
			switch {
			case lastCRLF >= 0:
				end = lastCRLF + 1
			case end < b && end-i > 1:
				end-- // \s+(?!\S) leaves the last space to the next word
			}
		}
		e.match(i, end)
		i = end
	}
	return e.finish(b)
}

// matchRuns matches class+ or, with space, \s?class+ (an optional white
// space, then a run).
func matchRuns(class func(rune) bool, space bool) matcher {
	return func(r []rune, pc span, out []span) []span {
		e := emitter{out: out, prev: pc.a}
		b := pc.b
		for i := pc.a; i < b; {
			switch {
			case class(r[i]):
				end := run(r, i+1, b, class)
				e.match(i, end)
				i = end
			case space && isSpace(r[i]) && i+1 < b && class(r[i+1]):
				end := run(r, i+2, b, class)
				e.match(i, end)
				i = end
			default:
				i++
			}
		}
		return e.finish(b)
	}
}

// matchEach matches every single rune of a class.
func matchEach(class func(rune) bool) matcher {
	return func(r []rune, pc span, out []span) []span {
		e := emitter{out: out, prev: pc.a}
		for i := pc.a; i < pc.b; i++ {
			if class(r[i]) {
				e.match(i, i+1)
			}
		}
		return e.finish(pc.b)
	}
}

// matchASCIIDigits3 is [0-9][0-9][0-9].
func matchASCIIDigits3(r []rune, pc span, out []span) []span {
	e := emitter{out: out, prev: pc.a}
	d := func(c rune) bool { return c >= '0' && c <= '9' }
	for i := pc.a; i < pc.b; {
		if i+2 < pc.b && d(r[i]) && d(r[i+1]) && d(r[i+2]) {
			e.match(i, i+3)
			i += 3
			continue
		}
		i++
	}
	return e.finish(pc.b)
}

// Classes of the DeepSeek-Coder and default pre-tokenizers.
func isPunct(r rune) bool { return unicode.IsPunct(r) }
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FA5) || (r >= 0x0800 && r <= 0x4E00) || (r >= 0xAC00 && r <= 0xD7FF)
}
func isPunctOrSymbolASCII(r rune) bool {
	switch r {
	case '$', '+', '<', '=', '>', '^', '~', '|':
		return true
	}
	return unicode.IsPunct(r)
}
