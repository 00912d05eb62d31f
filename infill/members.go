package infill

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"actor/codesrc"
	"actor/generate"
	"actor/retrieve"
	"actor/tokenizer"
)

// A line at the cursor most often needs a name the prompt's text of the
// file lacks when it reaches a member of a type: `this._registerOption`,
// `cmd.InheritedFlags()`, `Op::LessEq`. Members list, one line each (its
// signature's first line), the members of the types the cursor is in:
// the type whose method holds the cursor (its class, impl, Go receiver),
// the types its signature names, then those the lines above it name,
// the members used most in the repository first while they fit.

// memberUse is a use of a member: `.name` or `::name`.
var memberUse = regexp.MustCompile(`(?:\.|::)([A-Za-z_][A-Za-z0-9_]*)`)

// countUses adds a file's member uses to r.uses.
func (r *Repository) countUses(src []byte) {
	for _, m := range memberUse.FindAllSubmatch(src, -1) {
		r.uses[string(m[1])]++
	}
}

// memberLine is how a member shows: a field's line, a method's
// signature's first line without the body that starts there.
func memberLine(d namedDef) string {
	line, _, _ := strings.Cut(d.Header, "\n")
	if d.Kind != "field" {
		if i := strings.Index(line, " {"); i >= 0 {
			line = line[:i]
		}
	}
	return strings.TrimRight(strings.TrimSuffix(strings.TrimRight(line, " \t"), "{"), " \t")
}

// scopeTypes are the types with members the cursor reaches, nearest
// first: the owners of the definitions around the cursor (innermost
// first), the types the innermost one's signature names, then the types
// named in query (the lines above the cursor), the nearest name first.
func (r *Repository) scopeTypes(c Cursor, query string) []string {
	var out []string
	add := func(t string) {
		if len(r.members[r.typeKey(c.Path, t)]) > 0 && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	var around []namedDef
	for _, d := range r.fileDefs[c.Path] {
		if d.Start <= c.Line && c.Line <= d.End {
			around = append(around, namedDef{Def: d})
		}
	}
	slices.SortStableFunc(around, func(a, b namedDef) int { return -cmp.Compare(a.Start, b.Start) })
	for _, d := range around {
		add(d.Owner)
		if typeKinds[d.Kind] || d.Kind == "impl" {
			add(d.Name)
		}
	}
	if len(around) > 0 {
		for _, w := range identifier.FindAllString(around[0].Header, -1) {
			add(w)
		}
	}
	words := identifier.FindAllString(query, -1)
	slices.Reverse(words)
	for _, w := range words {
		add(w)
	}
	return out
}

// memberChunks are the members of the cursor's types (scopeTypes) that
// fit tokens, the most used first, those the prompt shows left out: one
// chunk per file, its members' lines in the file's order.
func (r *Repository) memberChunks(tok *tokenizer.Tokenizer, c Cursor, query string, tokens int) ([]namedChunk, error) {
	tc := generate.TokenCounter{Tok: tok, Special: true}
	first, last := c.Line-c.Above, c.Line+c.Below
	words := subwords(query + "\n" + r.header(c))
	near := func(name string) float64 {
		parts := subwords(name)
		n := 0
		for w := range parts {
			if words[w] {
				n++
			}
		}
		return float64(n) / float64(max(1, len(parts)))
	}
	var kept []namedDef
	paths := map[string]bool{}
	used := 0
	for _, t := range r.scopeTypes(c, query) {
		ms := slices.Clone(r.members[r.typeKey(c.Path, t)])
		slices.SortStableFunc(ms, func(a, b namedDef) int {
			return cmp.Or(-cmp.Compare(near(a.Name), near(b.Name)), -cmp.Compare(r.uses[a.Name], r.uses[b.Name]))
		})
		for _, m := range ms {
			if m.Path == c.Path && m.Start >= first && m.Start <= last || slices.ContainsFunc(kept, func(k namedDef) bool {
				return k.Path == m.Path && k.Start == m.Start
			}) {
				continue // the prompt shows it, or another type listed it
			}
			text := memberLine(m) + "\n"
			if !paths[m.Path] {
				text = retrieve.FileSepToken + m.Path + "\n" + text
			}
			n, err := tc.CountTokens(text)
			if err != nil {
				return nil, fmt.Errorf("counting context tokens: %w", err)
			}
			if used+n > tokens {
				continue
			}
			kept, used, paths[m.Path] = append(kept, m), used+n, true
		}
	}
	slices.SortFunc(kept, func(a, b namedDef) int { return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Start, b.Start)) })
	var out []namedChunk
	for _, m := range kept {
		if len(out) > 0 && out[len(out)-1].Path == m.Path {
			last := &out[len(out)-1]
			last.Text += memberLine(m) + "\n"
			last.end = m.End
			continue
		}
		out = append(out, namedChunk{Chunk{Path: m.Path, Text: memberLine(m) + "\n", Source: SourceMember}, m.Start, m.End})
	}
	return out, nil
}

// typeKey names a type of the language of a file: types of one name in
// two languages are two types.
func (r *Repository) typeKey(path, name string) string {
	if l := codesrc.Lang(path); l != nil {
		return l.Name + " " + name
	}
	return name
}

// header is the signature of the innermost definition around the cursor.
func (r *Repository) header(c Cursor) string {
	h, start := "", 0
	for _, d := range r.fileDefs[c.Path] {
		if d.Start <= c.Line && c.Line <= d.End && d.Start >= start {
			h, start = d.Header, d.Start
		}
	}
	return h
}

// subwords are the lower-cased words of a text's identifiers, split at
// underscores and case changes (allowUnknownOption: allow, unknown,
// option).
func subwords(text string) map[string]bool {
	out := map[string]bool{}
	for _, id := range identifier.FindAllString(text, -1) {
		start := 0
		for i := 1; i <= len(id); i++ {
			if i == len(id) || id[i] == '_' || isUpper(id[i]) && !isUpper(id[i-1]) {
				if w := strings.ToLower(strings.Trim(id[start:i], "_")); len(w) > 1 {
					out[w] = true
				}
				start = i
			}
		}
	}
	return out
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
