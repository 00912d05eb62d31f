// Package syntax assigns Python syntax classes to byte spans of source
// code (for the paper's Figs. 7–8: which kinds of tokens are critical). The
// source is parsed with tree-sitter; a span takes the class of the syntax
// leaf under its first non-space byte.
package syntax

import (
	"fmt"
	"sort"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"actor/pysrc"
)

// Class is a syntax class of a token.
type Class uint8

// The classes. Whitespace covers newline, indent and dedent tokens, which
// the paper filters out; Unknown marks a span that could not be placed.
const (
	Identifier Class = iota
	Keyword
	Operator
	Delimiter
	Literal
	Comment
	Whitespace
	Unknown
)

// Reported lists the classes the analysis reports, in order.
var Reported = []Class{Identifier, Keyword, Operator, Delimiter, Literal, Comment}

var names = [...]string{"identifier", "keyword", "operator", "delimiter", "literal", "comment", "whitespace", "unknown"}

// String names the class as the tables print it.
func (c Class) String() string {
	if int(c) < len(names) {
		return names[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// Python's operators; other punctuation is a delimiter. Assignment and
// "->" count as operators, "." and "@" (decorator) as delimiters, as in the
// authors' classifier.
var operators = map[string]bool{
	"+": true, "-": true, "*": true, "**": true, "/": true, "//": true, "%": true, "<<": true, ">>": true,
	"&": true, "|": true, "^": true, "~": true, "<": true, ">": true, "<=": true, ">=": true, "==": true,
	"!=": true, "<>": true, "=": true, "+=": true, "-=": true, "*=": true, "/=": true, "//=": true, "%=": true,
	"**=": true, "&=": true, "|=": true, "^=": true, "<<=": true, ">>=": true, "@=": true, "->": true, ":=": true,
}

// leaf is a non-empty syntax leaf and its class.
type leaf struct {
	start, end int
	class      Class
}

// Spans classifies byte spans [start, end) of src. A span whose bytes are
// all whitespace is Whitespace (or Literal/Comment inside a string or
// comment); a span outside every leaf is Unknown.
func Spans(p *pysrc.Parser, src []byte, spans [][2]int) ([]Class, error) {
	f, err := p.Parse(src)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c := f.Root().Walk()
	defer c.Close()
	leaves := collect(c, src, nil)
	out := make([]Class, len(spans))
	for i, s := range spans {
		out[i] = classify(src, leaves, s[0], s[1])
	}
	return out, nil
}

// collect walks the tree depth-first and appends its non-empty leaves in
// order; leaves inside a string (outside f-string interpolations) are
// literals.
func collect(c *sitter.TreeCursor, src []byte, leaves []leaf) []leaf {
	var walk func(inString bool)
	walk = func(inString bool) {
		n := c.Node()
		kind := n.Kind()
		switch kind {
		case "string":
			inString = true
		case "interpolation":
			inString = false
		}
		if c.GotoFirstChild() {
			// Inside a string, the text between children (the plain
			// characters around escape sequences) is in no child: it
			// becomes literal leaves of its own.
			gap := func(from, to uint) {
				if inString && to > from {
					leaves = append(leaves, leaf{int(from), int(to), Literal})
				}
			}
			prev := n.StartByte()
			for {
				child := c.Node()
				gap(prev, child.StartByte())
				walk(inString)
				prev = max(prev, child.EndByte())
				if !c.GotoNextSibling() {
					break
				}
			}
			gap(prev, n.EndByte())
			c.GotoParent()
			return
		}
		start, end := int(n.StartByte()), int(n.EndByte())
		if end <= start {
			return
		}
		leaves = append(leaves, leaf{start, end, leafClass(n, kind, string(src[start:end]), inString)})
	}
	walk(false)
	return leaves
}

// leafClass classifies one leaf.
func leafClass(n *sitter.Node, kind, text string, inString bool) Class {
	switch {
	case kind == "comment":
		return Comment
	case inString:
		return Literal
	case kind == "line_continuation":
		return Whitespace
	}
	if n.IsNamed() && !n.IsError() {
		switch kind {
		case "identifier":
			return Identifier
		case "true", "false", "none":
			return Keyword // Python keywords, as in the authors' classifier
		case "integer", "float", "ellipsis", "string_start", "string_content", "string_end", "escape_sequence",
			"type_conversion", "format_specifier":
			return Literal
		}
	}
	return byText(text, n.Parent(), n.IsError())
}

// byText classifies keywords and punctuation from their text. Word leaves
// the grammar made anonymous are its keywords; in an ERROR leaf only
// Python's keywords are.
func byText(text string, parent *sitter.Node, isErr bool) Class {
	if text == "" {
		return Unknown
	}
	if isWord(text) {
		if !isErr || pythonKeyword[text] {
			return Keyword
		}
		return Identifier
	}
	if text[0] >= '0' && text[0] <= '9' {
		return Literal
	}
	if text == "@" && parent != nil && parent.Kind() == "decorator" {
		return Delimiter
	}
	if operators[text] || text == "@" {
		return Operator
	}
	return Delimiter
}

func isWord(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// pythonKeyword is keyword.kwlist of Python 3.11 with the soft keywords.
var pythonKeyword = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
	"match": true, "case": true, "type": true,
}

// classify finds the class of span [start, end).
func classify(src []byte, leaves []leaf, start, end int) Class {
	if start < 0 || end > len(src) || start >= end {
		return Unknown
	}
	pos := -1
	for i := start; i < end; i++ {
		if c := src[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' {
			pos = i
			break
		}
	}
	probe := pos
	if pos < 0 {
		probe = start
	}
	// the leaf containing probe, if any
	i := sort.Search(len(leaves), func(i int) bool { return leaves[i].end > probe })
	var in *leaf
	if i < len(leaves) && leaves[i].start <= probe {
		in = &leaves[i]
	}
	if pos < 0 {
		if in != nil && (in.class == Literal || in.class == Comment) {
			return in.class
		}
		return Whitespace
	}
	if in == nil {
		return Unknown
	}
	return in.class
}
