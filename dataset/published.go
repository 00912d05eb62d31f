package dataset

import (
	_ "embed"
	"encoding/json"
	"strconv"
	"sync"
)

// repoexecPublished maps each of the 355 tasks RepoExec publishes (its
// Hugging Face export, task_id 0–354) to the row of
// data_with_test_case/*/pass_data.jsonl it was made from (problem_ids):
// that folder holds 430 rows, 75 of which the benchmark left out. The
// export itself cannot be fetched here; the map was rebuilt from the
// RepoExec repository's results/examples/execution_rs/repoexec-full-context/
// BasePrompt-phi-2/results_<task_id>.jsonl (commit 3998bb5): each task's
// generated function name matched against the rows' entry points, 339
// tasks by a unique match, 13 by their neighbours' project, the three
// docstring_parser tasks by being that project's only rows, and two pairs
// of flutils tasks (encode, decode) to a pair of rows each, so the set of
// rows is exact even where the order within a pair is not. The 68 dev
// tasks, whose rows carry both ids, all agree with it.
//
//go:embed repoexec_published.json
var repoexecPublishedJSON []byte

var repoexecPublished = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	if err := json.Unmarshal(repoexecPublishedJSON, &m); err != nil {
		panic("dataset: embedded repoexec_published.json: " + err.Error())
	}
	return m
})

// RepoExecPublished returns the published task id (0–354) of the
// data_with_test_case row with this problem id, and whether the row is one
// of the 355 published tasks.
func RepoExecPublished(problemID string) (string, bool) {
	id, ok := repoexecPublished()[problemID]
	return strconv.Itoa(id), ok
}

// Published reports whether the task is one of RepoExec's 355 published
// tasks: a data_with_test_case row the export was made from, or a row
// without problem_ids (the export's and ACToR's task files, made from it).
func (t *Task) Published() bool {
	if t.Benchmark != RepoExec {
		return false
	}
	if t.ProblemID == "" {
		return true
	}
	_, ok := RepoExecPublished(t.ProblemID)
	return ok
}
