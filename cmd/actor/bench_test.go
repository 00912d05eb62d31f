package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/bench/envs"
	"actor/internal/testsupport"
	"actor/pipeline"

	"github.com/spf13/pflag"
)

// benchFixture writes a one-task RepoExec benchmark (a package with a
// relative import) and returns its data and repositories folders.
func benchFixture(t *testing.T) (data, repos string) {
	t.Helper()
	root := t.TempDir()
	data, repos = filepath.Join(root, "data"), filepath.Join(root, "repos")
	row, _ := json.Marshal(map[string]any{
		"task_id": 0, "project": "test-apps/tiny", "module": "tiny.m", "entry_point": "inc",
		"focal_function": "def inc(x):\n    \"\"\"Add one.\"\"\"\n    return x + ONE",
		"test":           "from ._c import ONE\nimport sys\nsys.path.insert(1, \"/input/test-apps/tiny\")\nfrom tiny.m import inc  # noqa: autoimport\n\ndef test_0():\n    assert inc(1) == 2\n",
	})
	testsupport.WriteTree(t, root, map[string]string{
		"data/tasks.jsonl":                      string(row) + "\n",
		"repos/test-apps/tiny/tiny/__init__.py": "",
		"repos/test-apps/tiny/tiny/_c.py":       "ONE = 1\n",
		"repos/test-apps/tiny/tiny/m.py":        "from ._c import ONE\n\n\ndef inc(x):\n    \"\"\"Add one.\"\"\"\n    return x + ONE\n",
	})
	return data, repos
}

func TestBenchRunAndReport(t *testing.T) {
	data, repos := benchFixture(t)
	out := filepath.Join(t.TempDir(), "gold")
	stdout, stderr, code := runActor(t, "bench", "run", "--benchmark", "repoexec", "--data", data, "--repos", repos, "--gold", "--out", out)
	if code != 0 || !strings.Contains(stdout, "gold: 1/1 samples passed on 1 tasks; pass@1 100.00%") {
		t.Fatalf("gold run: code %d\n%s\n%s", code, stdout, stderr)
	}
	preds := filepath.Join(t.TempDir(), "p.jsonl")
	os.WriteFile(preds, []byte(`{"task_id": 0, "sample": 0, "code": "    return x - ONE\n", "method": "wrong"}`+"\n{\n"), 0o644)
	out2 := filepath.Join(t.TempDir(), "wrong")
	stdout, stderr, code = runActor(t, "bench", "run", "--benchmark", "repoexec", "--data", data, "--repos", repos, "--predictions", preds, "--out", out2, "--timeout", "60s")
	if code != 0 || !strings.Contains(stdout, "wrong: 0/1 samples passed") || !strings.Contains(stderr, "input error: "+preds+":2: ") ||
		!strings.Contains(stderr, "task 0 sample 0 (wrong): failed: exit status 1: test_0: assert 0 == 2") {
		t.Fatalf("predictions run: code %d\n%s\n%s", code, stdout, stderr)
	}
	prefix := filepath.Join(t.TempDir(), "rep")
	stdout, stderr, code = runActor(t, "bench", "report", out, out2, "--out", prefix)
	if code != 0 || !strings.Contains(stdout, "| – | gold | 100.00 | – | – |") || !strings.Contains(stdout, "| – | wrong | 0.00 | – | – |") {
		t.Fatalf("report: code %d\n%s\n%s", code, stdout, stderr)
	}
	for _, ext := range []string{".md", ".png"} {
		if st, err := os.Stat(prefix + ext); err != nil || st.Size() == 0 {
			t.Errorf("%s%s: %v", prefix, ext, err)
		}
	}
}

func TestBenchRunFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "run", "--benchmark", "repoexec", "--data", "d", "--repos", "r", "--out", "o"}, "exactly one of --predictions and --gold"},
		{[]string{"bench", "run", "--benchmark", "repoexec", "--gold", "--out", "o"}, "are required"},
		{[]string{"bench", "run", "--benchmark", "humaneval", "--data", "d", "--repos", "r", "--gold", "--out", "o"}, "unknown benchmark"},
		{[]string{"bench", "report", t.TempDir()}, "not a results folder"},
	} {
		_, stderr, code := runActor(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("actor %s: code %d, stderr %q; want %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}

// actor run and actor bench run test with the project environments unless
// --python alone names an interpreter.
func TestEnvsFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, envs.DefaultDir()},
		{[]string{"--envs", "E"}, "E"},
		{[]string{"--python", "py"}, ""},
		{[]string{"--python", "py", "--envs", "E"}, "E"},
	} {
		fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
		var python, dir string
		registerEnvs(fs, &python, &dir)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if got := envsFlag(fs, dir); got != c.want {
			t.Errorf("%q: envs %q, want %q", c.args, got, c.want)
		}
	}
	for _, cmd := range []string{"run", "bench run"} {
		c, _, err := newRootCmd(pipeline.OpenEncoder).Find(strings.Fields(cmd))
		if err != nil || c.Flags().Lookup("envs") == nil {
			t.Errorf("actor %s has no --envs: %v", cmd, err)
		}
	}
}
