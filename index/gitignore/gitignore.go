package gitignore

import (
	"path"
	"strings"
)

// Pattern is one line of a .gitignore file.
type Pattern struct {
	glob     string // wildmatch pattern, without '!', leading '/' or trailing '/'
	negate   bool   // "!pattern": re-include what an earlier pattern excluded
	dirOnly  bool   // "pattern/": matches directories only
	anchored bool   // contains a '/': matched against the path from the file's folder
}

// List is the parsed content of one .gitignore file, whose patterns apply to
// paths under Base (slash-separated, relative to the repository root, "" for
// the root itself).
type List struct {
	Base     string
	Patterns []Pattern
}

// Parse reads the lines of a .gitignore file found in folder base: blank
// lines and '#' comments are skipped, unescaped trailing spaces dropped, '!'
// negates, a trailing '/' restricts to directories, and a '/' anywhere else
// anchors the pattern to base.
func Parse(base string, data []byte) *List {
	l := &List{Base: strings.Trim(base, "/")}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		line = trimTrailingSpaces(line)
		if line == "" || line[0] == '#' {
			continue
		}
		var p Pattern
		if line[0] == '!' {
			p.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, "\\/") {
			p.dirOnly = true
			line = strings.TrimSuffix(line, "/")
		}
		if strings.Contains(line, "/") {
			p.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		if line == "" {
			continue
		}
		p.glob = line
		l.Patterns = append(l.Patterns, p)
	}
	return l
}

// trimTrailingSpaces drops trailing spaces that are not quoted by a
// backslash ("foo\ " keeps its space).
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") {
		body := s[:len(s)-1]
		bs := len(body) - len(strings.TrimRight(body, "\\"))
		if bs%2 == 1 {
			break
		}
		s = body
	}
	return s
}

// match reports whether the list decides about rel (relative to the
// repository root) and, if so, whether rel is ignored: the last matching
// pattern wins.
func (l *List) match(rel string, isDir bool) (decided, ignored bool) {
	sub := rel
	if l.Base != "" {
		if !strings.HasPrefix(rel, l.Base+"/") {
			return false, false
		}
		sub = rel[len(l.Base)+1:]
	}
	for i := len(l.Patterns) - 1; i >= 0; i-- {
		p := l.Patterns[i]
		if p.dirOnly && !isDir {
			continue
		}
		target := sub
		if !p.anchored {
			target = path.Base(sub)
		}
		if Match(p.glob, target) {
			return true, !p.negate
		}
	}
	return false, false
}

// Matcher is the stack of .gitignore lists in force for one folder: the
// repository's exclude file and root .gitignore first, deeper folders' files
// after them.
type Matcher struct {
	lists []*List
}

// With returns a matcher that also applies l, which takes precedence over
// the lists already present (it belongs to a deeper folder). The receiver is
// unchanged, so sibling folders can share their parent's matcher.
func (m *Matcher) With(l *List) *Matcher {
	if l == nil || len(l.Patterns) == 0 {
		return m
	}
	n := &Matcher{lists: make([]*List, 0, len(m.lists)+1)}
	n.lists = append(n.lists, m.lists...)
	n.lists = append(n.lists, l)
	return n
}

// Ignored reports whether the path rel (slash-separated, relative to the
// repository root) is ignored. Parent folders are not consulted: callers
// walk top-down and never descend into an ignored folder, which is how git
// makes "a file cannot be re-included if its folder is excluded" hold.
func (m *Matcher) Ignored(rel string, isDir bool) bool {
	for i := len(m.lists) - 1; i >= 0; i-- {
		if decided, ignored := m.lists[i].match(rel, isDir); decided {
			return ignored
		}
	}
	return false
}
