package dataset

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/internal/testsupport"
	"actor/jsonl"
)

const goldFn = "def add(a, b):\n    \"\"\"Add a and b.\n\n    More.\n    \"\"\"\n    return a + b"

const goodRow = `{"task_id": 7, "project": "test-apps/calc", "module": "calc.ops", "entry_point": "add", "focal_function": "def add(a, b):\n    \"\"\"Add a and b.\n\n    More.\n    \"\"\"\n    return a + b", "code": "import os\n", "test": "from calc.ops import add\ndef test_0():\n    assert add(1, 2) == 3\n", "test_list": []}`

func TestRepoExecJSONL(t *testing.T) {
	dir := t.TempDir()
	rows := []string{
		goodRow,
		`{"task_id": 8, "project": "p", "module": "m"`,
		``,
		`{"task_id": 9, "project": "p", "module": "m", "entry_point": "f", "focal_function": "def f(): pass", "test": ""}`,
		`{"task_id": [1], "project": "p"}`,
		strings.Replace(goodRow, `"task_id": 7`, `"task_id": "7"`, 1),
		strings.Replace(goodRow, `"task_id": 7`, `"problem_ids": 11`, 1),
	}
	f := testsupport.WriteFile(t, dir, "tasks.jsonl", strings.Join(rows, "\n")+"\n")
	set, err := Load(RepoExec, dir)
	if err != nil {
		t.Fatal(err)
	}
	// A row without a test program loads (it can be generated; the harness
	// refuses to evaluate it).
	if len(set.Tasks) != 3 || set.Tasks[0].ID != "7" || set.Tasks[1].ID != "9" || set.Tasks[2].ID != "11" || set.Tasks[1].Test != "" {
		t.Fatalf("tasks = %+v", set.Tasks)
	}
	wantErrs := []string{
		f + ":2: not a valid JSON value",
		f + ":5: field task_id: id [1] is neither a string nor an integer",
		f + ":6: duplicate task id 7 (first at " + f + ":1)",
	}
	if len(set.Errors) != len(wantErrs) {
		t.Fatalf("errors = %v", set.Errors)
	}
	for i, w := range wantErrs {
		var re *jsonl.RowError
		if set.Errors[i].Error() != w || !errors.As(set.Errors[i], &re) {
			t.Errorf("error %d = %q, want %q", i, set.Errors[i], w)
		}
	}
	task := set.Tasks[0]
	if task.Prompt != "def add(a, b):\n    \"\"\"Add a and b.\n\n    More.\n    \"\"\"\n" {
		t.Errorf("prompt %q", task.Prompt)
	}
	if task.Check() != CheckProgram || task.DefaultTimeout().Seconds() != 120 || task.Origin != f+":1" {
		t.Errorf("check %s timeout %v origin %s", task.Check(), task.DefaultTimeout(), task.Origin)
	}
}

func TestRepoExecJSONArrayAndLocate(t *testing.T) {
	dir := t.TempDir()
	hf := strings.ReplaceAll(goodRow, `"focal_function"`, `"solution"`)
	hf = strings.ReplaceAll(hf, `"test":`, `"check":`)
	hf = strings.Replace(hf, `"task_id": 7`, `"id": 3, "target_function_prompt": "def add(a, b):\n"`, 1)
	f := testsupport.WriteFile(t, dir, "repoexec.json", "[\n  "+hf+",\n  {\"id\": 4},\n  "+strings.Replace(hf, `"id": 3`, `"id": 5`, 1)+"\n]\n")
	set, err := Load(RepoExec, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Tasks) != 2 || len(set.Errors) != 1 || set.Errors[0].Error() != f+":3: missing field module/file_path/fpath_tuple" {
		t.Fatalf("tasks %d errors %v", len(set.Tasks), set.Errors)
	}
	task := set.Tasks[0]
	if task.Prompt != "def add(a, b):\n" || task.Test == "" || task.Gold == "" {
		t.Fatalf("task = %+v", task)
	}
	repos := t.TempDir()
	os.MkdirAll(filepath.Join(repos, "test-apps", "calc", "calc", "ops"), 0o755)
	testsupport.WriteFile(t, filepath.Join(repos, "test-apps", "calc", "calc", "ops"), "__init__.py", "import os\n\n\n"+goldFn+"\n\n\ndef sub(a, b):\n    return a - b\n")
	root, err := task.Locate(repos)
	if err != nil {
		t.Fatal(err)
	}
	if root != filepath.Join(repos, "test-apps", "calc") || task.File != "calc/ops/__init__.py" || task.Line != 4 || task.EndLine != 9 {
		t.Fatalf("Locate: root %s file %s lines %d-%d", root, task.File, task.Line, task.EndLine)
	}
	task.Project = "test-apps/absent"
	if _, err := task.Locate(repos); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("missing repository: %v", err)
	}
}

