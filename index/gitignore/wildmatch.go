// Package gitignore decides which paths of a repository are ignored by its
// .gitignore files, with git's own pattern rules (wildmatch in pathname
// mode, negation, directory-only and anchored patterns, nested files), so the
// indexer sees the files a developer sees in `git status`.
package gitignore

// Match reports whether name, a slash-separated path, matches the glob
// pattern under git's wildmatch rules in pathname mode: `*` and `?` and
// bracket expressions never match '/', `**` as a whole path component matches
// any number of directories (including none), `\` quotes the next character.
// A malformed pattern (unclosed bracket, trailing backslash, unknown
// character class) matches nothing. Like git, it compares bytes: `?` and a
// bracket expression match one byte, not one UTF-8 character.
func Match(pattern, name string) bool {
	m := matcher{p: []byte(pattern), t: []byte(name)}
	m.failed = make(map[[2]int]bool)
	return m.match(0, 0)
}

// matcher holds one pattern/text pair and a memo of (pattern, text) offsets
// already known not to match, which keeps patterns with many stars linear
// enough on long paths.
type matcher struct {
	p, t   []byte
	failed map[[2]int]bool
}

func (m *matcher) match(pi, ti int) bool {
	key := [2]int{pi, ti}
	if m.failed[key] {
		return false
	}
	ok := m.matchFrom(pi, ti)
	if !ok {
		m.failed[key] = true
	}
	return ok
}

func (m *matcher) matchFrom(pi, ti int) bool {
	p, t := m.p, m.t
	for pi < len(p) {
		switch c := p[pi]; c {
		case '\\':
			if pi+1 >= len(p) || ti >= len(t) || t[ti] != p[pi+1] {
				return false
			}
			pi, ti = pi+2, ti+1
		case '?':
			if ti >= len(t) || t[ti] == '/' {
				return false
			}
			pi, ti = pi+1, ti+1
		case '[':
			if ti >= len(t) || t[ti] == '/' {
				return false
			}
			next, ok := matchClass(p, pi, t[ti])
			if !ok {
				return false
			}
			pi, ti = next, ti+1
		case '*':
			return m.star(pi, ti)
		default:
			if ti >= len(t) || t[ti] != c {
				return false
			}
			pi, ti = pi+1, ti+1
		}
	}
	return ti == len(t)
}

// star matches a run of stars starting at p[pi] against t[ti:].
func (m *matcher) star(pi, ti int) bool {
	p, t := m.p, m.t
	first := pi
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	crossSlash := false
	if pi-first >= 2 && (first == 0 || p[first-1] == '/') &&
		(pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && pi+1 < len(p) && p[pi+1] == '/')) {
		crossSlash = true
		// "**/" also matches no directory at all.
		if pi < len(p) && p[pi] == '/' && m.match(pi+1, ti) {
			return true
		}
	}
	if pi == len(p) {
		if crossSlash {
			return true
		}
		for _, r := range t[ti:] {
			if r == '/' {
				return false
			}
		}
		return true
	}
	for ; ; ti++ {
		if m.match(pi, ti) {
			return true
		}
		if ti >= len(t) || (!crossSlash && t[ti] == '/') {
			return false
		}
	}
}

// matchClass matches r against the bracket expression starting at p[pi]
// ('['). It returns the index after the closing ']' and whether r matched; a
// malformed expression never matches.
func matchClass(p []byte, pi int, r byte) (int, bool) {
	i := pi + 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	matched := false
	first := true
	for {
		if i >= len(p) {
			return 0, false
		}
		c := p[i]
		if c == ']' && !first {
			i++
			break
		}
		first = false
		if c == '\\' {
			i++
			if i >= len(p) {
				return 0, false
			}
			c = p[i]
		} else if c == '[' && i+1 < len(p) && p[i+1] == ':' {
			end := classEnd(p, i+2)
			if end < 0 {
				// Not a class name: '[' is an ordinary member.
				if r == '[' {
					matched = true
				}
				i++
				continue
			}
			in, known := inClass(string(p[i+2:end]), r)
			if !known {
				return 0, false
			}
			matched = matched || in
			i = end + 2
			continue
		}
		if i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']' {
			hi := p[i+2]
			i += 3
			if hi == '\\' {
				if i >= len(p) {
					return 0, false
				}
				hi = p[i]
				i++
			}
			if c <= r && r <= hi {
				matched = true
			}
			continue
		}
		if c == r {
			matched = true
		}
		i++
	}
	return i, matched != negate
}

// classEnd returns the index of the ':' of the ":]" closing a POSIX class
// name that starts at p[i], or -1.
func classEnd(p []byte, i int) int {
	for j := i; j+1 < len(p); j++ {
		if p[j] == ':' && p[j+1] == ']' {
			return j
		}
		if p[j] == ']' {
			return -1
		}
	}
	return -1
}

// inClass reports whether r is in the POSIX class name (ASCII semantics, as
// git's ctype) and whether the name is known.
func inClass(name string, r byte) (in, known bool) {
	isDigit := '0' <= r && r <= '9'
	isLower := 'a' <= r && r <= 'z'
	isUpper := 'A' <= r && r <= 'Z'
	switch name {
	case "alnum":
		return isDigit || isLower || isUpper, true
	case "alpha":
		return isLower || isUpper, true
	case "blank":
		return r == ' ' || r == '\t', true
	case "cntrl":
		return r < 0x20 || r == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return 0x21 <= r && r <= 0x7e, true
	case "lower":
		return isLower, true
	case "print":
		return 0x20 <= r && r <= 0x7e, true
	case "punct":
		return 0x21 <= r && r <= 0x7e && !isDigit && !isLower && !isUpper, true
	case "space":
		return r == ' ' || ('\t' <= r && r <= '\r'), true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || ('a' <= r && r <= 'f') || ('A' <= r && r <= 'F'), true
	}
	return false, false
}
