package tokenizer

import (
	"slices"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
)

// The regexes are the specification of the hand-written matchers: this
// file runs them through regexp2 (a backtracking engine with the same
// semantics as llama.cpp's std::regex for these patterns) and requires
// identical splits.

var regexCache sync.Map // pattern -> *regexp2.Regexp

func compileRegex(t testing.TB, pattern string) *regexp2.Regexp {
	if re, ok := regexCache.Load(pattern); ok {
		return re.(*regexp2.Regexp)
	}
	re, err := regexp2.Compile(pattern, regexp2.None, regexp2.OptionMaxBacktrackingStackSize(-1))
	if err != nil {
		t.Fatalf("regex %q: %v", pattern, err)
	}
	regexCache.Store(pattern, re)
	return re
}

// regexSplit is a matcher running re: matches and the gaps between them,
// the regex seeing the piece as its whole input.
func regexSplit(t testing.TB, re *regexp2.Regexp, runes []rune, pc span, out []span) []span {
	e := emitter{out: out, prev: pc.a}
	err := re.FindRunesMatches(runes[pc.a:pc.b], 0, func(m regexp2.MatchView) bool {
		if i, n, ok := m.GroupRange(0); ok && n > 0 {
			e.match(pc.a+i, pc.a+i+n)
		}
		return true
	})
	if err != nil {
		t.Fatalf("regex %s: %v", re, err)
	}
	return e.finish(pc.b)
}

func toRunes(s string) []rune {
	var r []rune
	for len(s) > 0 {
		c, n := utf8.DecodeRuneInString(s)
		r = append(r, c)
		s = s[n:]
	}
	return r
}

// allSteps lists every distinct step of every pre-tokenizer.
func allSteps() []step {
	var out []step
	seen := map[string]bool{}
	for _, spec := range preSpecs {
		for _, s := range spec.steps {
			if !seen[s.regex] {
				seen[s.regex] = true
				out = append(out, s)
			}
		}
	}
	for _, s := range knownSplits {
		out = append(out, s)
	}
	return out
}

// FuzzMatchersMatchRegexes compares every matcher with its regex on
// arbitrary input, whole and on a sub-piece (so that the matchers' view of
// the piece's ends is checked too).
func FuzzMatchersMatchRegexes(f *testing.F) {
	for _, s := range []string{"Hello   world\n\n  x123456 I'M don't 3.5", "'s 'S 'Re 'vE 'LL 'd '", " \t\n\r\n  \r x\u00a0\u3000y\u0085",
		"日本語 中文 한국어 ࠀ", "$+<=>^~| !\"#%&'()*,-./:;?@[\\]_{}", "٣٤٥ ¹²³ Ⅻ", "\xff\xfe a\xc3", "((foo)) a.b(c)\n\t\tx",
		"1234567", "    \n    \n  ", "é\u0301 ǅ", "a\u200bb", "x'ſ 'ſt 'S"} {
		f.Add(s, uint8(0), uint8(0))
	}
	steps := allSteps()
	f.Fuzz(func(t *testing.T, s string, cutA, cutB uint8) {
		runes := toRunes(s)
		pieces := []span{{0, len(runes)}}
		if a, b := int(cutA), len(runes)-int(cutB); a < b {
			pieces = append(pieces, span{a, b})
		}
		for _, st := range steps {
			re := compileRegex(t, st.regex)
			for _, pc := range pieces {
				want := regexSplit(t, re, runes, pc, nil)
				got := st.match(runes, pc, nil)
				if !slices.Equal(got, want) {
					t.Fatalf("%s on %q [%d,%d):\n got %v\nwant %v", st.regex, string(runes), pc.a, pc.b, got, want)
				}
			}
		}
	})
}
