package retrieve

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"actor/dataset"
	"actor/pysrc"
)

// Target is the one description of a function to write in a repository,
// shared by retrieval, generation, recall, the benchmark runner and the
// probe's labelling: the file, the function as it stands there, the prompt
// the model continues and the lines retrieval must hide.
type Target struct {
	// ID names the target (a benchmark task id, or "path:line"); it seeds
	// the generator's sampler together with the sample index.
	ID string
	// Path is the target file, slash-separated, relative to the repository.
	Path string
	// Function is the target function as the file holds it.
	Function pysrc.Function
	// Prompt is the target's signature and docstring, the text the model
	// continues (a benchmark's target_function_prompt, or Function.Prompt).
	Prompt string
	// Exclusion hides the target's own lines from retrieval.
	Exclusion Exclusion
}

// Locate reads the file rel of repo and returns the function pick chooses
// there as a target whose prompt is the function's own and whose exclusion
// hides the lines from its first decorator on; ID is "rel:line".
func Locate(repo, rel string, pick func(*pysrc.File) (pysrc.Function, error)) (Target, error) {
	rel = filepath.ToSlash(filepath.Clean(rel))
	src, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(rel)))
	if err != nil {
		return Target{}, err
	}
	f, err := pysrc.Parse(src)
	if err != nil {
		return Target{}, fmt.Errorf("%s: %w", rel, err)
	}
	defer f.Close()
	fn, err := pick(f)
	if err != nil {
		return Target{}, fmt.Errorf("%s: %w", rel, err)
	}
	return Target{ID: fmt.Sprintf("%s:%d", rel, fn.Start), Path: rel, Function: fn, Prompt: fn.Prompt,
		Exclusion: Exclusion{Path: rel, StartLine: fn.DeclStart}}, nil
}

// AtLine locates the innermost function containing line (1-based) of the
// file rel in repo.
func AtLine(repo, rel string, line int) (Target, error) {
	return Locate(repo, rel, func(f *pysrc.File) (pysrc.Function, error) { return f.At(line) })
}

// TaskTarget locates a benchmark task in the repository at root (see
// dataset.Task.LocateIn) and returns it as generation writes it: the
// task's prompt (else the file's signature and docstring) and the
// exclusion rule, whose start is the task's context_start_lineno when the
// row gives one (the authors compare a block's 1-based end line with that
// 0-based number; kept exactly).
func TaskTarget(t *dataset.Task, root string) (Target, error) {
	fn, err := t.Function(root)
	if err != nil {
		return Target{}, err
	}
	rel := filepath.ToSlash(filepath.Clean(t.File))
	tg := Target{ID: t.ID, Path: rel, Function: fn, Prompt: t.Prompt, Exclusion: Exclusion{Path: rel, StartLine: fn.DeclStart}}
	if strings.TrimSpace(tg.Prompt) == "" {
		tg.Prompt = fn.Prompt
	}
	if t.DefLine > 0 {
		tg.Exclusion.StartLine = t.DefLine - 1
	}
	return tg, nil
}
