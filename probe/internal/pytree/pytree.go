// Package pytree wraps the tree-sitter Python grammar for the probe's
// packages: one parser reused across files, and trees that are always
// closed.
package pytree

import (
	"errors"

	sitter "github.com/tree-sitter/go-tree-sitter"
	python "github.com/tree-sitter/tree-sitter-python/bindings/go"
)

// Parser parses Python source. It is not safe for concurrent use.
type Parser struct{ p *sitter.Parser }

// New returns a parser; Close it when done.
func New() (*Parser, error) {
	p := sitter.NewParser()
	if err := p.SetLanguage(sitter.NewLanguage(python.Language())); err != nil {
		p.Close()
		return nil, err
	}
	return &Parser{p: p}, nil
}

// Close releases the parser.
func (p *Parser) Close() { p.p.Close() }

// Parse parses src and calls fn with the root node; the tree is closed when
// fn returns, so fn must not keep nodes.
func (p *Parser) Parse(src []byte, fn func(root *sitter.Node) error) error {
	tree := p.p.Parse(src, nil)
	if tree == nil {
		return errors.New("tree-sitter returned no tree")
	}
	defer tree.Close()
	return fn(tree.RootNode())
}

// Text returns the source text a node spans.
func Text(src []byte, n *sitter.Node) string { return string(src[n.StartByte():n.EndByte()]) }

// Children returns the named children of n.
func Children(n *sitter.Node) []*sitter.Node {
	out := make([]*sitter.Node, 0, n.NamedChildCount())
	for i := range n.NamedChildCount() {
		out = append(out, n.NamedChild(i))
	}
	return out
}
