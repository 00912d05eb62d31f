package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/bench/results"
	"actor/generate"
	"actor/internal/testsupport"
)

// TestGoldSection: a hand-made task whose gold body calls double (defined
// in calc/_util.py, lines 1-2); one sample starts from a block of another
// file and a context change brings _util.py, another never sees it.
func TestGoldSection(t *testing.T) {
	s := settings(t)
	root := filepath.Dir(filepath.Dir(s.Data))
	s.Repos = filepath.Join(root, "repos")
	task := `{"task_id": 1, "project": "test-apps/calc", "module": "calc.ops", "entry_point": "twice", ` +
		`"focal_function": "def twice(x):\n    \"\"\"Double x.\"\"\"\n    return double(x)", ` +
		`"code": "from ._util import double\n\ndef twice(x):\n    \"\"\"Double x.\"\"\"\n    return double(x)", "test": "def test_0():\n    pass\n"}`
	testsupport.WriteTree(t, root, map[string]string{
		"repos/test-apps/calc/calc/__init__.py": "",
		"repos/test-apps/calc/calc/_util.py":    "def double(x):\n    return 2 * x\n\n\ndef half(x):\n    return x / 2\n",
		"repos/test-apps/calc/calc/ops.py":      "from ._util import double\n\n\ndef twice(x):\n    \"\"\"Double x.\"\"\"\n    return double(x)\n",
		"data/repoexec-dev/tasks.jsonl":         task + "\n",
	})
	s.Tasks = []string{"1"}
	p, err := New("table1", s)
	if err != nil {
		t.Fatal(err)
	}
	gold, why := p.goldTasks()
	if why != "" || len(gold) != 1 || len(gold["1"]["double"]) != 1 || gold["1"]["double"][0].Path != "calc/_util.py" {
		t.Fatalf("gold %+v (%s)", gold, why)
	}

	half := []generate.Block{{Path: "calc/_util.py", Start: 5, End: 6}}
	double := []generate.Block{{Path: "calc/_util.py", Start: 1, End: 3}}
	changed := generate.Trace{Attempts: []generate.Attempt{{Blocks: half, Events: []generate.TokenEvent{
		{}, {Changed: true, Before: half, After: double}, {Changed: true, Before: double, After: append(double, half...)}}}}}
	c := sampleContexts(changed)
	if len(c.first) != 1 || len(c.final) != 2 || len(c.changes) != 2 {
		t.Fatalf("contexts %+v", c)
	}
	dir := filepath.Join(p.RunDir("actor"), "eval")
	os.MkdirAll(dir, 0o755)
	st, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Add(results.Record{TaskID: "1", Sample: 0, Method: "actor", Passed: true, Status: results.StatusPassed})
	st.Add(results.Record{TaskID: "1", Sample: 1, Method: "actor", Status: results.StatusFailed})
	st.Close()
	tr := &Traces{retrieves: true, contexts: map[sampleKey]contexts{
		{"1", 0}: c, {"1", 1}: sampleContexts(generate.Trace{Attempts: []generate.Attempt{{Blocks: half}}})}}
	rows := []row{{Run: Run{Name: "actor", Label: "ACToR"}, t: tr}, {Run: Run{Name: "rawprompt", Label: "RawPrompt"}, t: &Traces{}}}
	sec, err := p.goldSection(rows)
	if err != nil {
		t.Fatal(err)
	}
	// Two samples, neither first prompt shows double, the first's final
	// one does (1 of 1 gold names: 50 % on average); it passed, the other
	// did not; one change brought double, the other kept it.
	want := "| ACToR | 2 | 0.0 % | 50.0 % | 50.0 % | 1 of 1 / 0 of 1 | 1 / 0 / 1 |"
	if !strings.Contains(sec, want) || strings.Contains(sec, "RawPrompt") || !strings.Contains(sec, "1 of the 1 tasks have gold names") {
		t.Errorf("section lacks %q or shows RawPrompt:\n%s", want, sec)
	}

	s.Repos = filepath.Join(root, "elsewhere")
	q, _ := New("table1", s)
	if sec, err := q.goldSection(rows); err != nil || !strings.HasPrefix(sec, "Not computed: task 1: repository") {
		t.Errorf("without the repositories: %q, %v", sec, err)
	}
}
