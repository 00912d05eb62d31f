package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"actor/bench/results"
	"actor/dataset"
	"actor/predictions"
)

// TestTwins: identical code of the same task is tested once, in one folder
// and across folders tested under the same conditions; a timeout is not
// copied, another task's identical code is tested, and --test-twins tests
// everything.
func TestTwins(t *testing.T) {
	requirePytest(t)
	f := newFixture(t)
	pred := func(method, task string, sample int, code string) predictions.Prediction {
		return predictions.Prediction{TaskID: task, Sample: sample, Code: code, Method: method, Model: "hand"}
	}
	const sum, diff, spin = "    return a + b\n", "    return a - b\n", "    while True:\n        pass\n"
	root := t.TempDir()
	run := func(name string, cfg Config, preds ...any) (*Outcome, map[string]results.Record, string) {
		t.Helper()
		var log bytes.Buffer
		cfg.Benchmark, cfg.Data, cfg.Repos, cfg.Workers, cfg.Log = dataset.RepoExec, f.data, f.repos, 2, &log
		cfg.Out = filepath.Join(root, name)
		if cfg.Timeout == 0 {
			cfg.Timeout = 20 * time.Second
		}
		dir := filepath.Join(root, name+"-predictions")
		os.MkdirAll(dir, 0o755)
		cfg.Predictions = writePredictions(t, dir, preds...)
		out, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, log.String())
		}
		recs, err := results.Read(filepath.Join(cfg.Out, results.SamplesFile))
		if err != nil {
			t.Fatal(err)
		}
		by := map[string]results.Record{}
		for _, r := range recs {
			by[fmt.Sprintf("%s/%d", r.TaskID, r.Sample)] = r
		}
		return out, by, log.String()
	}
	check := func(name string, by map[string]results.Record, key, status, twin string) {
		t.Helper()
		if r := by[key]; r.Status != status || r.Twin != twin {
			t.Errorf("%s sample %s: %s twin %q, want %s twin %q", name, key, r.Status, r.Twin, status, twin)
		}
	}

	// The spinning samples' time limit leaves a loaded machine room to
	// start Python and pytest for the others (3 s did not, beside a run).
	out, a, _ := run("a", Config{Timeout: 10 * time.Second},
		pred("a", "1", 0, sum), pred("a", "1", 1, diff), pred("a", "1", 2, sum), pred("a", "1", 3, spin), pred("a", "1", 4, spin))
	if out.Evaluated != 4 || out.Twins != 1 {
		t.Errorf("a: %d tested, %d twins; want 4 and 1", out.Evaluated, out.Twins)
	}
	check("a", a, "1/0", results.StatusPassed, "")
	check("a", a, "1/2", results.StatusPassed, "sample 0 (a)")
	check("a", a, "1/3", results.StatusTimeout, "")
	check("a", a, "1/4", results.StatusTimeout, "")
	if md, _ := os.ReadFile(filepath.Join(root, "a", results.SummaryMD)); !bytes.Contains(md, []byte("1 of 5 samples took the outcome")) {
		t.Errorf("a: summary.md does not count the twin:\n%s", md)
	}

	// Task 2 with task 1's passing code fails its own tests (add is not twice).
	out, b, _ := run("b", Config{Timeout: 10 * time.Second, Reuse: []string{filepath.Join(root, "a")}},
		pred("b", "1", 0, diff), pred("b", "1", 1, "    return b + a\n"), pred("b", "2", 0, sum))
	if out.Evaluated != 2 || out.Twins != 1 {
		t.Errorf("b: %d tested, %d twins; want 2 and 1", out.Evaluated, out.Twins)
	}
	check("b", b, "1/0", results.StatusFailed, "../a sample 1 (a)")
	check("b", b, "1/1", results.StatusPassed, "")
	check("b", b, "2/0", results.StatusFailed, "")
	if !strings.HasPrefix(b["1/0"].Reason, "exit status 1: test_0: assert -1 == 3") {
		t.Errorf("b: the twin's reason was not copied: %q", b["1/0"].Reason)
	}

	// Another time limit: a's outcomes do not stand.
	out, _, log := run("c", Config{Reuse: []string{filepath.Join(root, "a")}}, pred("c", "1", 0, sum))
	if out.Twins != 0 || out.Evaluated != 1 || !strings.Contains(log, "not used, another time limit (10s)") {
		t.Errorf("c: %d tested, %d twins; log:\n%s", out.Evaluated, out.Twins, log)
	}

	out, d, _ := run("d", Config{TestTwins: true}, pred("d", "1", 0, sum), pred("d", "1", 1, sum))
	if out.Twins != 0 || out.Evaluated != 2 || d["1/1"].Twin != "" {
		t.Errorf("d (--test-twins): %d tested, %d twins", out.Evaluated, out.Twins)
	}
}
