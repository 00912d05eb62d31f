package pysrc

import (
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"
)

// Docstring is the project's one docstring rule, Python's own: a block's
// docstring is its first statement when that statement is a bare string
// literal, implicitly concatenated pieces included, none of them an f-string
// or a bytes literal (Python leaves __doc__ unset for those). It returns the
// statement and the text between the quotes (escape sequences as written,
// concatenated pieces joined); ok is false when the block has none.
func (f *File) Docstring(block *ts.Node) (stmt *ts.Node, content string, ok bool) {
	if block == nil {
		return nil, "", false
	}
	stmts := Statements(block)
	if len(stmts) == 0 || stmts[0].Kind() != "expression_statement" || stmts[0].NamedChildCount() != 1 {
		return nil, "", false
	}
	lit := stmts[0].NamedChild(0)
	var pieces []*ts.Node
	switch lit.Kind() {
	case "string":
		pieces = []*ts.Node{lit}
	case "concatenated_string":
		pieces = Statements(lit)
	default:
		return nil, "", false
	}
	var b strings.Builder
	for _, s := range pieces {
		if s.Kind() != "string" {
			return nil, "", false
		}
		start := s.NamedChild(0)
		if start == nil || start.Kind() != "string_start" || strings.ContainsAny(f.Text(start), "fFbB") {
			return nil, "", false
		}
		for _, c := range Children(s) {
			if c.Kind() == "string_content" || c.Kind() == "escape_sequence" {
				b.WriteString(f.Text(c))
			}
		}
	}
	return stmts[0], b.String(), true
}
