// Package pyscan finds logical lines and function definitions in Python
// text without a full parser, for the one place where the text may be
// truncated or broken and a real parser gives up: model output, which the
// candidate package cuts a function out of and places into a file. Every
// other reader of Python source uses the tree-sitter package pysrc.
package pyscan

import "strings"

// Line is one physical line of a source text.
type Line struct {
	// Start and End are byte offsets of the line's text; End is the offset of
	// its '\n' (or the text's length for the last line).
	Start, End int
	// Logical reports whether the line begins a new logical line: it is not
	// inside a string literal, inside brackets, or after a backslash
	// continuation.
	Logical bool
	// Blank reports whether a logical line holds only whitespace or a comment.
	Blank bool
	// Indent is the width of the leading whitespace of a logical line, with
	// tabs advancing to the next multiple of 8 as Python's tokenizer counts.
	Indent int
}

// Lines splits src into physical lines and marks which ones start logical
// lines. Unterminated strings and brackets simply run to the end of src.
func Lines(src string) []Line {
	var out []Line
	var (
		depth    int  // open brackets
		quote    byte // quote character of the open string, 0 when none
		triple   bool // the open string is triple-quoted
		contLine bool // the previous line ended in a backslash continuation
	)
	pos := 0
	for pos <= len(src) {
		end := strings.IndexByte(src[pos:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += pos
		}
		ln := Line{Start: pos, End: end}
		ln.Logical = quote == 0 && depth == 0 && !contLine
		if ln.Logical {
			ln.Indent, ln.Blank = indentOf(src[pos:end])
		}
		contLine = false
		i := pos
		for i < end {
			c := src[i]
			if quote != 0 {
				switch {
				case c == '\\':
					i += 2
					continue
				case c == quote && triple && strings.HasPrefix(src[i:end], strings.Repeat(string(quote), 3)):
					quote = 0
					i += 3
					continue
				case c == quote && !triple:
					quote = 0
				}
				i++
				continue
			}
			switch c {
			case '#':
				i = end
				continue
			case '"', '\'':
				quote = c
				triple = strings.HasPrefix(src[i:end], strings.Repeat(string(c), 3))
				if triple {
					i += 3
					continue
				}
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth > 0 {
					depth--
				}
			case '\\':
				if i == end-1 || (i == end-2 && src[end-1] == '\r') {
					contLine = true
				}
			}
			i++
		}
		if quote != 0 && !triple {
			// A one-quote string ends at the end of its line unless the line
			// ends in a backslash, which continues the string.
			if !(end > pos && src[end-1] == '\\' && !escapedBackslash(src[pos:end])) {
				quote = 0
			}
		}
		out = append(out, ln)
		if end == len(src) {
			break
		}
		pos = end + 1
	}
	return out
}

// escapedBackslash reports whether the final backslash of line is itself
// escaped (an even run of trailing backslashes).
func escapedBackslash(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 0
}

// indentOf returns the indentation width of line and whether it is blank
// (only whitespace or a comment).
func indentOf(line string) (int, bool) {
	col := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			col++
		case '\t':
			col = (col/8 + 1) * 8
		case '\f':
			col = 0
		case '\r':
			if i == len(line)-1 {
				return col, true
			}
			return col, false
		case '#':
			return col, true
		default:
			return col, false
		}
	}
	return col, true
}

// Text returns the text of line l of src.
func (l Line) Text(src string) string { return src[l.Start:l.End] }
