package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"actor/predictions"
)

// TestMain lets the test binary stand in for actor when it is run with an
// actor command line (as actor experiment runs itself): any first argument
// that is not a test flag runs actor (see TestActorProcess).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-test.") {
		os.Exit(execute(testEncoders()))
	}
	os.Exit(m.Run())
}

func TestExperimentTable1OnFixture(t *testing.T) {
	data, repos := runFixture(t)
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"experiment", "table1", "--benchmark", "repoexec", "--data", data, "--repos", repos, "--model", tinyModel,
		"-n", "1", "--out", out, "--probe", constProbeFile(t, 10, 64), "--threads", "1", "--step", "2",
		"--run-args", "--max-tokens 6 --budget 200 --max-blocks 2", "--bench-args", "--workers 1 --python python3"}
	stdout, stderr, code := runActor(t, append(args, "--dry-run")...)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || len(lines) != 10 || !strings.HasPrefix(lines[0], "actor run --benchmark repoexec") ||
		!strings.Contains(lines[0], "--method rawprompt --no-context -n 1") || !strings.HasPrefix(lines[9], "actor bench run") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the dry run made the output folder")
	}
	stdout, stderr, code = runActor(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, m := range []string{"rawprompt", "rawrag", "repocoder", "rlcoder", "actor"} {
		preds, _, err := predictions.Read(filepath.Join(out, "runs", m, "predictions.jsonl"))
		if err != nil || len(preds) != 2 {
			t.Errorf("%s: %d predictions, %v", m, len(preds), err)
		}
		if _, err := os.Stat(filepath.Join(out, "runs", m, "eval", "summary.md")); err != nil {
			t.Error(err)
		}
	}
	for _, f := range []string{"README.md", "report.md", "table1.png"} {
		if st, err := os.Stat(filepath.Join(out, "table1", f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	rep, _ := os.ReadFile(filepath.Join(out, "table1", "report.md"))
	if !strings.Contains(string(rep), "| ACToR | 2 | 2 |") || !strings.Contains(string(rep), "ACToR vs") {
		t.Errorf("report.md:\n%s", rep)
	}
	// Again: nothing generated or tested, the report rendered again.
	_, stderr, code = runActor(t, args...)
	if code != 0 || strings.Contains(stderr, "experiment: actor run") || strings.Contains(stderr, "experiment: actor bench") ||
		strings.Count(stderr, "every sample tested") != 5 {
		t.Errorf("second run: exit %d\n%s", code, stderr)
	}
	// The report renders where the repositories are not (a results folder
	// read on another machine), naming the sources the runs recorded.
	readme, _ := os.ReadFile(filepath.Join(out, "table1", "README.md"))
	// Folders outside the checkout are named as the docs name them.
	if bytes.Contains(readme, []byte(repos)) || !bytes.Contains(readme, []byte("--repos DIR ")) ||
		!bytes.Contains(readme, []byte("--data DATA ")) {
		t.Errorf("README.md names the machine's folders:\n%s", readme)
	}
	rendered := append(args[:len(args):len(args)], "--report-only")
	rendered[slices.Index(rendered, "--repos")+1] = filepath.Join(t.TempDir(), "gone")
	if _, stderr, code := runActor(t, rendered...); code != 0 {
		t.Errorf("--report-only without the repositories: exit %d\n%s", code, stderr)
	}
	again, _ := os.ReadFile(filepath.Join(out, "table1", "README.md"))
	sources := regexp.MustCompile("test-apps/calc [0-9a-f]{12}\n").Find(readme)
	if sources == nil || !bytes.Contains(again, sources) {
		t.Errorf("sources in README.md before:\n%s\nafter --report-only:\n%s", readme, again)
	}
	_, stderr, code = runActor(t, "experiment", "table9", "--out", out)
	if code == 0 || !strings.Contains(stderr, `no experiment "table9"`) {
		t.Errorf("unknown experiment: exit %d, %q", code, stderr)
	}
}
