// Package dataset loads the benchmarks' task files — RepoExec rows (the
// Hugging Face export, the repository's data_with_test_case pass_data.jsonl
// rows and the development subset's tasks.jsonl) and CoderEval
// (CoderEval4Python.json with its RECORDS and the CEPython*.jsonl prompt
// files) — into one Task type that the generator and the test harness share.
// A malformed row is reported with its file and line and the other rows still
// load.
package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Benchmark names accepted by Load.
const (
	RepoExec  = "repoexec"
	CoderEval = "codereval"
)

// Check says how a task's candidate is tested.
type Check string

const (
	// CheckProgram (RepoExec): the task's test program runs under pytest from
	// a file inside the module's package folder; exit status 0 passes.
	CheckProgram Check = "test-program"
	// CheckRunFile (CoderEval): the project file holding the candidate (or
	// its *_passk_validte.py twin) runs with python; exit status 0 passes.
	CheckRunFile Check = "run-file"
)

// Task is one function to generate and test.
type Task struct {
	// Benchmark is RepoExec or CoderEval.
	Benchmark string
	// ID identifies the task in predictions files (RepoExec's task_id, id
	// or problem_ids; CoderEval's _id).
	ID string
	// ProblemID is a RepoExec row's problem_ids (its data_with_test_case
	// row), when the row gives one.
	ProblemID string
	// Project is the repository's path under the repositories folder, e.g.
	// "test-apps/python-string-utils".
	Project string
	// Module is the target's dotted module (RepoExec).
	Module string
	// File is the target file relative to the repository root; for RepoExec
	// it is filled in by Locate.
	File string
	// Line and EndLine are the gold function's 1-based line span in File
	// (def line to last body line); 0 until known. A row may give Line as
	// a hint (CoderEval's and ACToR's lineno), which Locate replaces.
	Line, EndLine int
	// DefLine is the 1-based def line that ACToR's task files give as
	// context_start_lineno (0-based there); 0 when absent. It picks the
	// function and sets the exclusion rule's start as the authors do.
	DefLine int
	// EntryPoint is the function's name.
	EntryPoint string
	// Prompt is the target prompt: signature and docstring, what a
	// generator completes.
	Prompt string
	// Context is the in-file context shipped with the task (RepoExec's
	// code/prompt field, CoderEval's file_content).
	Context string
	// Gold is the ground-truth function.
	Gold string
	// Test is RepoExec's test program (empty for CoderEval).
	Test string
	// Level is CoderEval's runnable level.
	Level string
	// Origin is "file:line" of the row the task came from.
	Origin string
}

// Check says how the task is tested.
func (t *Task) Check() Check {
	if t.Benchmark == CoderEval {
		return CheckRunFile
	}
	return CheckProgram
}

// DefaultTimeout is the benchmark's own time limit for one test run.
func (t *Task) DefaultTimeout() time.Duration {
	if t.Benchmark == CoderEval {
		return 30 * time.Second
	}
	return 120 * time.Second
}

// Root returns the task's repository root under repos: repos/Project, or
// the CoderEval spelling with "---" for "/", or the project's last element.
func (t *Task) Root(repos string) (string, error) {
	cands := []string{
		filepath.Join(repos, filepath.FromSlash(t.Project)),
		filepath.Join(repos, strings.ReplaceAll(t.Project, "/", "---")),
		filepath.Join(repos, filepath.Base(filepath.FromSlash(t.Project))),
	}
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			return c, nil
		}
	}
	return "", fmt.Errorf("task %s: repository %q not found under %s", t.ID, t.Project, repos)
}

// Locate finds the task's repository under repos, its target file and the
// gold function's line span there (see LocateIn).
func (t *Task) Locate(repos string) (root string, err error) {
	if root, err = t.Root(repos); err != nil {
		return "", err
	}
	return root, t.LocateIn(root)
}
