package codesrc

import (
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"
)

// Def is a definition in a source file.
type Def struct {
	// Name is the defined name (a Rust impl's type, a C function's
	// declarator); Kind what it defines ("function", "method", "class",
	// "type", ...).
	Name, Kind string
	// Start and End are its 1-based lines.
	Start, End int
	// Header is its first lines up to the line where its body starts
	// (the signature), at most headerLines.
	Header string
}

// headerLines bounds a definition's header.
const headerLines = 4

// Definitions returns the definitions of a source file in source order,
// nested ones included (methods in classes); nil for a file without a
// grammar. A definition without a name (an anonymous struct) is left out.
func Definitions(file string, src []byte) []Def {
	l := Lang(file)
	if l == nil {
		return nil
	}
	p := ts.NewParser()
	defer p.Close()
	if p.SetLanguage(l.lang) != nil {
		return nil
	}
	tree := p.Parse(src, nil)
	if tree == nil {
		return nil
	}
	defer tree.Close()
	lines := strings.Split(string(src), "\n")
	var out []Def
	var walk func(n *ts.Node)
	walk = func(n *ts.Node) {
		if kind, ok := l.defs[n.Kind()]; ok {
			if name := defName(n, src); name != "" {
				start, end := int(n.StartPosition().Row)+1, int(n.EndPosition().Row)+1
				if n.EndPosition().Column == 0 && end > start {
					end--
				}
				out = append(out, Def{Name: name, Kind: kind, Start: start, End: end, Header: header(n, lines, start)})
			}
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i))
		}
	}
	walk(tree.RootNode())
	return out
}

// defName reads the name a defining node defines ("" when it defines
// none worth finding: an arrow function's variable, yes; a plain
// variable, a struct without a body, no).
func defName(n *ts.Node, src []byte) string {
	field := func(name string) *ts.Node { return n.ChildByFieldName(name) }
	switch n.Kind() {
	case "variable_declarator":
		v := field("value")
		if v == nil || (v.Kind() != "arrow_function" && v.Kind() != "function_expression" && v.Kind() != "function" && v.Kind() != "class") {
			return ""
		}
	case "struct_specifier", "union_specifier", "enum_specifier", "class_specifier":
		if field("body") == nil {
			return ""
		}
	case "impl_item":
		if t := field("type"); t != nil {
			return t.Utf8Text(src)
		}
	case "function_definition":
		if d := field("declarator"); d != nil { // C, C++ (Python has a name)
			return declared(d, src)
		}
	case "type_definition":
		if d := field("declarator"); d != nil {
			return declared(d, src)
		}
	}
	if name := field("name"); name != nil {
		return name.Utf8Text(src)
	}
	return ""
}

// declared follows a C declarator to the name it declares.
func declared(d *ts.Node, src []byte) string {
	for d != nil {
		switch d.Kind() {
		case "identifier", "field_identifier", "type_identifier", "qualified_identifier", "destructor_name",
			"operator_name", "primitive_type":
			return d.Utf8Text(src)
		}
		next := d.ChildByFieldName("declarator")
		if next == nil && d.NamedChildCount() > 0 {
			next = d.NamedChild(0)
		}
		d = next
	}
	return ""
}

// header is a definition's lines from its first to the one where its
// body starts, at most headerLines.
func header(n *ts.Node, lines []string, start int) string {
	last := start
	if b := n.ChildByFieldName("body"); b != nil {
		last = int(b.StartPosition().Row) + 1
	}
	last = min(last, start+headerLines-1, len(lines))
	return strings.Join(lines[start-1:last], "\n")
}
