package recall

import (
	"path/filepath"
	"reflect"
	"testing"

	"actor/dataset"
	"actor/index"
	"actor/internal/testsupport"
	"actor/retrieve"
)

var repoFiles = map[string][]byte{
	"pkg/util.py": []byte(`def helper(x):
    return x

def other():
    pass

class Box:
    def put(self, v):
        self.v = v

def format():
    pass
`),
	"pkg/main.py": []byte(`from .util import helper, Box

LIMIT = 3

def early():
    return 1

def target(a):
    """Use things."""
    b = Box()
    b.put(helper(a) + early() + LIMIT + later())
    return missing(b).format()

def later():
    return 2
`),
	"tests/test_util.py": []byte("def helper(x):\n    return 0\n"),
}

func TestGold(t *testing.T) {
	r, err := NewRepo(repoFiles)
	if err != nil {
		t.Fatal(err)
	}
	tg := retrieve.Target{Path: "pkg/main.py", Exclusion: retrieve.Exclusion{Path: "pkg/main.py", StartLine: 8}}
	tg.Function.Start, tg.Function.DeclStart, tg.Function.End = 8, 8, 12
	gold, err := r.Gold(tg)
	if err != nil {
		t.Fatal(err)
	}
	// helper: other file (the test copy is not library code); Box: class;
	// put: method; early and LIMIT: own file, before the target; later is
	// after the target (hidden), missing is defined nowhere, format is a
	// built-in type's method.
	want := Gold{
		"Box":    {{"pkg/util.py", 7, 9}},
		"LIMIT":  {{"pkg/main.py", 3, 3}},
		"early":  {{"pkg/main.py", 5, 6}},
		"helper": {{"pkg/util.py", 1, 2}},
		"put":    {{"pkg/util.py", 8, 9}},
	}
	if !reflect.DeepEqual(gold, want) {
		t.Errorf("gold %v\nwant %v", gold, want)
	}

	results := []retrieve.Result{
		{Candidate: index.Candidate{Path: "pkg/util.py", Start: 4, End: 5}}, // other(): no gold
		{Candidate: index.Candidate{Path: "pkg/util.py", Start: 2, End: 7}}, // overlaps helper and Box
		{Candidate: index.Candidate{Path: "pkg/main.py", Start: 1, End: 2}}, // import line only
	}
	s := Evaluate(gold, results)
	if s.Gold != 5 || !reflect.DeepEqual(s.Recalled, []string{"Box", "helper"}) || !s.Hit() {
		t.Errorf("score %+v", s)
	}
	sum := Summarize([]Score{s, {Gold: 2}, {Gold: 0}})
	if sum != (Summary{Tasks: 3, Counted: 2, Hit: 0.5, Recall: (2.0 / 5) / 2}) {
		t.Errorf("summary %+v", sum)
	}
}

func TestIsTestFile(t *testing.T) {
	for p, want := range map[string]bool{
		"tests/a.py": true, "pkg/test/b.py": true, "test_x.py": true, "x_test.py": true,
		"conftest.py": true, "pkg/testing/c.py": true, "pkg/latest.py": false, "contest.py": false,
	} {
		if IsTestFile(p) != want {
			t.Errorf("IsTestFile(%q) != %v", p, want)
		}
	}
}

// TestRepoExecDevBM25 runs the metric on the RepoExec dev tasks with BM25
// over Split-and-Aggregate candidates (the numbers in the report; `actor
// recall` computes the same through the index).
func TestRepoExecDevBM25(t *testing.T) {
	dev, repos := testsupport.RepoExecDev(t)
	tasksFile := filepath.Join(dev, "tasks.jsonl")
	set, err := dataset.Load(dataset.RepoExec, tasksFile)
	if err != nil {
		t.Fatal(err)
	}
	tasks := set.Tasks
	walk := index.WalkOptions{Include: []string{"*.py"}}
	projects := map[string]Project{}
	var scores []Score
	for i, tk := range tasks {
		p, ok := projects[tk.Project]
		if !ok {
			root := filepath.Join(repos, tk.Project)
			repo, err := LoadRepo(root, walk)
			if err != nil {
				t.Fatal(err)
			}
			var cands []index.Candidate
			index.Walk(root, walk, func(f index.File) error {
				cands = append(cands, index.DefaultSplitter.Split(f.Path, string(f.Data))...)
				return nil
			})
			cands = index.Dedup(cands)
			texts := make([]string, len(cands))
			for i, c := range cands {
				texts[i] = c.Text
			}
			p = Project{Root: root, Repo: repo, Retriever: retrieve.New(cands, retrieve.NewBM25(texts, retrieve.DefaultBM25))}
			projects[tk.Project] = p
		}
		ts, err := ScoreTask(p, &tasks[i], 10)
		if err != nil {
			t.Fatalf("task %s: %v", tk.ID, err)
		}
		for _, r := range ts.Results {
			if ts.Target.Exclusion.Excludes(r.Candidate) {
				t.Fatalf("task %s: excluded block %s:%d-%d retrieved", tk.ID, r.Path, r.Start, r.End)
			}
		}
		var names []string
		for n := range ts.Gold {
			names = append(names, n)
		}
		t.Logf("task %s %s: gold %v recalled %v", tk.ID, tk.EntryPoint, names, ts.Recalled)
		scores = append(scores, ts.Score)
	}
	s := Summarize(scores)
	t.Logf("BM25 on %d RepoExec dev tasks: %d with gold; hit@10 %.3f, name recall@10 %.3f", s.Tasks, s.Counted, s.Hit, s.Recall)
	if s.Tasks != 68 || s.Counted == 0 {
		t.Errorf("summary %+v", s)
	}
}
