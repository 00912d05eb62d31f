package pysrc

import (
	"strings"

	ts "github.com/tree-sitter/go-tree-sitter"
)

// Source returns a definition's whole text, its decorators included, from
// the start of its first line (indentation included) to its end.
func (f *File) Source(d Definition) string {
	return string(f.src[f.lineStart(f.declNode(d).StartByte()):d.node.EndByte()])
}

// Summary returns what a caller of a definition needs to know, as Python
// source: a function's decorators, signature and docstring with "..." for
// its body; a class's header and docstring followed by the summaries of
// its methods and the class-level assignments; an assignment whole.
func (f *File) Summary(d Definition) string {
	switch d.Kind {
	case "def":
		return f.header(d, "...")
	case "class":
		var b strings.Builder
		b.WriteString(f.header(d, ""))
		members := 0
		if body := d.node.ChildByFieldName("body"); body != nil {
			var inner []Definition
			f.defsIn(body, d.Name, &inner)
			for _, m := range inner {
				if m.Class != d.Name {
					continue // nested classes' members
				}
				b.WriteString(f.Summary(m))
				members++
			}
		}
		if _, _, doc := f.Docstring(d.node.ChildByFieldName("body")); members == 0 && !doc {
			b.WriteString(bodyIndent(f, d) + "...\n")
		}
		return b.String()
	}
	return f.Source(d) + "\n"
}

// header is a def's or class's text from its first decorator to the end of
// its docstring (or its colon), newline-terminated, followed by an indented
// stub line when stub is not empty.
func (f *File) header(d Definition, stub string) string {
	n := d.node
	end := n.EndByte()
	body := n.ChildByFieldName("body")
	if body != nil {
		end = body.StartByte()
		for i := uint(0); i < n.ChildCount(); i++ {
			if c := n.Child(i); c.Kind() == ":" {
				end = c.EndByte()
			}
		}
		if doc, _, ok := f.Docstring(body); ok {
			end = doc.EndByte()
		}
	}
	out := string(f.src[f.lineStart(f.declNode(d).StartByte()):end]) + "\n"
	if stub != "" {
		out += bodyIndent(f, d) + stub + "\n"
	}
	return out
}

// declNode is the definition's node with its decorators.
func (f *File) declNode(d Definition) *ts.Node {
	if p := d.node.Parent(); p != nil && p.Kind() == "decorated_definition" {
		return p
	}
	return d.node
}

// bodyIndent is the indentation of a definition's body: its first
// statement's, else the definition's own plus four spaces.
func bodyIndent(f *File, d Definition) string {
	if body := d.node.ChildByFieldName("body"); body != nil && body.StartPosition().Row > d.node.StartPosition().Row {
		return strings.Repeat(" ", int(body.StartPosition().Column))
	}
	return strings.Repeat(" ", int(d.node.StartPosition().Column)+4)
}

// maxSignature bounds a signature's length in bytes; an assignment whose
// first line is longer is shown as "NAME = ...".
const maxSignature = 120

// Signature returns a definition as one line of Python that names it: a
// def's or class's header up to its colon, its lines joined, then " ...";
// an assignment's first line when it is a whole statement of at most
// maxSignature bytes, else "NAME = ...". It is what an index of the names
// in scope shows of each.
func (f *File) Signature(d Definition) string {
	if d.Kind == "assign" {
		src := strings.TrimSpace(f.Text(d.node))
		if !strings.Contains(src, "\n") && len(src) <= maxSignature {
			return src
		}
		return d.Name + " = ..."
	}
	end := d.node.EndByte()
	for i := uint(0); i < d.node.ChildCount(); i++ {
		if c := d.node.Child(i); c.Kind() == ":" {
			end = c.EndByte()
			break
		}
	}
	line := strings.Join(strings.Fields(string(f.src[d.node.StartByte():end])), " ")
	return bracketSpace.Replace(line) + " ..."
}

// bracketSpace drops the spaces that joining a signature's lines leaves
// inside its brackets.
var bracketSpace = strings.NewReplacer("( ", "(", " )", ")", "[ ", "[", " ]", "]")
