// Package trainset builds the probe's training functions: Python functions
// with a signature and a complete docstring, either extracted from
// repositories with tree-sitter (with the paper's filters as options) or
// read from RepoST-formatted JSONL (the authors' training set). Samples are
// written back as RepoST JSONL, so labelling reads one format.
package trainset

import (
	"strings"
)

// Sample is one training function: the prompt is its signature and
// docstring, the target its body.
type Sample struct {
	ID        string // "repo/N"
	Repo      string
	Path      string // file path inside the repository
	Signature string // e.g. "def f(x: int) -> int:"
	Docstring string // the docstring's content, without quotes
	// Prompt is the source from the def line to the end of the docstring,
	// with a final newline (RepoST's target_function_prompt).
	Prompt string
	// Body is the rest of the function (the ground truth to label).
	Body string
	// StartLine is the 0-based line of the def (RepoST's
	// context_start_lineno); BodyLine the 0-based first line of Body.
	StartLine, BodyLine int
}

// Function is Prompt followed by Body: the whole function.
func (s Sample) Function() string { return s.Prompt + s.Body }

// dedent removes prefix from the start of every line that has it.
func dedent(lines []string, prefix string) []string {
	if prefix == "" {
		return lines
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimPrefix(l, prefix)
	}
	return out
}

// blank reports whether a line holds only whitespace.
func blank(l string) bool { return strings.TrimSpace(l) == "" }
