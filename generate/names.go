package generate

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"

	"actor/index"
	"actor/retrieve"
	"actor/symbols"
)

// whyIndex is the trace's reason for a snippet of the name index.
const whyIndex = "an index of the names in scope"

// nameIndex is the index of the names in scope of t (ContextOptions.NameIndex):
// one line each (pysrc.File.Signature: a constant's statement, a
// function's or class's signature), taken best first while they fit
// tokens, leaving out those the file code shows. Best first: the names the
// target's signature and docstring mention, then those sharing the most
// words with them (IP_V6_RE for is_ip_v6: ip, v6), then the nearest
// (symbols.Table.InScope's order). It returns the index as one snippet per
// defining file and the tokens it takes.
func (f *framer) nameIndex(t retrieve.Target, code retrieve.FileCode, tc retrieve.TokenCounter, tokens int) ([]retrieve.Result, int, error) {
	fn := t.Function
	tg := f.corpus.Symbols.Locate(t.Path, fn.DeclStart, fn.End, t.Prompt)
	var picked []symbols.Found
	headed := map[string]bool{} // classes whose members have their header counted
	used := 0
	found := byWords(f.corpus.Symbols.InScope(tg), t.Prompt)
	for _, s := range found {
		if f.opt.InFile && s.Path == t.Path && code.Shows(s.Start, s.End) {
			continue
		}
		text := indexLine(s) + "\n"
		header := s.Class != "" && !headed[s.Path+"\x00"+s.Class]
		if header {
			text += "class " + s.Class + ":\n"
		}
		n, err := tc.CountTokens(text)
		if err != nil {
			return nil, 0, err
		}
		if used+n > tokens {
			continue
		}
		picked, used = append(picked, s), used+n
		if header {
			headed[s.Path+"\x00"+s.Class] = true
		}
	}
	return indexSnippets(picked), used, nil
}

// byWords orders found (stably) by what its names share with prompt: the
// names prompt mentions whole first, then by the number of words they
// share with it (nameWords).
func byWords(found []symbols.Found, prompt string) []symbols.Found {
	words := nameWords(prompt)
	type scored struct {
		symbols.Found
		score int
	}
	ss := make([]scored, len(found))
	for i, s := range found {
		ss[i].Found = s
		if words[strings.ToLower(s.Name)] {
			ss[i].score = math.MaxInt
			continue
		}
		for w := range nameWords(s.Name) {
			if words[w] {
				ss[i].score++
			}
		}
	}
	slices.SortStableFunc(ss, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	for i := range ss {
		found[i] = ss[i].Found
	}
	return found
}

// indexLine is one name of the index: its signature, indented under its
// class for a member, with the name the target's file binds it to when
// that differs.
func indexLine(s symbols.Found) string {
	line := s.Signature
	if s.Class != "" {
		line = "    " + line
	}
	if bound := strings.TrimPrefix(s.Bound, "self."); bound != s.Name && s.Via == "import" {
		line += "  # imported as " + bound
	}
	return line
}

// indexSnippets groups the picked names by their file, each in the file's
// order with a class's members under a "class C:" header; the file with
// the best-ranked name comes last, nearest the target.
func indexSnippets(picked []symbols.Found) []retrieve.Result {
	var paths []string
	byPath := map[string][]symbols.Found{}
	for _, s := range picked {
		if byPath[s.Path] == nil {
			paths = append(paths, s.Path)
		}
		byPath[s.Path] = append(byPath[s.Path], s)
	}
	slices.Reverse(paths)
	out := make([]retrieve.Result, 0, len(paths))
	for _, p := range paths {
		fs := byPath[p]
		slices.SortStableFunc(fs, func(a, b symbols.Found) int { return a.Start - b.Start })
		var lines []string
		open, classLine := "", -1 // the class whose members follow; its own line
		start, end := fs[0].Start, fs[0].End
		for _, s := range fs {
			switch {
			case s.Class != "" && s.Class != open:
				lines = append(lines, "class "+s.Class+":")
				open, classLine = s.Class, -1
			case s.Class != "" && classLine >= 0:
				// The class's own line heads its members.
				if i := strings.LastIndex(lines[classLine], " ..."); i >= 0 {
					lines[classLine] = lines[classLine][:i] + lines[classLine][i+len(" ..."):]
				}
				classLine = -1
			case s.Class == "" && s.Kind == "class":
				open, classLine = s.Name, len(lines)
			case s.Class == "":
				open, classLine = "", -1
			}
			lines = append(lines, indexLine(s))
			start, end = min(start, s.Start), max(end, s.End)
		}
		out = append(out, retrieve.Result{Candidate: index.Candidate{Path: p, Start: start, End: end, Text: strings.Join(lines, "\n")},
			Source: retrieve.SourceSymbol, Why: whyIndex})
	}
	return out
}

// nameWords is the set of lower-case words of text's identifiers, each
// identifier whole and split at underscores and case changes
// (IP_V6_RE: ip_v6_re, ip, v6, re; isIPv6: isipv6, is, ipv6), less
// one-letter words.
func nameWords(text string) map[string]bool {
	out := map[string]bool{}
	for _, id := range identifier.FindAllString(text, -1) {
		if len(id) > 1 {
			out[strings.ToLower(id)] = true
		}
		for _, part := range strings.Split(id, "_") {
			start := 0
			for i := 1; i <= len(part); i++ {
				if i == len(part) || isUpper(part[i]) && !isUpper(part[i-1]) {
					if w := strings.ToLower(part[start:i]); len(w) > 1 {
						out[w] = true
					}
					start = i
				}
			}
		}
	}
	return out
}

var identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
