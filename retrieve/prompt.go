package retrieve

import (
	"fmt"
	"strings"
)

// TokenCounter is the generator's tokenizer as the prompt builder needs it:
// the number of tokens the model would see for a text encoded on its own.
// The authors' code counts with the Hugging Face tokenizer's encode, which
// adds the BOS token for DeepSeek-Coder; implementations choose what to
// count and should say so.
type TokenCounter interface {
	CountTokens(text string) (int, error)
}

// Budget limits the retrieved context of a prompt.
type Budget struct {
	// MaxTokens: a block is accepted only while the running total of block
	// tokens stays strictly under it.
	MaxTokens int
	// MaxBlocks caps the number of blocks.
	MaxBlocks int
}

// DefaultBudget is the authors' 1000 generator tokens and 10 blocks.
var DefaultBudget = Budget{MaxTokens: 1000, MaxBlocks: 10}

// Prompt is an assembled prompt and the blocks it shows, in prompt order.
type Prompt struct {
	Text   string
	Blocks []Result
	// Spans are the byte ranges of Text that render the frame's head with
	// its symbols (when there is any) and then each block, with the
	// separator that follows it, in prompt order (block KV reuse places
	// cached keys and values there).
	Spans []Span
	// Special: the text holds special-token texts (the repository and FIM
	// formats' <|file_sep|>...) that are encoded as those tokens.
	Special bool
}

// Lead is the code the model's output directly follows: a
// fill-in-the-middle prompt's prefix (between "<|fim_prefix|>" and
// "<|fim_suffix|>"), otherwise the whole text. Where the output starts (at
// a line's start, below which signature) is read from it.
func (p Prompt) Lead() string {
	if !p.Special || !strings.HasSuffix(p.Text, FIMMiddleToken) {
		return p.Text
	}
	suffix := strings.LastIndex(p.Text, FIMSuffixToken)
	prefix := strings.LastIndex(p.Text[:max(suffix, 0)], FIMPrefixToken)
	if suffix < 0 || prefix < 0 {
		return p.Text
	}
	return p.Text[prefix+len(FIMPrefixToken) : suffix]
}

// Span is a byte range [Start, End) of a prompt's text.
type Span struct{ Start, End int }

// commented prefixes every line of text with "# ".
func commented(text string) string {
	if text == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = "# " + l
	}
	return strings.Join(lines, "\n")
}

// choose walks results best first and keeps each rendered block that fits
// the budget (a block that does not fit is skipped, the next may still
// fit), stopping at MaxBlocks; used starts the running total.
func choose(results []Result, render func(Result) string, tc TokenCounter, b Budget, used int) ([]Result, []string, error) {
	var kept []Result
	var texts []string
	for _, r := range results {
		if len(kept) >= b.MaxBlocks {
			break
		}
		block := render(r)
		n, err := tc.CountTokens(block)
		if err != nil {
			return nil, nil, fmt.Errorf("counting prompt tokens: %w", err)
		}
		if used+n < b.MaxTokens {
			kept = append(kept, r)
			texts = append(texts, block)
			used += n
		}
	}
	return kept, texts, nil
}

// actorBlock renders a block as ACToR does: "# file path: {path}", a blank
// line, then the block's lines commented out.
func actorBlock(r Result) string {
	return "# file path: " + r.Path + "\n\n" + commented(r.Text)
}

// ACToRPrompt assembles the ACToR prompt: the retrieved blocks best first
// (farthest from the code) joined by blank lines, then
// "\n\n# file path: {targetPath}\n\n" and the target's signature and
// docstring. results must be ordered best first.
func ACToRPrompt(results []Result, targetPath, targetPrompt string, tc TokenCounter, b Budget) (Prompt, error) {
	return (&Frame{Path: targetPath, Prompt: targetPrompt}).Ranked(results, tc, b)
}

// StablePrompt assembles the ACToR prompt of the blocks ACToRPrompt would
// choose from results (the same budget, applied to results best first,
// each block counted on its own), placed so that a context change keeps
// the prompt's prefix: the chosen blocks that prev (the current prompt's
// blocks, in prompt order) also shows come first, in prev's order, then the
// newly chosen ones best first, nearest the target. With prev empty it is
// ACToRPrompt. A reorder of the same blocks therefore gives prev's prompt
// again, and a change re-prefills from the first block that left or, when
// none left, from the first new block. Blocks are the same when their path,
// start and end are.
func StablePrompt(results, prev []Result, targetPath, targetPrompt string, tc TokenCounter, b Budget) (Prompt, error) {
	return (&Frame{Path: targetPath, Prompt: targetPrompt}).Stable(results, prev, tc, b)
}

// blockKey identifies a block: its file and line range.
type blockKey struct {
	path       string
	start, end int
}

func keyOf(r Result) blockKey { return blockKey{r.Path, r.Start, r.End} }

// SameBlockSet reports whether a and b show the same blocks in any order
// (a block being its path, start and end; repeats count).
func SameBlockSet(a, b []Result) bool {
	if len(a) != len(b) {
		return false
	}
	n := make(map[blockKey]int, len(a))
	for _, r := range a {
		n[keyOf(r)]++
	}
	for _, r := range b {
		k := keyOf(r)
		if n[k] == 0 {
			return false
		}
		n[k]--
	}
	return true
}

// repoCoderRule separates RepoCoder's fragments.
var repoCoderRule = "# " + strings.Repeat("-", 50)

// RepoCoderHeader opens RepoCoder's retrieved context.
var RepoCoderHeader = "# Here are some relevant code fragments from other files of the repo:\n" + repoCoderRule + "\n"

// repoCoderBlock renders a fragment as RepoCoder does.
func repoCoderBlock(r Result) string {
	return "# the below code fragment can be found in:\n# " + r.Path + "\n" + repoCoderRule + "\n" +
		commented(r.Text) + "\n" + repoCoderRule + "\n"
}

// RepoCoderPrompt assembles RepoCoder's prompt: the header, the chosen
// fragments in ascending similarity (the best next to the code), a newline
// and the prompt. Blocks are chosen best first under the budget, which
// starts with the header's own tokens (RepoCoder charges a fixed 20).
// results must be ordered best first.
func RepoCoderPrompt(results []Result, prompt string, tc TokenCounter, b Budget) (Prompt, error) {
	return (&Frame{RepoCoder: true, Prompt: prompt}).Ascending(results, tc, b)
}
