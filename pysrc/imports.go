package pysrc

import (
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"
)

// Import is one name an import statement binds.
//
//	import a.b          → {Module: "a.b", Bound: "a"}       (binds the package a)
//	import a.b as m     → {Module: "a.b", Bound: "m"}
//	from .x import y    → {Module: ".x", Name: "y", Bound: "y"}
//	from x import y as z→ {Module: "x", Name: "y", Bound: "z"}
//	from x import *     → {Module: "x", Name: "*"}
type Import struct {
	// Module is the dotted module as written, relative ones with their
	// leading dots.
	Module string
	// Name is the imported name of a from-import ("*" for a star import);
	// "" for a plain import.
	Name string
	// Bound is the name the statement binds in the importing module ("" for
	// a star import).
	Bound string
	// Line and End are the statement's 1-based first and last lines.
	Line, End int
}

// Imports returns the import statements' bindings at module level (also
// inside module-level if/try blocks), in source order.
func (f *File) Imports() []Import {
	var out []Import
	f.importsIn(f.tree.RootNode(), &out)
	return out
}

func (f *File) importsIn(block *ts.Node, out *[]Import) {
	for _, st := range Statements(block) {
		line, end := int(st.StartPosition().Row)+1, int(st.EndPosition().Row)+1
		switch st.Kind() {
		case "import_statement":
			for _, c := range st.ChildrenByFieldName("name", st.Walk()) {
				mod, as := f.aliased(&c)
				bound := as
				if bound == "" {
					bound, _, _ = strings.Cut(mod, ".")
				}
				*out = append(*out, Import{Module: mod, Bound: bound, Line: line, End: end})
			}
		case "import_from_statement":
			mod := ""
			if m := st.ChildByFieldName("module_name"); m != nil {
				mod = f.Text(m)
			}
			if hasChild(st, "wildcard_import") {
				*out = append(*out, Import{Module: mod, Name: "*", Line: line, End: end})
				continue
			}
			for _, c := range st.ChildrenByFieldName("name", st.Walk()) {
				name, as := f.aliased(&c)
				if as == "" {
					as = name
				}
				*out = append(*out, Import{Module: mod, Name: name, Bound: as, Line: line, End: end})
			}
		case "if_statement", "try_statement", "block", "else_clause", "elif_clause", "except_clause", "finally_clause":
			f.importsIn(st, out)
		}
	}
}

// aliased reads a dotted_name or an aliased_import: the name and its alias
// ("" when there is none).
func (f *File) aliased(n *ts.Node) (name, as string) {
	if n.Kind() == "aliased_import" {
		if nm := n.ChildByFieldName("name"); nm != nil {
			name = f.Text(nm)
		}
		if a := n.ChildByFieldName("alias"); a != nil {
			as = f.Text(a)
		}
		return name, as
	}
	return f.Text(n), ""
}

func hasChild(n *ts.Node, kind string) bool {
	for i := uint(0); i < n.ChildCount(); i++ {
		if n.Child(i).Kind() == kind {
			return true
		}
	}
	return false
}
