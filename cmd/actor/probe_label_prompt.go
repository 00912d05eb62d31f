package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"actor/generate"
	"actor/pipeline"
	"actor/probe/dataset"
	"actor/probe/labeler"
	"actor/retrieve"
	"actor/tokenizer"
)

// labelPrompts builds each training function's prompt the way generation
// builds ACToR's first prompt: the function is located in its repository
// (REPOS/<repo>) as a generation target, the repository's blocks are
// retrieved for its signature and docstring with the target's own lines
// hidden, and generate.StartPrompt lays them out under the budget.
type labelPrompts struct {
	ctx    context.Context
	root   string
	enc    retrieve.Encoder // nil: BM25, as generation falls back
	pool   retrieve.Pooling
	tok    *tokenizer.Tokenizer
	budget retrieve.Budget
	stderr io.Writer

	retrievers map[string]generate.Retriever // by repository name
}

// retriever opens (once) the named repository's corpus.
func (p *labelPrompts) retriever(repo string) (generate.Retriever, error) {
	if r, ok := p.retrievers[repo]; ok {
		return r, nil
	}
	c, err := pipeline.OpenCorpus(p.ctx, filepath.Join(p.root, repo), p.enc, progressOn(p.stderr), p.stderr)
	if err != nil {
		return nil, err
	}
	r, fallback, err := c.QueryRetriever(p.pool, false)
	if err != nil {
		return nil, err
	}
	if fallback != "" {
		fmt.Fprintln(p.stderr, "actor: warning:", fallback)
	}
	if p.retrievers == nil {
		p.retrievers = map[string]generate.Retriever{}
	}
	p.retrievers[repo] = r
	return r, nil
}

// prompt is labeler.Options.Prompt. The function is read back from its
// file as generation reads a target; a method, which the dataset keeps
// dedented, gets its signature, docstring and body as indented in the file.
// A function generation reads otherwise is skipped: its label prompt would
// not be one generation builds.
func (p *labelPrompts) prompt(s *dataset.Sample) (string, error) {
	r, err := p.retriever(s.Repo)
	if err != nil {
		return "", err
	}
	tg, err := retrieve.AtLine(filepath.Join(p.root, s.Repo), s.Path, s.StartLine+1)
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
	pr, err := generate.StartPrompt(r, tg, p.tok, p.budget)
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
