// Package pysrc reads Python source with tree-sitter, the one reader of
// well-formed Python in the project: where each function is, its
// signature-and-docstring prompt, its docstring (one rule: Docstring), the
// names defined at module and class level, the names a function body uses,
// and the syntax tree itself for the probe's syntax classes. Model output,
// which may be truncated or broken, is read by the benchmark harness's
// tolerant scanner instead (bench/candidate).
package pysrc

import (
	"errors"
	"fmt"

	ts "github.com/tree-sitter/go-tree-sitter"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
)

var python = ts.NewLanguage(tspython.Language())

// Parser parses Python source, reusing its tree-sitter parser across
// files. It is not safe for concurrent use.
type Parser struct{ p *ts.Parser }

// NewParser returns a parser; Close it when done.
func NewParser() (*Parser, error) {
	p := ts.NewParser()
	if err := p.SetLanguage(python); err != nil {
		p.Close()
		return nil, fmt.Errorf("tree-sitter python: %w", err)
	}
	return &Parser{p: p}, nil
}

// Close releases the parser.
func (p *Parser) Close() { p.p.Close() }

// Parse parses src. Syntax errors do not fail: tree-sitter keeps what it
// can recognise (File.Root().HasError() tells).
func (p *Parser) Parse(src []byte) (*File, error) {
	tree := p.p.Parse(src, nil)
	if tree == nil {
		return nil, errors.New("tree-sitter python: parse failed")
	}
	return &File{src: src, tree: tree}, nil
}

// File is a parsed Python source. Close it when done; its nodes are not
// valid afterwards.
type File struct {
	src  []byte
	tree *ts.Tree
}

// Parse parses Python source with a parser of its own.
func Parse(src []byte) (*File, error) {
	p, err := NewParser()
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.Parse(src)
}

// Close frees the syntax tree.
func (f *File) Close() {
	if f.tree != nil {
		f.tree.Close()
		f.tree = nil
	}
}

// Root returns the module node, for callers that classify the tree's
// nodes themselves (the probe's syntax classes).
func (f *File) Root() *ts.Node { return f.tree.RootNode() }

// Src returns the parsed source.
func (f *File) Src() []byte { return f.src }

// Text returns the source text node n spans.
func (f *File) Text(n *ts.Node) string { return string(f.src[n.StartByte():n.EndByte()]) }

// Children returns n's named children, comments included.
func Children(n *ts.Node) []*ts.Node {
	out := make([]*ts.Node, 0, n.NamedChildCount())
	for i := range n.NamedChildCount() {
		out = append(out, n.NamedChild(i))
	}
	return out
}

// Statements returns n's named children without comments: the statements
// of a block.
func Statements(n *ts.Node) []*ts.Node {
	var out []*ts.Node
	for i := range n.NamedChildCount() {
		if c := n.NamedChild(i); c.Kind() != "comment" {
			out = append(out, c)
		}
	}
	return out
}

// walk visits n and, while visit returns true, its descendants, in order.
func walk(n *ts.Node, visit func(*ts.Node) bool) {
	if !visit(n) {
		return
	}
	for i := uint(0); i < n.NamedChildCount(); i++ {
		walk(n.NamedChild(i), visit)
	}
}
