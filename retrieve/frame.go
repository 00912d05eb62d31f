package retrieve

import (
	"fmt"
	"slices"
	"strings"
)

// Format is how a prompt lays out what it shows of the repository.
type Format string

const (
	// FormatAuthors is the authors' layout: every snippet as commented-out
	// lines under "# file path: PATH" (ACToR, RawRAG; RepoCoder's own
	// header and rules with StyleRepoCoder), the target after
	// "# file path: TARGET". What --exact runs.
	FormatAuthors Format = "authors"
	// FormatPlain shows snippets as code under a "# file: PATH" line and
	// the target the same way: for models without repository tokens.
	FormatPlain Format = "plain"
	// FormatRepo is the repository format code models such as
	// Qwen2.5-Coder were pre-trained on: "<|repo_name|>NAME", then every
	// snippet as a file, "<|file_sep|>PATH\n" + code, the target's file
	// last, its code up to the function's body ending the prompt.
	FormatRepo Format = "repo"
	// FormatFIM is FormatRepo with the target's file written as
	// fill-in-the-middle: "<|fim_prefix|>" the code above and the target's
	// signature and docstring, "<|fim_suffix|>" the code below,
	// "<|fim_middle|>", after which the model writes the body.
	FormatFIM Format = "fim"
)

// Formats lists the formats, the authors' first.
var Formats = []Format{FormatAuthors, FormatPlain, FormatRepo, FormatFIM}

// The special-token texts of the repository and FIM formats
// (Qwen2.5-Coder's).
const (
	RepoNameToken  = "<|repo_name|>"
	FileSepToken   = "<|file_sep|>"
	FIMPrefixToken = "<|fim_prefix|>"
	FIMSuffixToken = "<|fim_suffix|>"
	FIMMiddleToken = "<|fim_middle|>"
)

// Block sources: where a snippet shown in a prompt came from.
const (
	SourceSimilarity = ""       // the retriever's blocks
	SourceSymbol     = "symbol" // a definition in scope of the target
	SourceLookup     = "lookup" // a definition found by name at a critical token
)

// Frame is everything a prompt shows besides the retrieved blocks: the
// format, the definitions in scope (shown before the blocks, farthest from
// the target) and the target's file. The zero Format is the authors'.
type Frame struct {
	Format Format
	// RepoCoder selects RepoCoder's own header and fragment rules in the
	// authors' format.
	RepoCoder bool
	// Repo is the repository's name (FormatRepo, FormatFIM).
	Repo string
	// Symbols are definitions shown before the blocks, in prompt order.
	Symbols []Result
	// Path is the target's file; Above its code above the function (shown
	// between the file's header and the target's prompt, "" for none);
	// Prompt the target's signature and docstring; Below the code below the
	// function (FormatFIM only).
	Path, Above, Prompt, Below string
	// Code says which lines of the target's file Above and Below show
	// (zero when none).
	Code FileCode
}

// authors reports whether the frame uses the authors' layout (the zero
// Format too).
func (f *Frame) authors() bool { return f.Format == FormatAuthors || f.Format == "" }

// Special reports whether the format's prompts hold special-token texts
// that must be encoded as those tokens.
func (f *Frame) Special() bool { return f.Format == FormatRepo || f.Format == FormatFIM }

// render is one snippet as the format shows it, its separator included.
func (f *Frame) render(r Result) string { return f.counted(r) + f.sep() }

// counted is the part of a snippet's rendering that counts against the
// budget: in the authors' layout the block without the blank line after
// it, as the authors count; in the other formats all of it.
func (f *Frame) counted(r Result) string {
	switch {
	case f.Format == FormatRepo || f.Format == FormatFIM:
		return FileSepToken + r.Path + "\n" + strings.TrimSuffix(r.Text, "\n") + "\n"
	case f.Format == FormatPlain:
		return "# file: " + r.Path + "\n" + strings.TrimSuffix(r.Text, "\n") + "\n\n"
	case f.RepoCoder:
		return repoCoderBlock(r)
	}
	return actorBlock(r)
}

// sep follows every snippet's counted part.
func (f *Frame) sep() string {
	if f.authors() && !f.RepoCoder {
		return "\n\n"
	}
	return ""
}

// head is what comes before the snippets.
func (f *Frame) head() string {
	switch {
	case f.Format == FormatRepo || f.Format == FormatFIM:
		return RepoNameToken + f.Repo + "\n"
	case f.Format == FormatPlain:
		return ""
	case f.RepoCoder:
		return RepoCoderHeader
	}
	return ""
}

