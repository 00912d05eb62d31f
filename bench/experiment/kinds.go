package experiment

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"actor/generate"
	"actor/probe"
)

// Token kinds, where in the code a critical token stands.
const (
	kindComment   = "comment"         // in a # comment
	kindStatement = "statement start" // the first token of a code line
	kindName      = "name"            // an identifier inside a line
	kindKeyword   = "keyword"         // a Python keyword inside a line
	kindOther     = "operator, literal, other"
)

// kinds lists the token kinds in the order the report shows them.
var kinds = []string{kindComment, kindStatement, kindName, kindKeyword, kindOther}

// pyKeywords are Python's keywords (and the soft ones a body uses).
var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true, "await": true,
	"break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true, "else": true, "except": true,
	"finally": true, "for": true, "from": true, "global": true, "if": true, "import": true, "in": true, "is": true,
	"lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true, "return": true, "try": true,
	"while": true, "with": true, "yield": true, "match": true, "case": true,
}

// tokenKind says what kind of token tok is, given the text of its line
// before it.
func tokenKind(linePrefix, tok string) string {
	lead := strings.TrimSpace(linePrefix)
	word := strings.TrimSpace(tok)
	switch {
	case probe.InComment(linePrefix, tok):
		return kindComment
	case lead == "":
		return kindStatement
	case pyKeywords[word]:
		return kindKeyword
	case word != "" && strings.IndexFunc(word, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) }) < 0 &&
		!unicode.IsDigit([]rune(word)[0]):
		return kindName
	}
	return kindOther
}

// tokenKinds counts the critical tokens of a sample's attempts by kind,
// and those of them that changed the context. A context change's critical
// token is the one it dropped.
func tokenKinds(tr generate.Trace, critical, changed map[string]int) {
	for _, a := range tr.Attempts {
		var body strings.Builder
		for _, e := range a.Events {
			if e.Critical {
				tok := e.Text
				if e.Dropped != nil {
					tok = e.Dropped.Text
				}
				text := body.String()
				k := tokenKind(text[strings.LastIndexByte(text, '\n')+1:], tok)
				critical[k]++
				if e.Changed {
					changed[k]++
				}
			}
			body.WriteString(e.Text)
		}
	}
}

// kindTable is where each ACToR configuration's critical tokens stand.
func kindTable(rows []row) string {
	var b bytes.Buffer
	b.WriteString("| configuration: critical tokens (context changes) |")
	sep := "|---|"
	for _, k := range kinds {
		fmt.Fprintf(&b, " %s |", k)
		sep += "---:|"
	}
	b.WriteString("\n" + sep + "\n")
	for _, r := range rows {
		total := 0
		for _, n := range r.t.Critical {
			total += n
		}
		if total == 0 {
			continue
		}
		fmt.Fprintf(&b, "| %s |", r.Label)
		for _, k := range kinds {
			fmt.Fprintf(&b, " %.1f %% (%d) |", 100*float64(r.t.Critical[k])/float64(total), r.t.Changed[k])
		}
		b.WriteString("\n")
	}
	b.WriteString("\nShare of the critical tokens (all judged tokens the trigger fired on) by where they stand in the " +
		"code, and in brackets how many of them changed the context. A statement start is the first token of a code " +
		"line; comment, a token in a # comment.\n")
	return b.String()
}
