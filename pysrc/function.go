package pysrc

import (
	"fmt"
	"slices"

	ts "github.com/tree-sitter/go-tree-sitter"
)

// Function is a function (or method) definition.
type Function struct {
	Name  string
	Start int // 1-based line of "def" (decorators excluded)
	End   int // 1-based last line
	// DeclStart is the 1-based first line of the whole definition, its
	// decorators included (Start when it has none).
	DeclStart int
	// Prompt is the signature and docstring as written in the file, from
	// the start of the def line (indentation included) to the end of the
	// docstring, or of the header when there is none, plus "\n": the
	// benchmarks' target_function_prompt.
	Prompt string
	// Source is the whole definition from the start of its def line.
	Source string
	// BodyStart is the 1-based line where the code after the docstring
	// begins (End+1 when there is none).
	BodyStart int

	node *ts.Node
}

// Functions returns every function definition in source order, nested ones
// included.
func (f *File) Functions() []Function {
	var out []Function
	walk(f.tree.RootNode(), func(n *ts.Node) bool {
		if n.Kind() == "function_definition" {
			out = append(out, f.function(n))
		}
		return true
	})
	return out
}

// At returns the innermost function whose lines contain line (1-based).
func (f *File) At(line int) (Function, error) {
	var best *Function
	for _, fn := range f.Functions() {
		if fn.Start <= line && line <= fn.End {
			if best == nil || fn.Start >= best.Start {
				b := fn
				best = &b
			}
		}
	}
	if best == nil {
		return Function{}, fmt.Errorf("no function at line %d", line)
	}
	return *best, nil
}

// lineStart returns the byte offset of the start of the line holding off.
func (f *File) lineStart(off uint) uint {
	for off > 0 && f.src[off-1] != '\n' {
		off--
	}
	return off
}

func (f *File) function(n *ts.Node) Function {
	name := ""
	if id := n.ChildByFieldName("name"); id != nil {
		name = id.Utf8Text(f.src)
	}
	start := f.lineStart(n.StartByte())
	fn := Function{
		Name:   name,
		Start:  int(n.StartPosition().Row) + 1,
		End:    int(n.EndPosition().Row) + 1,
		Source: string(f.src[start:n.EndByte()]),
		node:   n,
	}
	fn.BodyStart = fn.End + 1
	fn.DeclStart = fn.Start
	if p := n.Parent(); p != nil && p.Kind() == "decorated_definition" {
		fn.DeclStart = int(p.StartPosition().Row) + 1
	}
	body := n.ChildByFieldName("body")
	promptEnd := n.EndByte()
	if body != nil {
		promptEnd = body.StartByte()
		// The header ends at the ':' before the body.
		for i := uint(0); i < n.ChildCount(); i++ {
			c := n.Child(i)
			if c.Kind() == ":" {
				promptEnd = c.EndByte()
			}
		}
		stmts := Statements(body)
		rest := 0
		if doc, _, ok := f.Docstring(body); ok {
			promptEnd = doc.EndByte()
			rest = 1
		}
		if rest < len(stmts) {
			fn.BodyStart = int(stmts[rest].StartPosition().Row) + 1
		}
	}
	fn.Prompt = string(f.src[start:promptEnd]) + "\n"
	return fn
}

// Bounds returns, ascending, where code around fn can be cut without
// leaving a statement, a docstring or a bracket open: starts, the 1-based
// first lines of the statements and comments before fn in the blocks
// enclosing it (its own block, then its class's, up to the module), and
// ends, the last lines of those after it.
func (f *File) Bounds(fn Function) (starts, ends []int) {
	for n := fn.node; n != nil; n = n.Parent() {
		for _, c := range Children(n) {
			if row := int(c.StartPosition().Row) + 1; row > fn.End {
				ends = append(ends, lastLine(c))
			} else if row < fn.DeclStart {
				starts = append(starts, row)
			}
		}
	}
	slices.Sort(starts)
	slices.Sort(ends)
	return slices.Compact(starts), slices.Compact(ends)
}

// lastLine is the 1-based line of n's last character (a node that ends
// with its line's newline ends at column 0 of the next row).
func lastLine(n *ts.Node) int {
	end := n.EndPosition()
	if end.Column == 0 && n.EndByte() > n.StartByte() {
		return int(end.Row)
	}
	return int(end.Row) + 1
}
