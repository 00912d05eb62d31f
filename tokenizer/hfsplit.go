package tokenizer

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// Splitting text by a pattern as Hugging Face tokenizers does: the pattern
// finds delimiters, a behaviour decides what becomes of them.

// behavior is a SplitDelimiterBehavior: what happens to the delimiters.
type behavior uint8

const (
	behRemoved            behavior = iota // delimiters are dropped
	behIsolated                           // delimiters are pieces of their own
	behMergedWithPrevious                 // a delimiter joins the piece before it
	behMergedWithNext                     // a delimiter joins the piece after it
	behContiguous                         // runs of delimiters form one piece
)

// behaviors maps the JSON names (and the Python API's) to behaviours.
var behaviors = map[string]behavior{
	"Removed": behRemoved, "Isolated": behIsolated, "MergedWithPrevious": behMergedWithPrevious,
	"MergedWithNext": behMergedWithNext, "Contiguous": behContiguous,
	"removed": behRemoved, "isolated": behIsolated, "merged_with_previous": behMergedWithPrevious,
	"merged_with_next": behMergedWithNext, "contiguous": behContiguous,
}

// mark is a byte range of a text and whether the pattern matched it; the
// marks of a text cover it in order, matches and the gaps between them.
type mark struct {
	span
	match bool
}

// finder lists the matches of a pattern in s as marks.
type finder interface {
	find(s string, out []mark) []mark
}

// classFinder matches every single character of a class.
type classFinder func(rune) bool

func (f classFinder) find(s string, out []mark) []mark {
	prev := 0
	for i, r := range s {
		if f(r) {
			if prev < i {
				out = append(out, mark{span{prev, i}, false})
			}
			n := utf8.RuneLen(r)
			if r == utf8.RuneError {
				_, n = utf8.DecodeRuneInString(s[i:])
			}
			out = append(out, mark{span{i, i + n}, true})
			prev = i + n
		}
	}
	if prev < len(s) {
		out = append(out, mark{span{prev, len(s)}, false})
	}
	return out
}

// literalFinder matches a non-empty string, leftmost first, without
// overlaps.
type literalFinder string

func (f literalFinder) find(s string, out []mark) []mark {
	prev := 0
	for {
		j := strings.Index(s[prev:], string(f))
		if j < 0 {
			break
		}
		j += prev
		if j > prev {
			out = append(out, mark{span{prev, j}, false})
		}
		out = append(out, mark{span{j, j + len(f)}, true})
		prev = j + len(f)
	}
	if prev < len(s) {
		out = append(out, mark{span{prev, len(s)}, false})
	}
	return out
}

// regexFinder runs a regex through regexp2, iterating over matches as
// Oniguruma's find_iter does: an empty match right where the previous
// match ended is skipped and the search moves on by one character.
type regexFinder struct{ re *regexp2.Regexp }

// compileHFRegex compiles a tokenizer.json regex, written for Oniguruma
// (Ruby syntax), for regexp2 (.NET syntax): their backtracking semantics
// agree; ^ and $ are line anchors in Ruby (Multiline in .NET), Ruby's (?m)
// is .NET's (?s), and \w and \h are rewritten by onigToNET.
func compileHFRegex(pattern string) (regexFinder, error) {
	re, err := regexp2.Compile(onigToNET(pattern), regexp2.Multiline, regexp2.OptionMaxBacktrackingStackSize(-1))
	if err != nil {
		return regexFinder{}, fmt.Errorf("regex %q: %v", pattern, err)
	}
	return regexFinder{re}, nil
}

// onigWord is Oniguruma's Unicode \w inside brackets: alphabetic
// characters (letters, Nl, and the symbols that are Other_Alphabetic),
// marks, decimal digits and connector punctuation. Outside brackets it also
// matches ² ³ ¹ ¼ ½ ¾ (Latin-1's table). regexp2's \w, .NET's, differs:
// no Nl, Mc or Me, but ZWJ and ZWNJ.
const (
	onigWord      = `\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}Ⓐ-ⓩ🄰-🅉🅐-🅩🅰-🆉`
	onigWordBare  = "[" + onigWord + "²³¹¼-¾]"
	onigNWordBare = "[^" + onigWord + "²³¹¼-¾]"
)

// onigToNET rewrites \w and \W (and \h, Oniguruma's hex digit) into
// explicit classes with Oniguruma's meaning, \b and \B into lookarounds
// on them (\d and \s already agree), and
// the m of inline options ((?m:...), dot matches newline) into .NET's s.
func onigToNET(p string) string {
	var sb strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '(' && !inClass && strings.HasPrefix(p[i:], "(?"):
			sb.WriteString("(?")
			for i += 2; i < len(p) && (p[i] == '-' || 'a' <= p[i] && p[i] <= 'z'); i++ {
				if p[i] == 'm' {
					sb.WriteByte('s')
				} else {
					sb.WriteByte(p[i])
				}
			}
			i--
			continue
		case c == '\\' && i+1 < len(p):
			i++
			switch e := p[i]; {
			case e == 'w' && inClass:
				sb.WriteString(onigWord)
			case e == 'w':
				sb.WriteString(onigWordBare)
			case e == 'W' && !inClass:
				sb.WriteString(onigNWordBare)
			case e == 'b' && !inClass:
				sb.WriteString("(?:(?<=" + onigWordBare + ")(?!" + onigWordBare + ")|(?<!" + onigWordBare + ")(?=" + onigWordBare + "))")
			case e == 'B' && !inClass:
				sb.WriteString("(?:(?<=" + onigWordBare + ")(?=" + onigWordBare + ")|(?<!" + onigWordBare + ")(?!" + onigWordBare + "))")
			case e == 'h' && inClass:
				sb.WriteString("0-9a-fA-F")
			case e == 'h':
				sb.WriteString("[0-9a-fA-F]")
			default:
				sb.WriteByte(c)
				sb.WriteByte(e)
			}
			continue
		case c == '[' && !inClass:
			inClass = true
			sb.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' { // a ] right after [ or [^ is literal
				i++
				sb.WriteByte('^')
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
				sb.WriteByte(']')
			}
			continue
		case c == ']' && inClass:
			inClass = false
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// runeScratch holds the decoded runes of a text and their byte offsets.
type runeScratch struct {
	runes []rune
	offs  []int
}

