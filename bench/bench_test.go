package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"actor/bench/results"
	"actor/bench/sandbox"
	"actor/dataset"
	"actor/internal/testsupport"
	"actor/predictions"
)

// childEnv makes the test binary run one benchmark (its JSON Config) and
// exit: the SIGKILL test kills such a child in the middle of a run.
const childEnv = "ACTOR_BENCH_TEST_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		var cfg Config
		if err := json.Unmarshal([]byte(v), &cfg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if _, err := Run(context.Background(), cfg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func requirePytest(t *testing.T) {
	t.Helper()
	if out, err := exec.Command("python3", "-m", "pytest", "--version").CombinedOutput(); err != nil {
		t.Fatalf("python3 with pytest is required: %v\n%s", err, out)
	}
}

func TestFixtureGold(t *testing.T) {
	requirePytest(t)
	f := newFixture(t)
	var log bytes.Buffer
	// Without the repositories the samples cannot be tested: recorded as
	// harness errors, and tried again by the next run.
	out, err := Run(context.Background(), Config{Benchmark: dataset.RepoExec, Data: f.data, Repos: t.TempDir(), Gold: true, Out: f.out, Workers: 2, Log: &log})
	if err != nil || out.Groups[0].Errors != 2 {
		t.Fatalf("run without repositories: %v %+v\n%s", err, out, log.String())
	}
	out, err = Run(context.Background(), Config{Benchmark: dataset.RepoExec, Data: f.data, Repos: f.repos, Gold: true, Out: f.out, Workers: 2, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if out.Evaluated != 2 || out.Resumed != 0 {
		t.Fatalf("evaluated %d resumed %d, want 2 and 0", out.Evaluated, out.Resumed)
	}
	if len(out.Groups) != 1 || out.Groups[0].Passed != 2 || out.Groups[0].PassAt[1] != 1 {
		recs, _ := results.Read(filepath.Join(f.out, results.SamplesFile))
		t.Fatalf("gold groups %+v\nrecords %+v\nlog %s", out.Groups, recs, log.String())
	}
	for _, name := range []string{results.SummaryMD, results.SummaryCSV, results.MetaFile} {
		if _, err := os.Stat(filepath.Join(f.out, name)); err != nil {
			t.Error(err)
		}
	}
	// The projects' own files are untouched by the substitution.
	if b, _ := os.ReadFile(filepath.Join(f.repos, "test-apps", "calc", "calc", "ops.py")); string(b) != opsSource {
		t.Fatal("ops.py was modified")
	}
}

// TestFixturePredictions runs right, wrong and hostile candidates: each is
// recorded with the right status and reason, the hostile ones harm nothing,
// and malformed predictions lines are reported by line while the rest runs.
func TestFixturePredictions(t *testing.T) {
	requirePytest(t)
	f := newFixture(t)
	py, err := resolvePython("python3")
	if err != nil {
		t.Fatal(err)
	}
	box, err := sandbox.New(py.reach...) // as Run will make it
	if err != nil {
		t.Fatal(err)
	}
	iso := box.Isolation()
	box.Close()
	// Without the protections the hostile samples do what they want (the
	// sentinel is gone); their status is then not checked.
	hostile := func(protected bool, reason string) (string, string) {
		if protected {
			return results.StatusFailed, reason
		}
		return "", ""
	}
	rmStatus, rmReason := hostile(iso.ProtectsFiles(), "exit status 1: test_0: ")
	netStatus, netReason := hostile(iso.Network, "exit status 1: test_0: ")

	outside := t.TempDir()
	sentinel := filepath.Join(outside, "keep", "data.txt")
	os.MkdirAll(filepath.Dir(sentinel), 0o755)
	os.WriteFile(sentinel, []byte("precious"), 0o644)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	connected := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			connected <- struct{}{}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port

	p := func(task string, sample int, code string) predictions.Prediction {
		return predictions.Prediction{TaskID: task, Sample: sample, Code: code, Method: "fixture", Model: "hand",
			Figures: predictions.Figures{Tokens: 10, GoldTokens: 5, MsPerToken: 2, Seconds: 1}}
	}
	preds := writePredictions(t, t.TempDir(),
		p("1", 0, "    return a + b\n\ndef unrelated():\n    pass\n"),
		p("1", 1, "    return a - b\n"),
		p("1", 2, "    while True:\n        pass\n"),
		p("1", 3, fmt.Sprintf("    import shutil\n    shutil.rmtree(%q)\n    return a + b\n", filepath.Dir(sentinel))),
		p("1", 4, fmt.Sprintf("    import socket\n    socket.create_connection(('127.0.0.1', %d), timeout=3)\n    return a + b\n", port)),
		p("1", 5, "    import os\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass\n"),
		p("1", 6, "    x = bytearray(50 * 1024 ** 3)\n    return a + b\n"),
		p("1", 7, "```python\ndef helper():\n    pass\n\ndef add(a, b):\n    return b + a\n```\nThis adds."),
		`{"task_id": 1, "sample": 9}`,
		`{"task_id": 77, "sample": 0, "code": "x"}`,
		p("2", 0, "def twice(x):\n    return double(x)\n"),
		p("2", 1, "    return x * 2\n"),
	)
	var log bytes.Buffer
	start := time.Now()
	out, err := Run(context.Background(), Config{Benchmark: dataset.RepoExec, Data: f.data, Repos: f.repos, Predictions: preds,
		Out: f.out, Workers: 2, Timeout: 30 * time.Second, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Logf("10 samples in %s", time.Since(start).Round(time.Millisecond))
	recs, err := results.Read(filepath.Join(f.out, results.SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]results.Record{}
	for _, r := range recs {
		by[fmt.Sprintf("%s/%d", r.TaskID, r.Sample)] = r
	}
	want := []struct {
		key, status, reason string
	}{
		{"1/0", results.StatusPassed, ""},
		{"1/1", results.StatusFailed, "exit status 1: test_0: assert -1 == 3"},
		{"1/2", results.StatusTimeout, "timeout: killed after 3"},
		{"1/3", rmStatus, rmReason},
		{"1/4", netStatus, netReason},
		{"1/5", results.StatusTimeout, "timeout: killed after 3"},
		{"1/6", results.StatusFailed, "exit status 1: test_0: MemoryError"},
		{"1/7", results.StatusPassed, ""},
		{"2/0", results.StatusPassed, ""},
		{"2/1", results.StatusPassed, ""},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d:\n%+v\n%s", len(recs), len(want), recs, log.String())
	}
	for _, w := range want {
		r := by[w.key]
		if r.Status == "" || w.status != "" && (r.Status != w.status || !strings.HasPrefix(r.Reason, w.reason)) {
			t.Errorf("sample %s: %s %q, want %s %q\n%s", w.key, r.Status, r.Reason, w.status, w.reason, r.Output)
		}
	}
	if r := by["1/3"].Reason; iso.ProtectsFiles() && !strings.Contains(r, "PermissionError") && !strings.Contains(r, "Read-only file system") {
		t.Errorf("rmtree outside: reason %q", r)
	}
	if !iso.ProtectsFiles() && os.Getenv("ACTOR_REQUIRE_SANDBOX") == "1" {
		t.Error("files outside the workspace are not protected here")
	}
	if b, err := os.ReadFile(sentinel); iso.ProtectsFiles() && string(b) != "precious" {
		t.Errorf("file outside the workspace damaged: %v", err)
	}
	if iso.Network {
		select {
		case <-connected:
			t.Error("a candidate reached a listener outside the sandbox")
		default:
		}
	} else if os.Getenv("ACTOR_REQUIRE_SANDBOX") == "1" {
		t.Error("no network namespace here")
	}
	for _, e := range []string{preds + ":9: missing field code", preds + ":10: unknown task id 77"} {
		if !containsPrefix(out.Meta.InputErrors, e) {
			t.Errorf("input errors %q lack %q", out.Meta.InputErrors, e)
		}
	}
	g := out.Groups[0]
	// Task 1: 2 of 8 pass; task 2: 2 of 8 (6 samples missing count as failed).
	if g.N != 8 || g.Passed != 4 || len(g.Missing) != 1 || math.Abs(g.PassAt[1]-0.25) > 1e-12 || math.Abs(g.PassAt[5]-(1-3.0/28)) > 1e-12 {
		t.Errorf("group %+v", g)
	}
	if v, _ := g.GoldRatio.Value(); v != 2 {
		t.Errorf("tokens/gold on passing samples = %v", v)
	}
	md, _ := os.ReadFile(filepath.Join(f.out, results.SummaryMD))
	if !bytes.Contains(md, []byte("| fixture | hand | 2 | 8 | 10 | 4 | 2 | 0 | 25.00 |")) {
		t.Errorf("summary.md:\n%s", md)
	}
}

// TestResumeAfterSIGKILL kills a run with SIGKILL in the middle, then runs
// it again: no finished sample is lost and none is evaluated twice.
func TestResumeAfterSIGKILL(t *testing.T) {
	requirePytest(t)
	f := newFixture(t)
	var lines []any
	const total = 6
	for i := 0; i < total; i++ {
		// Each sample's code is its own (a twin would take an outcome
		// instead of being tested).
		body := fmt.Sprintf("    import time\n    time.sleep(0.5)\n    return a + b  # %d\n", i)
		if i%2 == 1 {
			body = fmt.Sprintf("    return a * b  # %d\n", i)
		}
		lines = append(lines, predictions.Prediction{TaskID: "1", Sample: i, Code: body, Method: "m"})
	}
	preds := writePredictions(t, t.TempDir(), lines...)
	// The killed child cannot remove its workspaces and helper copy: give
	// it a temporary folder of its own (any user may pass through it).
	tmp, err := sandbox.WorkRoot("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	cfg := Config{Benchmark: dataset.RepoExec, Data: f.data, Repos: f.repos, Predictions: preds, Out: f.out, Workers: 1, Timeout: 30 * time.Second, WorkDir: tmp}
	enc, _ := json.Marshal(cfg)
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+string(enc), "TMPDIR="+tmp)
	samples := filepath.Join(f.out, results.SamplesFile)
	testsupport.KillWhen(t, child, samples, 2)
	before, _ := os.ReadFile(samples)
	n := testsupport.CountLines(samples)
	if n >= total {
		t.Fatalf("the child finished before it was killed (%d records)", n)
	}
	// A torn line, as a kill in the middle of a write leaves it.
	fh, _ := os.OpenFile(samples, os.O_APPEND|os.O_WRONLY, 0)
	fh.WriteString(`{"task_id": "1", "sample": 5, "meth`)
	fh.Close()

	cfg.Workers = 2
	out, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if out.Resumed != n || out.Evaluated != total-n {
		t.Fatalf("resumed %d evaluated %d, want %d and %d", out.Resumed, out.Evaluated, n, total-n)
	}
	after, _ := os.ReadFile(samples)
	if !bytes.HasPrefix(after, before) {
		t.Fatal("records written before the kill changed")
	}
	recs, _ := results.Read(samples)
	if testsupport.CountLines(samples) != total || len(recs) != total {
		t.Fatalf("%d lines, %d distinct samples, want %d", testsupport.CountLines(samples), len(recs), total)
	}
	if g := out.Groups[0]; g.Passed != total/2 || g.N != total {
		t.Fatalf("group %+v", g)
	}
	// A third run has nothing left to do.
	out, err = Run(context.Background(), cfg)
	if err != nil || out.Evaluated != 0 || out.Resumed != total {
		t.Fatalf("third run: evaluated %d resumed %d err %v", out.Evaluated, out.Resumed, err)
	}
	// Changed code for a finished sample is refused, not mixed in.
	lines[0] = predictions.Prediction{TaskID: "1", Sample: 0, Code: "    return 0\n", Method: "m"}
	cfg.Predictions = writePredictions(t, t.TempDir(), lines...)
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "different code") {
		t.Fatalf("changed predictions: %v", err)
	}
}

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
