package recall_test

import (
	"os"
	"path/filepath"
	"testing"

	"actor/dataset"
	"actor/generate"
	"actor/index"
	"actor/internal/testsupport"
	"actor/retrieve"
	"actor/retrieve/recall"
)

// TestDevBM25Recall recomputes the BM25 row of BENCHMARKS.md's recall@10
// table on the 68 development tasks and holds it to the published figures
// (three decimals) of the sources' layout: codamosa's test-apps (with the
// projects' tests/) or the PyPI release folders make test lays out.
func TestDevBM25Recall(t *testing.T) {
	dev, repos := testsupport.RepoExecDev(t)
	set, err := dataset.Load(dataset.RepoExec, dev)
	if err != nil {
		t.Fatal(err)
	}
	walk := index.WalkOptions{Include: []string{"*.py"}}
	projects := map[string]recall.Project{}
	var scores []recall.Score
	for i := range set.Tasks {
		task := &set.Tasks[i]
		p, ok := projects[task.Project]
		if !ok {
			root, err := task.Root(repos)
			if err != nil {
				t.Fatal(err)
			}
			c, err := generate.ReadCorpus(root, walk)
			if err != nil {
				t.Fatal(err)
			}
			repo, err := recall.LoadRepo(root, walk)
			if err != nil {
				t.Fatal(err)
			}
			p = recall.Project{Root: root, Repo: repo, Retriever: c.BM25().(*retrieve.Retriever)}
			projects[task.Project] = p
		}
		ts, err := recall.ScoreTask(p, task, 10)
		if err != nil {
			t.Fatal(err)
		}
		scores = append(scores, ts.Score)
	}
	s := recall.Summarize(scores)
	want := struct{ hit, recall float64 }{0.674, 0.437} // PyPI release folders
	if _, err := os.Stat(filepath.Join(repos, "test-apps", "python-string-utils", "tests")); err == nil {
		want.hit, want.recall = 0.522, 0.359 // codamosa's test-apps
	}
	if diff(s.Hit, want.hit) > 0.0005 || diff(s.Recall, want.recall) > 0.0005 {
		t.Errorf("BM25 on %d tasks: hit@10 %.3f, recall@10 %.3f; BENCHMARKS.md says %.3f, %.3f", len(scores), s.Hit, s.Recall, want.hit, want.recall)
	}
}

func diff(a, b float64) float64 {
	if a > b {
		return a - b
	}
	return b - a
}
