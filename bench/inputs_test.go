package bench

import (
	"strings"
	"testing"

	"actor/dataset"
)

// A task without a test program loads (it can be generated) but is not
// evaluated: an input error names it, the other tasks run.
func TestLoadJobsSkipsTasksWithoutTests(t *testing.T) {
	set := &dataset.Set{Benchmark: dataset.RepoExec, Tasks: []dataset.Task{
		{Benchmark: dataset.RepoExec, ID: "1", Test: "def test_0(): pass", Gold: "def f(): pass", Origin: "tasks.jsonl:1"},
		{Benchmark: dataset.RepoExec, ID: "2", Gold: "def g(): pass", Origin: "tasks.jsonl:2"},
	}}
	tasks := []*dataset.Task{&set.Tasks[0], &set.Tasks[1]}
	jobs, errs, err := loadJobs(Config{Gold: true}, set, tasks)
	if err != nil || len(jobs) != 1 || jobs[0].task.ID != "1" {
		t.Fatalf("gold jobs %+v, %v", jobs, err)
	}
	if len(errs) != 1 || errs[0] != "tasks.jsonl:2: task 2 has no test program (field test/check): not evaluated" {
		t.Errorf("errors %q", errs)
	}
	preds := writePredictions(t, t.TempDir(),
		`{"task_id": 1, "sample": 0, "code": "x"}`, `{"task_id": 2, "sample": 0, "code": "y"}`)
	jobs, errs, err = loadJobs(Config{Predictions: preds}, set, tasks)
	if err != nil || len(jobs) != 1 || jobs[0].task.ID != "1" || len(errs) != 1 {
		t.Fatalf("prediction jobs %+v, errors %q, %v", jobs, errs, err)
	}
	if _, _, err := loadJobs(Config{Gold: true}, set, tasks[1:]); err == nil || !strings.Contains(err.Error(), "no task with a test program") {
		t.Errorf("only untestable tasks: %v", err)
	}
}

// TestPublishedOnly keeps RepoExec's published tasks and refuses a named
// one that is not.
func TestPublishedOnly(t *testing.T) {
	in := &dataset.Task{Benchmark: dataset.RepoExec, ID: "498", ProblemID: "498"}
	out := &dataset.Task{Benchmark: dataset.RepoExec, ID: "224", ProblemID: "224"} // left out of the 355
	got, err := publishedOnly([]*dataset.Task{in, out}, false)
	if err != nil || len(got) != 1 || got[0] != in {
		t.Fatalf("all tasks: %v, %v; want 498 alone", got, err)
	}
	if _, err := publishedOnly([]*dataset.Task{in, out}, true); err == nil || !strings.Contains(err.Error(), "task 224 is not one of") {
		t.Errorf("named tasks: %v", err)
	}
}