func TestCoderEval(t *testing.T) {
	dir := t.TempDir()
	rec := `{"_id": "62e60f43", "name": "hydrate", "project": "neo4j/neo4j-python-driver", "file_path": "neo4j/time.py", "lineno": "10", "end_lineno": "12", "code": "def hydrate(n):\n    \"\"\"Doc.\"\"\"\n    return n", "docstring": "Doc.", "level": "self_contained", "file_content": "x"}`
	bad := strings.Replace(strings.Replace(rec, `"62e60f43"`, `"bad1"`, 1), `"end_lineno": "12"`, `"end_lineno": "x"`, 1)
	noPrompt := strings.Replace(rec, `"62e60f43"`, `"62e60f44"`, 1)
	f := testsupport.WriteFile(t, dir, "CoderEval4Python.json", "{\"meta\": {\"a\": [1]},\n \"RECORDS\": [\n"+rec+",\n"+bad+",\n"+noPrompt+"\n]}\n")
	p := testsupport.WriteFile(t, dir, "CEPythonRaw.jsonl", `{"question_id": "62e60f43", "input": "def hydrate(n):\n\t\"\"\"\n\tDoc.\n\t\"\"\"\n\t", "signature": "def hydrate(n):", "docstring": "Doc."}`+"\nnot json\n")
	set, err := Load(CoderEval, dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{p + ":2: not a valid JSON value", f + ":4: field end_lineno: \"x\" is not a line number"}
	if len(set.Errors) != 2 || set.Errors[0].Error() != want[0] || set.Errors[1].Error() != want[1] {
		t.Fatalf("errors = %v", set.Errors)
	}
	if len(set.Tasks) != 2 {
		t.Fatalf("tasks = %d", len(set.Tasks))
	}
	a, b := set.Tasks[0], set.Tasks[1]
	if a.Prompt != "def hydrate(n):\n\t\"\"\"\n\tDoc.\n\t\"\"\"\n\t" || a.Line != 10 || a.EndLine != 12 || a.File != "neo4j/time.py" || a.Check() != CheckRunFile || a.DefaultTimeout().Seconds() != 30 {
		t.Fatalf("task a = %+v", a)
	}
	if b.Prompt != "def hydrate(n):\n    \"\"\"Doc.\"\"\"\n" {
		t.Fatalf("derived prompt = %q", b.Prompt)
	}
	repos := t.TempDir()
	os.MkdirAll(filepath.Join(repos, "neo4j---neo4j-python-driver"), 0o755)
	if root, err := a.Root(repos); err != nil || filepath.Base(root) != "neo4j---neo4j-python-driver" {
		t.Fatalf("Root = %s, %v", root, err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load("humaneval", dir); err == nil || !strings.Contains(err.Error(), "unknown benchmark") {
		t.Fatalf("unknown benchmark: %v", err)
	}
	if _, err := Load(RepoExec, dir); err == nil || !strings.Contains(err.Error(), "no RepoExec task file") {
		t.Fatalf("empty folder: %v", err)
	}
	testsupport.WriteFile(t, dir, "tasks.jsonl", "{}\n")
	if _, err := Load(RepoExec, dir); err == nil || !strings.Contains(err.Error(), "no valid repoexec task") {
		t.Fatalf("only bad rows: %v", err)
	}
	if _, err := Load(CoderEval, dir); err == nil || !strings.Contains(err.Error(), "no CoderEval4Python.json") {
		t.Fatalf("no CoderEval file: %v", err)
	}
}

// TestDevSubset loads the RepoExec development subset and, when the
// projects' sources are there, locates every gold function in them.
func TestDevSubset(t *testing.T) {
	data, repos := testsupport.RepoExecDev(t)
	set, err := Load(RepoExec, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Tasks) != 68 || len(set.Errors) != 0 {
		t.Fatalf("%d tasks, errors %v", len(set.Tasks), set.Errors)
	}
	if p := set.Lookup("0").Prompt; !strings.HasPrefix(p, "def reverse(input_string: str) -> str:\n    \"\"\"\n") || !strings.HasSuffix(p, ":return: Reversed string.\n    \"\"\"\n") {
		t.Errorf("task 0 prompt = %q", p)
	}
	for i := range set.Tasks {
		task := &set.Tasks[i]
		root, err := task.Locate(repos)
		if err != nil {
			t.Error(err)
			continue
		}
		src, _ := os.ReadFile(filepath.Join(root, task.File))
		lines := strings.Split(string(src), "\n")
		got := strings.Join(lines[task.Line-1:task.EndLine], "\n")
		if got != task.Gold {
			t.Errorf("task %s: lines %d-%d of %s are not the gold function", task.ID, task.Line, task.EndLine, task.File)
		}
	}
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(goodRow+"\n{\n"), false)
	f.Add([]byte("[\n"+goodRow+",\n{\"id\": 2}]"), false)
	f.Add([]byte(publishedRow+"\n"+strings.Replace(publishedRow, "540", "\"540\"", 1)+"\n"), false)
	f.Add([]byte(`{"prompt": "x", "metadata": {"task_id": "p/3", "fpath_tuple": ["p", "a.py"], "context_start_lineno": 10}}`), false)
	f.Add([]byte(`{"_id": "x", "name": "h", "lineno": "12", "file_path": "a/b.py", "metadata": []}`), false)
	f.Add([]byte(`{"RECORDS": [{"_id": "a", "name": "f", "project": "p", "file_path": "f.py", "lineno": "1", "end_lineno": 2, "code": "def f(): pass"}]}`), true)
	f.Fuzz(func(t *testing.T, data []byte, codereval bool) {
		const file = "rows.jsonl"
		set := &Set{}
		if codereval {
			set.readData(file, data, "RECORDS", func(raw []byte) (Task, error) { return parseCoderEval(raw, nil) })
		} else {
			set.readData(file, data, "", parseRepoExec)
		}
		nlines := bytes.Count(data, []byte("\n")) + 1
		for _, e := range set.Errors {
			var re *jsonl.RowError
			if !errors.As(e, &re) || re.File != file || re.Line < 1 || re.Line > nlines {
				t.Fatalf("error %v does not name a line of %s (%d lines)", e, file, nlines)
			}
		}
		for _, task := range set.Tasks {
			named := task.EntryPoint != "" || task.Line > 0 || task.DefLine > 0
			if task.ID == "" || !named || task.Line < 0 || task.DefLine < 0 || codereval && task.Prompt == "" ||
				!codereval && task.Module+task.File == "" {
				t.Fatalf("incomplete task %+v", task)
			}
		}
	})
}
