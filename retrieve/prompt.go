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
	// Spans are the byte ranges of Text that render each block, with the
	// separator that follows it, in prompt order (set by the ACToR layouts;
	// block KV reuse places cached keys and values there).
	Spans []Span
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
	kept, blocks, err := choose(results, actorBlock, tc, b, 0)
	if err != nil {
		return Prompt{}, err
	}
	return actorPrompt(kept, blocks, targetPath, targetPrompt), nil
}

// actorPrompt joins rendered blocks and the target as ACToR's layout does,
// recording each block's span (the block and the blank line after it).
// Without blocks the text starts with that blank line all the same, as the
// authors' join does.
func actorPrompt(kept []Result, blocks []string, targetPath, targetPrompt string) Prompt {
	var b strings.Builder
	if len(blocks) == 0 {
		b.WriteString("\n\n")
	}
	spans := make([]Span, len(blocks))
	for i, text := range blocks {
		spans[i].Start = b.Len()
		b.WriteString(text)
		b.WriteString("\n\n")
		spans[i].End = b.Len()
	}
	b.WriteString("# file path: " + targetPath + "\n\n" + targetPrompt)
	return Prompt{Text: b.String(), Blocks: kept, Spans: spans}
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
	p, err := ACToRPrompt(results, targetPath, targetPrompt, tc, b)
	if err != nil || len(prev) == 0 {
		return p, err
	}
	chosen := make(map[blockKey]int, len(p.Blocks))
	for i, r := range p.Blocks {
		chosen[keyOf(r)] = i
	}
	order := make([]int, 0, len(p.Blocks))
	stays := make(map[int]bool, len(p.Blocks))
	for _, r := range prev {
		if i, ok := chosen[keyOf(r)]; ok && !stays[i] {
			order, stays[i] = append(order, i), true
		}
	}
	for i := range p.Blocks {
		if !stays[i] {
			order = append(order, i)
		}
	}
	blocks := make([]Result, len(order))
	texts := make([]string, len(order))
	for j, i := range order {
		blocks[j], texts[j] = p.Blocks[i], actorBlock(p.Blocks[i])
	}
	return actorPrompt(blocks, texts, targetPath, targetPrompt), nil
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
	head, err := tc.CountTokens(RepoCoderHeader)
	if err != nil {
		return Prompt{}, fmt.Errorf("counting prompt tokens: %w", err)
	}
	kept, blocks, err := choose(results, repoCoderBlock, tc, b, head)
	if err != nil {
		return Prompt{}, err
	}
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
		blocks[i], blocks[j] = blocks[j], blocks[i]
	}
	return Prompt{Text: RepoCoderHeader + strings.Join(blocks, "") + "\n" + prompt, Blocks: kept}, nil
}
