package report

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"actor/bench/results"
	"actor/internal/testsupport"
	"actor/predictions"
)

// makeRun writes a results folder with the given records.
func makeRun(t *testing.T, bench string, tasks []string, recs []results.Record) string {
	t.Helper()
	dir := t.TempDir()
	s, err := results.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := s.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if err := results.WriteMeta(dir, results.Meta{Benchmark: bench, Tasks: tasks}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func rec(task string, sample int, method string, passed bool, tokens, gold int, ms, sec float64) results.Record {
	st := results.StatusFailed
	if passed {
		st = results.StatusPassed
	}
	return results.Record{TaskID: task, Sample: sample, Method: method, Model: "ds-1.3b", Passed: passed, Status: st,
		Figures: predictions.Figures{Tokens: tokens, GoldTokens: gold, MsPerToken: ms, Seconds: sec, Triggers: 2}}
}

func TestTables(t *testing.T) {
	var a, b []results.Record
	for i := 0; i < 5; i++ {
		// actor: task 1 passes 2 of 5, task 2 passes 5 of 5.
		a = append(a, rec("1", i, "actor", i < 2, 30, 20, 22.6, 2.66), rec("2", i, "actor", true, 10, 10, 22.6, 2.66))
		// rawrag: task 1 passes 0 of 5, task 2 passes 1 of 5.
		b = append(b, rec("1", i, "rawrag", false, 40, 20, 19.3, 4.5), rec("2", i, "rawrag", i == 0, 50, 10, 19.3, 4.5))
	}
	d1 := makeRun(t, "repoexec", []string{"1", "2"}, a)
	d2 := makeRun(t, "repoexec", []string{"1", "2"}, b)
	d3 := makeRun(t, "codereval", []string{"x"}, []results.Record{rec("x", 0, "actor", true, 5, 5, 20, 1)})
	rows, err := Load([]string{d1, d2, d3})
	if err != nil {
		t.Fatal(err)
	}
	md := string(Markdown(rows))
	// actor repoexec: pass@1 = (0.4+1)/2 = 70%, pass@3 = (0.9+1)/2 = 95%, pass@5 = 100%.
	// rawrag: pass@1 = (0+0.2)/2 = 10%, pass@3 = (0+0.6)/2 = 30%, pass@5 = 50%.
	// tokens/gold on passing samples (actor): (2*1.5 + 5*1)/7.
	for _, want := range []string{
		"| model | method | repoexec pass@1 | repoexec pass@3 | repoexec pass@5 | codereval pass@1 | codereval pass@3 | codereval pass@5 |",
		"| ds-1.3b | actor | 70.00 | 95.00 | 100.00 | 100.00 | – | – |",
		"| ds-1.3b | rawrag | 10.00 | 30.00 | 50.00 | – | – | – |",
		"| repoexec | ds-1.3b | actor | 2 | 5 | 22.6 | 2.66 | 20.0 | 1.14 | 2.00 | 0.00 |",
		"| repoexec | ds-1.3b | rawrag | 2 | 5 | 19.3 | 4.50 | 45.0 | 5.00 | 2.00 | 0.00 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("tables lack %q:\n%s", want, md)
		}
	}
	// actor on repoexec: tasks at 40 % and 100 % pass@1, so the bootstrap
	// interval over the two tasks runs from one to the other.
	if v, lo, hi := PassAtPct(rows[0].Group, 1); rows[0].Method != "actor" || math.Abs(v-70) > 1e-9 || math.Abs(lo-40) > 1e-9 || math.Abs(hi-100) > 1e-9 {
		t.Errorf("%s pass@1 %v [%v, %v], want 70 [40, 100]", rows[0].Method, v, lo, hi)
	}
	if v, _, _ := PassAtPct(rows[1].Group, 3); rows[1].Benchmark != "codereval" || !math.IsNaN(v) {
		t.Errorf("pass@3 of one sample: %v, want NaN", v)
	}
	out := filepath.Join(t.TempDir(), "chart.png")
	if err := Chart(rows, out); err != nil {
		t.Fatal(err)
	}
	testsupport.CheckPNG(t, out, 400)
	if _, err := Load([]string{d1, d1}); err == nil || !strings.Contains(err.Error(), "is in both") {
		t.Fatalf("duplicate folder: %v", err)
	}
	if _, err := Load([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "not a results folder") {
		t.Fatalf("empty folder: %v", err)
	}
}