// tail is the target's part: its file's header, the code above, the
// prompt (and, for FIM, the code below).
func (f *Frame) tail(snippets int) string {
	code := f.Above + f.Prompt
	switch {
	case f.Format == FormatFIM:
		return FileSepToken + f.Path + "\n" + FIMPrefixToken + code + FIMSuffixToken + f.Below + FIMMiddleToken
	case f.Format == FormatRepo:
		return FileSepToken + f.Path + "\n" + code
	case f.Format == FormatPlain:
		return "# file: " + f.Path + "\n" + code
	case f.RepoCoder:
		return "\n" + code
	case snippets == 0:
		// The authors' join starts with a blank line all the same.
		return "\n\n# file path: " + f.Path + "\n\n" + code
	}
	return "# file path: " + f.Path + "\n\n" + code
}

// choose keeps, best first, the results whose rendering fits the budget
// (see the package's choose); used starts the running total. A result the
// frame already shows (inside a symbol's lines, or in the target file's
// shown code) is left out: the budget goes to what is new.
func (f *Frame) choose(results []Result, tc TokenCounter, b Budget, used int) ([]Result, error) {
	if len(f.Symbols) > 0 || f.Above != "" || f.Below != "" {
		results = slices.DeleteFunc(slices.Clone(results), f.shows)
	}
	kept, _, err := choose(results, f.counted, tc, b, used)
	return kept, err
}

// shows reports whether the frame already shows all of r's lines.
func (f *Frame) shows(r Result) bool {
	if r.Path == f.Path && (f.Above != "" || f.Below != "") && f.Code.Shows(r.Start, r.End) {
		return true
	}
	for _, s := range f.Symbols {
		whole := strings.Count(strings.TrimSuffix(s.Text, "\n"), "\n")+1 == s.End-s.Start+1 // not a summary
		if whole && s.Path == r.Path && s.Start <= r.Start && r.End <= s.End {
			return true
		}
	}
	return false
}

// Assemble lays out the blocks, in the order given, after the frame's head
// and symbols and before the target. Spans cover the head with the
// symbols (when there is any) and then each block.
func (f *Frame) Assemble(blocks []Result) Prompt {
	var b strings.Builder
	var spans []Span
	b.WriteString(f.head())
	for _, s := range f.Symbols {
		b.WriteString(f.render(s))
	}
	if b.Len() > 0 {
		spans = append(spans, Span{0, b.Len()})
	}
	for _, r := range blocks {
		start := b.Len()
		b.WriteString(f.render(r))
		spans = append(spans, Span{start, b.Len()})
	}
	b.WriteString(f.tail(len(f.Symbols) + len(blocks)))
	return Prompt{Text: b.String(), Blocks: slices.Clone(blocks), Spans: spans, Special: f.Special()}
}

// Ranked assembles the results that fit the budget best first, farthest
// from the target (ACToR's and RawRAG's order).
func (f *Frame) Ranked(results []Result, tc TokenCounter, b Budget) (Prompt, error) {
	kept, err := f.choose(results, tc, b, 0)
	if err != nil {
		return Prompt{}, err
	}
	return f.Assemble(kept), nil
}

// Ascending assembles the results that fit the budget (chosen best first)
// in ascending similarity, the best next to the target: RepoCoder's order.
// In RepoCoder's own layout its header counts against the budget.
func (f *Frame) Ascending(results []Result, tc TokenCounter, b Budget) (Prompt, error) {
	used := 0
	if f.RepoCoder && f.authors() {
		n, err := tc.CountTokens(RepoCoderHeader)
		if err != nil {
			return Prompt{}, fmt.Errorf("counting prompt tokens: %w", err)
		}
		used = n
	}
	kept, err := f.choose(results, tc, b, used)
	if err != nil {
		return Prompt{}, err
	}
	slices.Reverse(kept)
	return f.Assemble(kept), nil
}

// Stable assembles the blocks Ranked would choose, the ones prev (the
// current prompt's blocks, in prompt order) also shows first in prev's
// order, then the new ones best first, nearest the target (see
// StablePrompt).
func (f *Frame) Stable(results, prev []Result, tc TokenCounter, b Budget) (Prompt, error) {
	p, err := f.Ranked(results, tc, b)
	if err != nil || len(prev) == 0 {
		return p, err
	}
	chosen := make(map[blockKey]int, len(p.Blocks))
	for i, r := range p.Blocks {
		chosen[keyOf(r)] = i
	}
	order := make([]Result, 0, len(p.Blocks))
	stays := make(map[int]bool, len(p.Blocks))
	for _, r := range prev {
		if i, ok := chosen[keyOf(r)]; ok && !stays[i] {
			order, stays[i] = append(order, p.Blocks[i]), true
		}
	}
	for i, r := range p.Blocks {
		if !stays[i] {
			order = append(order, r)
		}
	}
	return f.Assemble(order), nil
}
