package pysrc

import (
	"sort"

	ts "github.com/tree-sitter/go-tree-sitter"
)

// Definition is a name bound by a def, class or assignment at module level
// or directly in a class body.
type Definition struct {
	Name    string
	InClass bool // a method or class attribute
	Start   int  // 1-based first line (decorators included)
	End     int  // 1-based last line
	// Kind is "def", "class" or "assign".
	Kind string
	// Class names the class whose body holds the definition ("" at module
	// level; the innermost class for nested ones).
	Class string
	// Bases are a class's base class expressions as written.
	Bases []string

	node *ts.Node // the def or class node (the statement for assignments)
}

// Definitions returns the module- and class-level definitions, looking
// inside module-level if/try/with/for blocks too (conditional definitions).
func (f *File) Definitions() []Definition {
	var out []Definition
	f.defsIn(f.tree.RootNode(), "", &out)
	return out
}

func (f *File) defsIn(block *ts.Node, class string, out *[]Definition) {
	inClass := class != ""
	for _, st := range Statements(block) {
		def := st
		if st.Kind() == "decorated_definition" {
			if d := st.ChildByFieldName("definition"); d != nil {
				def = d
			}
		}
		span := func(name, kind string) Definition {
			return Definition{Name: name, InClass: inClass, Kind: kind, Class: class, node: def,
				Start: int(st.StartPosition().Row) + 1, End: int(st.EndPosition().Row) + 1}
		}
		switch def.Kind() {
		case "function_definition":
			if n := def.ChildByFieldName("name"); n != nil {
				*out = append(*out, span(n.Utf8Text(f.src), "def"))
			}
		case "class_definition":
			n := def.ChildByFieldName("name")
			if n == nil {
				continue
			}
			d := span(n.Utf8Text(f.src), "class")
			if sc := def.ChildByFieldName("superclasses"); sc != nil {
				for _, b := range Statements(sc) {
					if b.Kind() != "keyword_argument" {
						d.Bases = append(d.Bases, f.Text(b))
					}
				}
			}
			*out = append(*out, d)
			if body := def.ChildByFieldName("body"); body != nil {
				f.defsIn(body, d.Name, out)
			}
		case "expression_statement":
			for _, e := range Statements(st) {
				if e.Kind() != "assignment" {
					continue
				}
				for _, name := range f.targetNames(e.ChildByFieldName("left")) {
					*out = append(*out, span(name, "assign"))
				}
			}
		case "if_statement", "try_statement", "with_statement", "for_statement", "while_statement",
			"block", "else_clause", "elif_clause", "except_clause", "finally_clause":
			if !inClass || def.Kind() != "for_statement" {
				f.defsIn(st, class, out)
			}
		}
	}
}

// targetNames returns the plain names an assignment target binds (a, or
// a, b, or [a, (b, c)]); attributes and subscripts bind none.
func (f *File) targetNames(n *ts.Node) []string {
	if n == nil {
		return nil
	}
	switch n.Kind() {
	case "identifier":
		return []string{n.Utf8Text(f.src)}
	case "pattern_list", "tuple_pattern", "list_pattern", "list_splat_pattern", "parenthesized_expression", "tuple", "list":
		var out []string
		for _, c := range Statements(n) {
			out = append(out, f.targetNames(c)...)
		}
		return out
	}
	return nil
}

// Uses lists the names a function's code (after its docstring) reads:
// Names are free names (not parameters or locals of the function),
// Attributes the names after a dot (obj.attr), both sorted and distinct.
type Uses struct {
	Names      []string
	Attributes []string
}

// Uses returns the names fn's body uses. fn must come from this file.
func (f *File) Uses(fn Function) Uses {
	bound := map[string]bool{}
	names := map[string]bool{}
	attrs := map[string]bool{}
	if p := fn.node.ChildByFieldName("parameters"); p != nil {
		f.bindParams(p, bound)
	}
	body := fn.node.ChildByFieldName("body")
	if body == nil {
		return Uses{}
	}
	stmts := Statements(body)
	if _, _, ok := f.Docstring(body); ok {
		stmts = stmts[1:]
	}
	for _, st := range stmts {
		walk(st, func(n *ts.Node) bool {
			switch n.Kind() {
			case "parameters", "lambda_parameters":
				f.bindParams(n, bound)
				return false
			case "function_definition", "class_definition":
				if name := n.ChildByFieldName("name"); name != nil {
					bound[name.Utf8Text(f.src)] = true
				}
			case "assignment", "augmented_assignment", "for_statement", "for_in_clause":
				for _, name := range f.targetNames(n.ChildByFieldName("left")) {
					bound[name] = true
				}
			case "as_pattern_target", "named_expression":
				target := n
				if n.Kind() == "named_expression" {
					target = n.ChildByFieldName("name")
				}
				for _, name := range f.targetNames(firstIdentifier(target)) {
					bound[name] = true
				}
			case "keyword_argument":
				if v := n.ChildByFieldName("value"); v != nil {
					f.collect(v, names, attrs, bound)
				}
				return false
			case "attribute":
				if a := n.ChildByFieldName("attribute"); a != nil {
					attrs[a.Utf8Text(f.src)] = true
				}
				if o := n.ChildByFieldName("object"); o != nil {
					f.collect(o, names, attrs, bound)
				}
				return false
			case "identifier":
				names[n.Utf8Text(f.src)] = true
			}
			return true
		})
	}
	var u Uses
	for n := range names {
		if !bound[n] {
			u.Names = append(u.Names, n)
		}
	}
	for a := range attrs {
		u.Attributes = append(u.Attributes, a)
	}
	sort.Strings(u.Names)
	sort.Strings(u.Attributes)
	return u
}

// collect gathers the names used in an expression subtree (the parts the
// main walk skips: keyword values, attribute objects).
func (f *File) collect(n *ts.Node, names, attrs, bound map[string]bool) {
	walk(n, func(c *ts.Node) bool {
		switch c.Kind() {
		case "attribute":
			if a := c.ChildByFieldName("attribute"); a != nil {
				attrs[a.Utf8Text(f.src)] = true
			}
			if o := c.ChildByFieldName("object"); o != nil {
				f.collect(o, names, attrs, bound)
			}
			return false
		case "lambda_parameters", "parameters":
			f.bindParams(c, bound)
			return false
		case "identifier":
			names[c.Utf8Text(f.src)] = true
		}
		return true
	})
}

// bindParams marks the parameter names of a parameter list as bound.
func (f *File) bindParams(p *ts.Node, bound map[string]bool) {
	for _, c := range Statements(p) {
		switch c.Kind() {
		case "identifier":
			bound[c.Utf8Text(f.src)] = true
		case "default_parameter", "typed_default_parameter":
			if n := c.ChildByFieldName("name"); n != nil {
				bound[n.Utf8Text(f.src)] = true
			}
		case "typed_parameter", "list_splat_pattern", "dictionary_splat_pattern":
			if id := firstIdentifier(c); id != nil {
				bound[id.Utf8Text(f.src)] = true
			}
		}
	}
}

// firstIdentifier returns n if it is an identifier, else its first
// identifier descendant.
func firstIdentifier(n *ts.Node) *ts.Node {
	if n == nil {
		return nil
	}
	var found *ts.Node
	walk(n, func(c *ts.Node) bool {
		if found != nil {
			return false
		}
		if c.Kind() == "identifier" {
			found = c
			return false
		}
		return true
	})
	return found
}
