package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/internal/testsupport"
)

// publishedRow is a row as RepoExec's data_with_test_case/*/pass_data.jsonl
// files write it: problem_ids an integer, test_list the test functions.
const publishedRow = `{"problem_ids": 540, "project": "test-apps/PySnooper", "focal_function": "def normalize_repr(item_repr):\n    \"\"\"Remove memory address (0x...) from a default python repr\"\"\"\n    return DEFAULT_REPR_RE.sub('', item_repr)", "module": "pysnooper.utils", "code": "import re\n", "entry_point": "normalize_repr", "test": "import sys\nsys.path.insert(1, \"/input/test-apps/PySnooper\")\ndef test_0():\n    assert normalize_repr(repr(set())) == \"set()\"\n", "test_list": ["def test_0():\n    assert normalize_repr(repr(set())) == \"set()\""]}`

// TestPublishedLayout loads a folder laid out as RepoExec's
// data_with_test_case: one folder per project, its pass_data.jsonl read (at
// any depth, in path order) and its failed_data.jsonl (tasks whose gold
// failed when the benchmark was made) and test_output pickles left alone.
func TestPublishedLayout(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"test-apps+PySnooper/test_output/pysnooper+utils/normalize_repr", "test-apps+black+src"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testsupport.WriteFile(t, dir, "test-apps+PySnooper/pass_data.jsonl", publishedRow+"\n")
	testsupport.WriteFile(t, dir, "test-apps+PySnooper/failed_data.jsonl", strings.Replace(publishedRow, "540", "541", 1)+"\n")
	testsupport.WriteFile(t, dir, "test-apps+PySnooper/test_output/pysnooper+utils/normalize_repr/test_0", "I3\n.")
	black := strings.NewReplacer("540", "7", "PySnooper", "black/src").Replace(publishedRow)
	testsupport.WriteFile(t, dir, "test-apps+black+src/pass_data.jsonl", black+"\n{not json\n")
	set, err := Load(RepoExec, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Tasks) != 2 || set.Tasks[0].ID != "540" || set.Tasks[1].ID != "7" || set.Tasks[1].Project != "test-apps/black/src" {
		t.Fatalf("tasks %+v", set.Tasks)
	}
	if len(set.Files) != 2 || filepath.Base(set.Files[0]) != "pass_data.jsonl" {
		t.Errorf("files %v", set.Files)
	}
	want := filepath.Join(dir, "test-apps+black+src", "pass_data.jsonl") + ":2: not a valid JSON value"
	if len(set.Errors) != 1 || set.Errors[0].Error() != want {
		t.Errorf("errors %v, want [%s]", set.Errors, want)
	}
	p := set.Tasks[0].Prompt
	if p != "def normalize_repr(item_repr):\n    \"\"\"Remove memory address (0x...) from a default python repr\"\"\"\n" {
		t.Errorf("prompt %q", p)
	}
}

// TestDevTasksArePublished: the development rows (testdata) carry
// problem_ids next to their task_id, and the embedded map of the 355
// published tasks must agree with each. (Loading RepoExec's whole
// data_with_test_case folder is exercised by actor bench run --published,
// with the data at hand; it cannot be fetched here.)
func TestDevTasksArePublished(t *testing.T) {
	devSet, err := Load(RepoExec, testsupport.Fixture(t, "testdata/repoexec-dev"))
	if err != nil {
		t.Fatal(err)
	}
	if len(devSet.Tasks) != 68 {
		t.Fatalf("%d development tasks, want 68", len(devSet.Tasks))
	}
	for _, d := range devSet.Tasks {
		if id, ok := RepoExecPublished(d.ProblemID); !ok || id != d.ID || !d.Published() {
			t.Errorf("dev task %s (problem %s): the published map gives %q, %v", d.ID, d.ProblemID, id, ok)
		}
	}
}

// TestPublishedMap checks the embedded map of RepoExec's 355 published
// tasks: task ids 0–354 each once, distinct rows, and the selection of a
// row by its problem_ids.
func TestPublishedMap(t *testing.T) {
	m := repoexecPublished()
	seen := map[int]bool{}
	for _, id := range m {
		if id < 0 || id > 354 || seen[id] {
			t.Fatalf("task id %d out of range or repeated", id)
		}
		seen[id] = true
	}
	if len(m) != 355 {
		t.Fatalf("%d published tasks, want 355", len(m))
	}
	in := Task{Benchmark: RepoExec, ID: "540", ProblemID: "540"}
	out := Task{Benchmark: RepoExec, ID: "224", ProblemID: "224"} // left out of the 355
	export := Task{Benchmark: RepoExec, ID: "12"}
	if id, ok := RepoExecPublished("540"); !ok || id != "354" || !in.Published() || out.Published() || !export.Published() {
		t.Errorf("540 -> %q %v; published: 540 %v, 224 %v, export row %v", id, ok, in.Published(), out.Published(), export.Published())
	}
	if (&Task{Benchmark: CoderEval, ID: "x"}).Published() {
		t.Error("a CoderEval task counted as published RepoExec")
	}
}
