package dataset_test

import (
	"path/filepath"
	"strings"
	"testing"

	"actor/dataset"
	"actor/internal/testsupport"
	"actor/retrieve"
)

const modSrc = `import os

def f(x):
    """F doc."""
    return x

@decorate
def g():
    return 2

class C:
    def f(self):
        """Method f."""
        return 3
`

// ACToR's task rows: fields under "metadata", the file from fpath_tuple,
// a 0-based context_start_lineno, a lineno hint, _id and name.
func TestACToRRows(t *testing.T) {
	dir := t.TempDir()
	f := testsupport.WriteFile(t, dir, "tasks.jsonl", `{"prompt": "x", "metadata": {"task_id": "p/3", "ground_truth": "def g(): pass", "fpath_tuple": ["p", "pkg", "mod.py"], "context_start_lineno": 10, "target_function_prompt": "def g():\n"}}
{"_id": "abc", "name": "h", "file_path": "a/b.py", "lineno": "12"}
{"_id": "neg", "file_path": "a/b.py", "context_start_lineno": -2}
{"_id": "bad", "file_path": "a/b.py", "lineno": "x"}
{"_id": "anon", "file_path": "a/b.py"}
{"_id": "meta", "file_path": "a/b.py", "name": "h", "metadata": {"task_id": [1]}}
`)
	set, err := dataset.Load(dataset.RepoExec, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Tasks) != 2 {
		t.Fatalf("tasks %+v", set.Tasks)
	}
	a, b := set.Tasks[0], set.Tasks[1]
	if a.ID != "p/3" || a.Project != "p" || a.File != "pkg/mod.py" || a.DefLine != 11 || a.Gold != "def g(): pass" ||
		a.Prompt != "def g():\n" || a.EntryPoint != "" || a.Context != "x" || a.Test != "" {
		t.Errorf("metadata row %+v", a)
	}
	if b.ID != "abc" || b.EntryPoint != "h" || b.File != "a/b.py" || b.Line != 12 || b.DefLine != 0 {
		t.Errorf("_id row %+v", b)
	}
	if tk, err := set.Pick("abc"); err != nil || tk != &set.Tasks[1] {
		t.Errorf("Pick(abc) = %v, %v", tk, err)
	}
	if _, err := set.Pick(""); err == nil || !strings.Contains(err.Error(), "2 tasks: name one") {
		t.Errorf("Pick of one of two: %v", err)
	}
	if _, err := set.Pick("zz"); err == nil || !strings.Contains(err.Error(), f+`: no task with id "zz"`) {
		t.Errorf("Pick(zz): %v", err)
	}
	want := []string{
		f + ":3: field context_start_lineno: -2 is negative",
		f + `:4: field lineno: "x" is not a line number`,
		f + ":5: missing field entry_point/name (or a line: lineno, context_start_lineno)",
		f + ":6: field task_id: id [1] is neither a string nor an integer",
	}
	if len(set.Errors) != len(want) {
		t.Fatalf("errors %v", set.Errors)
	}
	for i, w := range want {
		if set.Errors[i].Error() != w {
			t.Errorf("error %d = %q, want %q", i, set.Errors[i], w)
		}
	}
}