var runePool = sync.Pool{New: func() any { return new(runeScratch) }}

func (f regexFinder) find(s string, out []mark) []mark {
	sc := runePool.Get().(*runeScratch)
	defer runePool.Put(sc)
	runes, offs := sc.runes[:0], sc.offs[:0]
	for i, r := range s {
		runes = append(runes, r)
		offs = append(offs, i)
	}
	offs = append(offs, len(s))
	sc.runes, sc.offs = runes, offs
	prev, from, lastEnd := 0, 0, -1
	for from <= len(runes) {
		a, n, ok := 0, 0, false
		err := f.re.FindRunesMatches(runes, from, func(m regexp2.MatchView) bool {
			a, n, ok = m.GroupRange(0)
			return false
		})
		if err != nil || !ok {
			break
		}
		e := a + n
		if n == 0 && e == lastEnd {
			from++
			continue
		}
		from, lastEnd = e, e
		if prev != a {
			out = append(out, mark{span{offs[prev], offs[a]}, false})
		}
		out = append(out, mark{span{offs[a], offs[e]}, true})
		prev = e
	}
	if prev != len(runes) {
		out = append(out, mark{span{offs[prev], len(s)}, false})
	}
	return out
}

// applyBehavior turns the marks of a text into the ranges of its pieces
// under behaviour b (empty ranges included; callers drop them).
func applyBehavior(marks []mark, b behavior, out []span) []span {
	start := len(out)
	switch b {
	case behIsolated:
		for _, m := range marks {
			out = append(out, m.span)
		}
	case behRemoved:
		for _, m := range marks {
			if !m.match {
				out = append(out, m.span)
			}
		}
	case behContiguous, behMergedWithPrevious:
		prev := false
		for _, m := range marks {
			join := m.match == prev
			if b == behMergedWithPrevious {
				join = m.match && !prev
			}
			if join && len(out) > start {
				out[len(out)-1].b = m.b
			} else {
				out = append(out, m.span)
			}
			prev = m.match
		}
	case behMergedWithNext:
		prev := false
		for i := len(marks) - 1; i >= 0; i-- {
			m := marks[i]
			if m.match && !prev && len(out) > start {
				out[len(out)-1].a = m.a
			} else {
				out = append(out, m.span)
			}
			prev = m.match
		}
		slices.Reverse(out[start:])
	}
	return out
}

// splitScratchHF holds the reusable buffers of one pattern split.
type splitScratchHF struct {
	marks []mark
	spans []span
}

var splitHFPool = sync.Pool{New: func() any { return new(splitScratchHF) }}

// splitPattern appends the non-empty pieces of s split by f under
// behaviour b; invert swaps what counts as a match.
func splitPattern(s string, f finder, b behavior, invert bool, out []string) []string {
	sc := splitHFPool.Get().(*splitScratchHF)
	defer splitHFPool.Put(sc)
	sc.marks = f.find(s, sc.marks[:0])
	if invert {
		for i := range sc.marks {
			sc.marks[i].match = !sc.marks[i].match
		}
	}
	sc.spans = applyBehavior(sc.marks, b, sc.spans[:0])
	for _, sp := range sc.spans {
		if sp.b > sp.a {
			out = append(out, s[sp.a:sp.b])
		}
	}
	return out
}

// replaceAll replaces every match of f in s by content.
func replaceAll(s string, f finder, content string) string {
	if lit, ok := f.(literalFinder); ok {
		return strings.ReplaceAll(s, string(lit), content)
	}
	sc := splitHFPool.Get().(*splitScratchHF)
	defer splitHFPool.Put(sc)
	sc.marks = f.find(s, sc.marks[:0])
	var sb strings.Builder
	sb.Grow(len(s))
	for _, m := range sc.marks {
		if m.match {
			sb.WriteString(content)
		} else {
			sb.WriteString(s[m.a:m.b])
		}
	}
	return sb.String()
}

// newFinder builds the finder of a tokenizer.json pattern: {"String": s}
// (a literal) or {"Regex": r}.
func newFinder(p hfPattern) (finder, error) {
	switch {
	case p.Regex != nil:
		return compileHFRegex(*p.Regex)
	case p.String != nil && *p.String != "":
		return literalFinder(*p.String), nil
	case p.String != nil:
		return compileHFRegex("") // matches the empty string everywhere, as in tokenizers
	}
	return nil, fmt.Errorf("pattern has neither String nor Regex")
}

// hfPattern is the JSON form of a Split or Replace pattern.
type hfPattern struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}
