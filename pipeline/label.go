package pipeline

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"actor/generate"
	"actor/probe/labeler"
	"actor/probe/trainset"
	"actor/retrieve"
	"actor/tokenizer"
)

// LabelPrompts builds each training function's labelling prompt the way
// generation builds ACToR's first prompt: the function is located in its
// repository (Root/<repo>) as a generation target, the repository's blocks
// are retrieved for its signature and docstring with the target's own
// lines hidden, and generate.StartPrompt lays them out under the budget.
type LabelPrompts struct {
	// Root holds one folder per repository of the dataset.
	Root string
	// Enc is the dense encoder (nil: BM25, as generation falls back).
	Enc retrieve.Encoder
	// Pool pools the dense query.
	Pool retrieve.Pooling
	// Tok is the generator's tokenizer, which counts the budget.
	Tok *tokenizer.Tokenizer
	// Budget bounds the retrieved blocks.
	Budget retrieve.Budget
	// Log receives warnings, Progress index bars (nil: none).
	Log, Progress io.Writer

	retrievers map[string]generate.Retriever // by repository name
}

// Prompter returns the prompt of each function, as labeler.Options.Prompt;
// ctx bounds the reading of the repositories.
func (p *LabelPrompts) Prompter(ctx context.Context) func(*trainset.Sample) (string, error) {
	return func(s *trainset.Sample) (string, error) { return p.prompt(ctx, s) }
}

// retriever opens (once) the named repository's corpus.
func (p *LabelPrompts) retriever(ctx context.Context, repo string) (generate.Retriever, error) {
	if r, ok := p.retrievers[repo]; ok {
		return r, nil
	}
	log := p.Log
	if log == nil {
		log = io.Discard
	}
	c, err := OpenCorpus(ctx, filepath.Join(p.Root, repo), p.Enc, p.Progress, log)
	if err != nil {
		return nil, err
	}
	r, fallback, err := c.QueryRetriever(p.Pool, false)
	if err != nil {
		return nil, err
	}
	if fallback != "" {
		fmt.Fprintln(log, "actor: warning:", fallback)
	}
	if p.retrievers == nil {
		p.retrievers = map[string]generate.Retriever{}
	}
	p.retrievers[repo] = r
	return r, nil
}

// prompt is a function's prompt. The function is read back from its file
// as generation reads a target; a method, which the dataset keeps
// dedented, gets its signature, docstring and body as indented in the
// file. A function generation reads otherwise is skipped: its label prompt
// would not be one generation builds.
func (p *LabelPrompts) prompt(ctx context.Context, s *trainset.Sample) (string, error) {
	r, err := p.retriever(ctx, s.Repo)
	if err != nil {
		return "", err
	}
	tg, err := retrieve.AtLine(filepath.Join(p.Root, s.Repo), s.Path, s.StartLine+1)
	if err != nil {
		return "", fmt.Errorf("%w: %v", labeler.ErrSkip, err)
	}
	fn := tg.Function
	indent := fn.Prompt[:len(fn.Prompt)-len(strings.TrimLeft(fn.Prompt, " \t"))]
	if tg.Prompt != s.Prompt && tg.Prompt != indentLines(s.Prompt, indent) {
		return "", fmt.Errorf("%w: generation reads another signature and docstring at %s:%d", labeler.ErrSkip, s.Path, s.StartLine+1)
	}
	body, ok := strings.CutPrefix(fn.Source, strings.TrimSuffix(fn.Prompt, "\n"))
	body = strings.TrimRight(strings.TrimPrefix(body, "\n"), " \t\r\n")
	if !ok || strings.TrimSpace(body) == "" {
		return "", fmt.Errorf("%w: no body after the docstring at %s:%d", labeler.ErrSkip, s.Path, s.StartLine+1)
	}
	s.Prompt, s.Body = tg.Prompt, body
	tg.ID = s.ID
	pr, err := generate.StartPrompt(r, tg, p.Tok, p.Budget)
	if err != nil {
		return "", err
	}
	return pr.Text, nil
}

// indentLines puts indent before every line of text that is not empty.
func indentLines(text, indent string) string {
	if indent == "" {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if l != "" && l != "\n" {
			lines[i] = indent + l
		}
	}
	return strings.Join(lines, "")
}
