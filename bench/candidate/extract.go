// Package candidate turns generated text into a function that can replace
// the gold one, as the benchmarks' own post-processing does: take the
// function named after the entry point when the model wrote a whole
// function, else take the generated body, stop at the first line back at
// column 0, re-indent it and put the target's signature (and docstring) in
// front of it. It also places a function into a source file at the gold
// function's position.
package candidate

import (
	"strings"

	"actor/bench/candidate/internal/pyscan"
)

// Mode says how Extract read the generated text.
type Mode string

// The two ways a generation is read.
const (
	// ModeFunction: the text defines the entry-point function itself.
	ModeFunction Mode = "function"
	// ModeBody: the text continues the prompt with the function's body.
	ModeBody Mode = "body"
)

// Extract returns the candidate function, starting at its def keyword at
// column 0 with a 4-space body indentation, from generated text. entryPoint
// is the function's name and prompt the target prompt (signature and
// docstring) that a body-only generation continues; the whitespace after the
// prompt's last newline is the indentation the generation started at.
func Extract(generated, entryPoint, prompt string) (string, Mode) {
	text := expandLeadingTabs(unfence(generated))
	src := pyscan.Parse(text)
	if f, ok := src.Find(entryPoint); ok {
		return Dedent(src.Code(f), f.Indent), ModeFunction
	}
	body := cutBody(expandLeadingTabs(trailingIndent(prompt)) + text)
	return joinPrompt(prompt, body), ModeBody
}

// trailingIndent returns the whitespace after the last newline of prompt.
func trailingIndent(prompt string) string {
	tail := prompt[strings.LastIndexByte(prompt, '\n')+1:]
	if strings.Trim(tail, " \t") != "" {
		return ""
	}
	return tail
}

// unfence returns the content of the first Markdown code block that defines
// a function, or of the first code block, or text itself when it has none.
func unfence(text string) string {
	if !strings.Contains(text, "```") {
		return text
	}
	parts := strings.Split(text, "```")
	var blocks []string
	for i := 1; i < len(parts); i += 2 {
		b := parts[i]
		if nl := strings.IndexByte(b, '\n'); nl >= 0 && !strings.ContainsAny(b[:nl], " \t(=") {
			b = b[nl+1:] // drop the info string (```python)
		}
		blocks = append(blocks, b)
	}
	for _, b := range blocks {
		if strings.Contains(b, "def ") {
			return b
		}
	}
	return blocks[0]
}

// cutBody keeps the generated body up to (not including) the first logical
// line after the body's first statement that starts at column 0, and
// re-indents it from its smallest indentation to 4 spaces.
func cutBody(text string) string {
	src := pyscan.Parse(text)
	lines := src.Lines
	first, keep, base := -1, len(lines), -1
	for i, l := range lines {
		if !l.Logical || l.Blank {
			continue
		}
		if first >= 0 && l.Indent == 0 {
			keep = i
			break
		}
		if first < 0 {
			first = i
		}
		if base < 0 || l.Indent < base {
			base = l.Indent
		}
	}
	if first < 0 {
		return ""
	}
	var b strings.Builder
	for i := first; i < keep; i++ {
		l := lines[i]
		line := l.Text(text)
		if l.Logical {
			if l.Blank && strings.TrimSpace(line) == "" {
				line = ""
			} else {
				line = "    " + trimIndent(line, base)
			}
		}
		b.WriteString(strings.TrimRight(line, "\r"))
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// joinPrompt puts the target prompt (dedented to column 0) before body.
func joinPrompt(prompt, body string) string {
	prompt = expandLeadingTabs(strings.TrimRight(prompt, " \t\r\n"))
	if src := pyscan.Parse(prompt); len(src.Lines) > 0 {
		for _, l := range src.Lines {
			if l.Logical && !l.Blank {
				prompt = Dedent(prompt, l.Indent)
				break
			}
		}
	}
	if strings.TrimSpace(body) == "" {
		body = "    pass"
	}
	return prompt + "\n" + body
}

// Dedent removes up to n columns of leading whitespace from every line of
// code that is not inside a string literal.
func Dedent(code string, n int) string {
	if n == 0 {
		return code
	}
	return Reindent(code, n, "")
}

// Reindent removes up to from columns of leading whitespace from every line
// of code that is not inside a string literal (the first line always counts
// as such) and puts prefix in front of it; blank lines become empty.
func Reindent(code string, from int, prefix string) string {
	src := pyscan.Parse(code)
	var b strings.Builder
	for i, l := range src.Lines {
		line := l.Text(code)
		if l.Logical || i == 0 {
			if strings.TrimSpace(line) == "" {
				line = ""
			} else {
				line = prefix + trimIndent(line, from)
			}
		}
		b.WriteString(line)
		if i < len(src.Lines)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// trimIndent removes up to n columns of leading spaces and tabs from line.
func trimIndent(line string, n int) string {
	col := 0
	for i := 0; i < len(line); i++ {
		if col >= n {
			return line[i:]
		}
		switch line[i] {
		case ' ':
			col++
		case '\t':
			col = (col/8 + 1) * 8
		default:
			return line[i:]
		}
	}
	return ""
}

// expandLeadingTabs replaces each tab in the leading whitespace of a line by
// four spaces, the usual width models mean by one indentation level.
func expandLeadingTabs(text string) string {
	if !strings.Contains(text, "\t") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		j := 0
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if strings.Contains(line[:j], "\t") {
			lines[i] = strings.ReplaceAll(line[:j], "\t", "    ") + line[j:]
		}
	}
	return strings.Join(lines, "\n")
}
