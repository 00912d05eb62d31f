package task

import (
	"path/filepath"
	"strings"
	"testing"

	"actor/internal/testsupport"
)

func TestReadJSONL(t *testing.T) {
	dir := t.TempDir()
	p := testsupport.WriteFile(t, dir, "tasks.jsonl", `{"task_id": 7, "project": "test-apps/p", "module": "pkg.mod", "entry_point": "f", "focal_function": "def f():\n    return 1"}

{"prompt": "x", "metadata": {"task_id": "p/3", "ground_truth": "def g(): pass", "fpath_tuple": ["p", "pkg", "mod.py"], "context_start_lineno": 10, "target_function_prompt": "def g():\n"}}
{"_id": "abc", "name": "h", "file_path": "a/b.py", "lineno": "12"}
`)
	tasks, err := ReadJSONL(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []Task{
		{ID: "7", Project: "test-apps/p", Module: "pkg.mod", EntryPoint: "f", Focal: "def f():\n    return 1", ContextStart: -1},
		{ID: "p/3", Project: "p", Focal: "def g(): pass", Prompt: "def g():\n", FilePath: "pkg/mod.py", ContextStart: 10},
		{ID: "abc", EntryPoint: "h", FilePath: "a/b.py", Line: 12, ContextStart: -1},
	}
	if len(tasks) != len(want) {
		t.Fatalf("%d tasks", len(tasks))
	}
	for i := range want {
		if tasks[i] != want[i] {
			t.Errorf("task %d = %+v\nwant %+v", i, tasks[i], want[i])
		}
	}
	if got, err := Find(tasks, "p/3"); err != nil || got.EntryPoint != "" {
		t.Errorf("Find: %+v %v", got, err)
	}
	if _, err := Find(tasks, "nope"); err == nil {
		t.Error("Find of a missing id succeeded")
	}
}

func TestReadJSONLErrors(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"badjson":  "{\"task_id\": 1}\n{oops\n",
		"lineno":   `{"lineno": "x"}`,
		"context":  `{"context_start_lineno": -2}`,
		"idobject": `{"task_id": {"a": 1}}`,
	} {
		p := testsupport.WriteFile(t, dir, name+".jsonl", content)
		_, err := ReadJSONL(p)
		if err == nil || !strings.Contains(err.Error(), p+":") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ReadJSONL(filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Error("missing file accepted")
	}
}

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

func TestLocate(t *testing.T) {
	repo := t.TempDir()
	testsupport.WriteFile(t, repo, "pkg/mod.py", modSrc)
	testsupport.WriteFile(t, repo, "pkg/sub/__init__.py", "def h():\n    pass\n")

	tg, err := Locate(repo, Task{ID: "1", Module: "pkg.mod", EntryPoint: "f", Focal: "def f(x):\n    \"\"\"F doc.\"\"\"\n    return x", ContextStart: -1})
	if err != nil {
		t.Fatal(err)
	}
	if tg.Path != "pkg/mod.py" || tg.Function.Start != 3 || tg.Prompt != "def f(x):\n    \"\"\"F doc.\"\"\"\n" || tg.Exclusion.StartLine != 3 {
		t.Errorf("f: %+v", tg)
	}
	// Two functions named f: the gold source (a method, dedented) decides.
	tg, err = Locate(repo, Task{ID: "2", Module: "pkg.mod", EntryPoint: "f", Focal: "def f(self):\n    \"\"\"Method f.\"\"\"\n    return 3", ContextStart: -1})
	if err != nil || tg.Function.Start != 12 || tg.Prompt != "    def f(self):\n        \"\"\"Method f.\"\"\"\n" {
		t.Errorf("method f: %+v %v", tg, err)
	}
	if _, err := Locate(repo, Task{ID: "3", Module: "pkg.mod", EntryPoint: "f", ContextStart: -1}); err == nil {
		t.Error("ambiguous name accepted")
	}
	// A decorated function: its decorator is hidden from retrieval too.
	tg, err = Locate(repo, Task{ID: "4", Module: "pkg.mod", EntryPoint: "g", ContextStart: -1})
	if err != nil || tg.Function.Start != 8 || tg.Exclusion.StartLine != 7 {
		t.Errorf("g: %+v %v", tg, err)
	}
	// The benchmark's 0-based context_start_lineno is used as is, with its
	// own prompt.
	tg, err = Locate(repo, Task{ID: "5", FilePath: "pkg/mod.py", ContextStart: 2, Prompt: "P"})
	if err != nil || tg.Function.Name != "f" || tg.Exclusion.StartLine != 2 || tg.Prompt != "P" {
		t.Errorf("context start: %+v %v", tg, err)
	}
	tg, err = Locate(repo, Task{ID: "6", Module: "pkg.sub", EntryPoint: "h", ContextStart: -1})
	if err != nil || tg.Path != "pkg/sub/__init__.py" {
		t.Errorf("package module: %+v %v", tg, err)
	}
	tg, err = Locate(repo, Task{ID: "7", FilePath: "pkg/mod.py", Line: 14, ContextStart: -1})
	if err != nil || tg.Function.Start != 12 {
		t.Errorf("by line: %+v %v", tg, err)
	}
	for _, bad := range []Task{
		{ID: "8", Module: "pkg.missing", EntryPoint: "f", ContextStart: -1},
		{ID: "9", Module: "pkg.mod", EntryPoint: "zzz", ContextStart: -1},
		{ID: "10", ContextStart: -1},
	} {
		if _, err := Locate(repo, bad); err == nil {
			t.Errorf("task %s accepted", bad.ID)
		}
	}
	if tg.ID != "7" {
		t.Errorf("target id %q, want the task's", tg.ID)
	}
}

// Every RepoExec dev task must be found in its project with the gold
// source; the first one is checked against the authors' RepoExec file
// (context_start_lineno 281, 0-based, for reverse).
func TestLocateRepoExecDev(t *testing.T) {
	dev, repos := testsupport.RepoExecDev(t)
	tasksFile := filepath.Join(dev, "tasks.jsonl")
	tasks, err := ReadJSONL(tasksFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 68 {
		t.Fatalf("%d tasks, want 68", len(tasks))
	}
	for _, tk := range tasks {
		tg, err := Locate(filepath.Join(repos, tk.Project), tk)
		if err != nil {
			t.Errorf("task %s: %v", tk.ID, err)
			continue
		}
		if strings.TrimSpace(tg.Function.Source) != strings.TrimSpace(tk.Focal) {
			t.Errorf("task %s: located source differs from focal_function", tk.ID)
		}
		if !strings.HasPrefix(tk.Focal, strings.TrimSuffix(tg.Prompt, "\n")) {
			t.Errorf("task %s: prompt %q is not a prefix of the gold function", tk.ID, tg.Prompt)
		}
	}
	tg, _ := Locate(filepath.Join(repos, tasks[0].Project), tasks[0])
	if tg.Path != "string_utils/manipulation.py" || tg.Function.Start != 282 {
		t.Errorf("task 0 at %s:%d, want string_utils/manipulation.py:282", tg.Path, tg.Function.Start)
	}
}

func FuzzParseTask(f *testing.F) {
	f.Add([]byte(`{"task_id": 7, "module": "a.b", "entry_point": "f", "focal_function": "def f(): pass"}`))
	f.Add([]byte(`{"metadata": {"task_id": "p/1", "fpath_tuple": ["p", "a.py"], "context_start_lineno": 3}}`))
	f.Add([]byte(`{"_id": "x", "lineno": "12", "file_path": "a/b.py"}`))
	f.Add([]byte(`{"task_id": null, "lineno": 1e3}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		tk, err := parseTask(line)
		if err != nil {
			return
		}
		if tk.ContextStart < -1 || tk.Line < 0 {
			t.Fatalf("accepted bad line numbers: %+v", tk)
		}
	})
}
