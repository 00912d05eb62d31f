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
	// Owner is the type a member belongs to: the class, interface, trait
	// or impl it is defined in, a Go method's receiver type; "" for a
	// top-level definition. Cursor completion lists a type's members by
	// it (the methods and fields a `this.`, `self.` or receiver reaches).
	Owner string
}

// headerLines bounds a definition's header.
const headerLines = 4

// Definitions returns the definitions of a source file in source order,
// nested ones included (methods in classes); nil for a file without a
// grammar. A definition without a name (an anonymous struct) is left out.
func Definitions(file string, src []byte) []Def {
	defs, _ := read(file, src)
	return defs
}

// Fields returns the fields of a source file's types, Kind "field", Header
// the field's line, Owner its type: a struct's or class's declared
// fields, an enum's variants, and the `this.x` a JavaScript or TypeScript
// class's methods assign (the first assignment of each). Nil for a file
// without a grammar; Python's are the symbol table's.
func Fields(file string, src []byte) []Def {
	_, fields := read(file, src)
	return fields
}

// read walks a file's syntax tree for its definitions and its fields.
func read(file string, src []byte) (defs, fields []Def) {
	l := Lang(file)
	if l == nil {
		return nil, nil
	}
	p := ts.NewParser()
	defer p.Close()
	if p.SetLanguage(l.lang) != nil {
		return nil, nil
	}
	tree := p.Parse(src, nil)
	if tree == nil {
		return nil, nil
	}
	defer tree.Close()
	lines := strings.Split(string(src), "\n")
	assigned := map[[2]string]bool{}
	var walk func(n *ts.Node, owner string)
	walk = func(n *ts.Node, owner string) {
		if kind, ok := l.defs[n.Kind()]; ok {
			if name := defName(n, src); name != "" {
				start, end := int(n.StartPosition().Row)+1, int(n.EndPosition().Row)+1
				if n.EndPosition().Column == 0 && end > start {
					end--
				}
				d := Def{Name: name, Kind: kind, Start: start, End: end, Header: header(n, lines, start), Owner: owner}
				if r := n.ChildByFieldName("receiver"); r != nil && n.Kind() == "method_declaration" {
					d.Owner = firstType(r, src) // Go
				}
				defs = append(defs, d)
				if owns[kind] {
					owner = typeName(name)
				}
			}
		} else if owner != "" && l.Name != "python" {
			if name := fieldName(n, src); name != "" && !assigned[[2]string{owner, name}] {
				assigned[[2]string{owner, name}] = true
				row := int(n.StartPosition().Row) + 1
				fields = append(fields, Def{Name: name, Kind: "field", Start: row, End: row, Header: lines[row-1], Owner: owner})
			}
		}
		for i := uint(0); i < n.NamedChildCount(); i++ {
			walk(n.NamedChild(i), owner)
		}
	}
	walk(tree.RootNode(), "")
	return defs, fields
}

// fieldName reads the name a node declares as a field of its owner ("" for
// a node that declares none): a field declaration, an enum's variant or
// constant, an assignment to `this.NAME`.
func fieldName(n *ts.Node, src []byte) string {
	switch n.Kind() {
	case "field_declaration", "field_definition", "public_field_definition", "property_signature",
		"enum_variant", "enum_constant", "enum_assignment":
		for _, f := range []string{"name", "property", "declarator"} {
			if c := n.ChildByFieldName(f); c != nil {
				if f == "declarator" {
					return declared(c, src)
				}
				return c.Utf8Text(src)
			}
		}
		if n.Kind() == "field_declaration" && n.ChildByFieldName("type") != nil { // a Go embedded type
			return typeName(strings.TrimPrefix(n.ChildByFieldName("type").Utf8Text(src), "*"))
		}
	case "assignment_expression":
		if left := n.ChildByFieldName("left"); left != nil && left.Kind() == "member_expression" {
			if obj := left.ChildByFieldName("object"); obj != nil && obj.Kind() == "this" {
				if prop := left.ChildByFieldName("property"); prop != nil {
					return prop.Utf8Text(src)
				}
			}
		}
	}
	return ""
}

// owns are the kinds of definitions whose nested definitions are their
// members.
var owns = map[string]bool{"class": true, "interface": true, "trait": true, "impl": true, "struct": true,
	"enum": true, "record": true, "type": true, "union": true}

// typeName is a type's name without its generic parameters or path (an
// impl of `Stack<T>` or `fmt::Display for a::Stack` owns Stack's members).
func typeName(name string) string {
	if i := strings.IndexAny(name, "<["); i >= 0 {
		name = name[:i]
	}
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	return strings.TrimSpace(name)
}

// firstType is the first type identifier under n (a Go receiver's type).
func firstType(n *ts.Node, src []byte) string {
	if n.Kind() == "type_identifier" {
		return n.Utf8Text(src)
	}
	for i := uint(0); i < n.NamedChildCount(); i++ {
		if t := firstType(n.NamedChild(i), src); t != "" {
			return t
		}
	}
	return ""
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