func TestGenerationTarget(t *testing.T) {
	repo := t.TempDir()
	testsupport.WriteFile(t, repo, "pkg/mod.py", modSrc)
	testsupport.WriteFile(t, repo, "pkg/sub/__init__.py", "def h():\n    pass\n")
	locate := func(tk dataset.Task) (string, int, int, string, error) {
		tg, err := retrieve.TaskTarget(&tk, repo)
		if err == nil && (tk.Line != tg.Function.Start || tk.EndLine != tg.Function.End || tk.File != tg.Path || tg.ID != tk.ID) {
			t.Errorf("task %s: fields %s:%d-%d, target %+v", tk.ID, tk.File, tk.Line, tk.EndLine, tg)
		}
		return tg.Path, tg.Function.Start, tg.Exclusion.StartLine, tg.Prompt, err
	}
	// By name: the gold source decides between two functions named f (a
	// method, compared dedented).
	path, line, excl, prompt, err := locate(dataset.Task{ID: "1", Module: "pkg.mod", EntryPoint: "f", Gold: "def f(x):\n    \"\"\"F doc.\"\"\"\n    return x"})
	if err != nil || path != "pkg/mod.py" || line != 3 || excl != 3 || prompt != "def f(x):\n    \"\"\"F doc.\"\"\"\n" {
		t.Errorf("f: %s %d %d %q %v", path, line, excl, prompt, err)
	}
	_, line, _, prompt, err = locate(dataset.Task{ID: "2", Module: "pkg.mod", EntryPoint: "f", Gold: "def f(self):\n    \"\"\"Method f.\"\"\"\n    return 3"})
	if err != nil || line != 12 || prompt != "    def f(self):\n        \"\"\"Method f.\"\"\"\n" {
		t.Errorf("method f: %d %q %v", line, prompt, err)
	}
	// No gold and two definitions: the only top-level one.
	if _, line, _, _, err = locate(dataset.Task{ID: "3", Module: "pkg.mod", EntryPoint: "f"}); err != nil || line != 3 {
		t.Errorf("top-level f: %d %v", line, err)
	}
	// A decorated function: its decorator is hidden from retrieval too.
	if _, line, excl, _, err = locate(dataset.Task{ID: "4", Module: "pkg.mod", EntryPoint: "g"}); err != nil || line != 8 || excl != 7 {
		t.Errorf("g: %d %d %v", line, excl, err)
	}
	// ACToR's 0-based context_start_lineno: the exclusion start as is, the
	// task's own prompt.
	if _, line, excl, prompt, err = locate(dataset.Task{ID: "5", File: "pkg/mod.py", DefLine: 3, Prompt: "P"}); err != nil || line != 3 || excl != 2 || prompt != "P" {
		t.Errorf("context start: %d %d %q %v", line, excl, prompt, err)
	}
	if path, _, _, _, err = locate(dataset.Task{ID: "6", Module: "pkg.sub", EntryPoint: "h"}); err != nil || path != "pkg/sub/__init__.py" {
		t.Errorf("package module: %s %v", path, err)
	}
	// A line hint inside the method: the innermost function holding it.
	if _, line, _, _, err = locate(dataset.Task{ID: "7", File: "pkg/mod.py", Line: 14}); err != nil || line != 12 {
		t.Errorf("by line: %d %v", line, err)
	}
	for _, bad := range []dataset.Task{
		{ID: "8", Module: "pkg.missing", EntryPoint: "f"},
		{ID: "9", Module: "pkg.mod", EntryPoint: "zzz"},
		{ID: "10"},
		{ID: "11", File: "pkg/mod.py", Line: 1},
		{ID: "12", File: "pkg/absent.py", EntryPoint: "f"},
	} {
		if _, _, _, _, err := locate(bad); err == nil || !strings.Contains(err.Error(), "task "+bad.ID) {
			t.Errorf("task %s: %v", bad.ID, err)
		}
	}
}

// Every dataset.RepoExec dev task is found in its project with the gold source,
// its prompt a prefix of the gold function; the first one where the
// authors' dataset.RepoExec file puts it (context_start_lineno 281, 0-based, for
// reverse).
func TestLocateRepoExecDev(t *testing.T) {
	dev, repos := testsupport.RepoExecDev(t)
	set, err := dataset.Load(dataset.RepoExec, filepath.Join(dev, "tasks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Tasks) != 68 || len(set.Errors) != 0 {
		t.Fatalf("%d tasks, errors %v", len(set.Tasks), set.Errors)
	}
	for i := range set.Tasks {
		tk := &set.Tasks[i]
		root, err := tk.Root(repos)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := retrieve.TaskTarget(tk, root)
		if err != nil {
			t.Errorf("task %s: %v", tk.ID, err)
			continue
		}
		if strings.TrimSpace(tg.Function.Source) != strings.TrimSpace(tk.Gold) {
			t.Errorf("task %s: located source differs from focal_function", tk.ID)
		}
		if !strings.HasPrefix(tk.Gold, strings.TrimSuffix(tg.Prompt, "\n")) {
			t.Errorf("task %s: prompt %q is not a prefix of the gold function", tk.ID, tg.Prompt)
		}
		if i == 0 && (tg.Path != "string_utils/manipulation.py" || tg.Function.Start != 282) {
			t.Errorf("task 0 at %s:%d, want string_utils/manipulation.py:282", tg.Path, tg.Function.Start)
		}
	}
}
