package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"actor/bench/envs"
	"actor/bench/results"
	"actor/bench/sandbox"
	"actor/dataset"
)

// imageChecks is a test program that passes only in a run laid out as the
// benchmark's image: root, HOME=/root (writable), /tmp the temporary
// folder, the project at /package as the working directory, the sources at
// /input and the expected outputs at /output, PYTHONHASHSEED=0, the
// image's /etc/mime.types (Debian bullseye's: .js is
// application/javascript, .7z known), and a folder at / that the run may
// create, as root in a container can.
const imageChecks = `import os, sys, tempfile, pickle, getpass, mimetypes
sys.path.insert(1, "/input/test-apps/calc")
from calc.ops import add  # noqa: autoimport

def test_0():
    assert os.getuid() == 0 and getpass.getuser() == "root"
    assert os.environ["HOME"] == "/root" and os.path.expanduser("~") == "/root"
    open("/root/.probe", "w").write("x")
    assert tempfile.gettempdir() == "/tmp"
    assert os.getcwd() == "/package" and os.path.abspath("t.json") == "/package/t.json"
    assert os.path.isfile("/input/test-apps/calc/calc/ops.py")
    with open("/output/test-apps+calc/test_output/calc+ops/add/test_1", "rb") as f:
        assert add(-4, 7) == pickle.load(f)
    assert os.environ["PYTHONHASHSEED"] == "0"
    assert mimetypes.guess_type("a.js")[0] == "application/javascript"
    assert mimetypes.guess_type("a.7z")[0] == "application/x-7z-compressed"
    os.makedirs("/Users/someone")
`

// TestImageLayout runs a task whose test checks the image's layout, with an
// interpreter the sandbox users can reach and the image's system files (a
// project environment and the files made by actor bench setup). It skips
// where there are none, or where the sandbox
// cannot give runs a root of their own (not root, no user namespaces).
func TestImageLayout(t *testing.T) {
	py, ok := envs.Interpreter(envs.DefaultDir(), "test-apps/python-string-utils")
	if _, sys := envs.SystemFileIn(envs.DefaultDir(), envs.SystemFiles[0]); !sys {
		ok = false
	}
	if !ok {
		if os.Getenv("ACTOR_REQUIRE_REPOEXEC_DEV") == "1" {
			t.Fatalf("no environment for python-string-utils or image files in %s", envs.DefaultDir())
		}
		t.Skipf("no environment for python-string-utils or image files in %s (actor bench setup)", envs.DefaultDir())
	}
	info, err := resolvePython(py)
	if err != nil {
		t.Fatal(err)
	}
	box, err := sandbox.New(info.reach...)
	if err != nil {
		t.Fatal(err)
	}
	mounts := box.Isolation().Mounts
	box.Close()
	if !mounts {
		if os.Getenv("ACTOR_REQUIRE_SANDBOX") == "1" {
			t.Fatal("the sandbox cannot give runs a root of their own here")
		}
		t.Skip("the sandbox cannot give runs a root of their own here")
	}
	f := newFixture(t)
	row := map[string]any{"task_id": 1, "project": "test-apps/calc", "module": "calc.ops", "entry_point": "add",
		"focal_function": "def add(a, b):\n    \"\"\"Add a and b.\"\"\"\n    return a + b", "test": imageChecks}
	b, _ := json.Marshal(row)
	if err := os.WriteFile(filepath.Join(f.data, "tasks.jsonl"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	out, err := Run(context.Background(), Config{Benchmark: dataset.RepoExec, Data: f.data, Repos: f.repos, Gold: true,
		Out: f.out, Python: py, Envs: envs.DefaultDir(), Workers: 1, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if out.Groups[0].Passed != 1 {
		recs, _ := results.Read(filepath.Join(f.out, results.SamplesFile))
		t.Fatalf("the image's layout is not there: %+v\n%s", recs, log.String())
	}
	if _, err := os.Stat("/Users/someone"); err == nil {
		t.Error("the run created /Users/someone on the machine")
	}
}

// Environments under /tmp, which the sandbox binds over in each run, are
// refused before anything runs: one error naming the flag and the folder,
// exit status 2, no results folder.
func TestEnvsUnderTmpRefused(t *testing.T) {
	// An environment made from the interpreter actor bench setup installs
	// where the sandbox users reach it.
	base, ok := envs.Interpreter(envs.DefaultDir(), "test-apps/python-string-utils")
	if !ok {
		if os.Getenv("ACTOR_REQUIRE_REPOEXEC_DEV") == "1" {
			t.Fatalf("no environment for python-string-utils in %s", envs.DefaultDir())
		}
		t.Skipf("no environment for python-string-utils in %s (actor bench setup)", envs.DefaultDir())
	}
	f := newFixture(t)
	tmp := t.TempDir()
	// where the sandbox users can reach it, as actor bench setup makes it
	for _, d := range []string{filepath.Dir(tmp), tmp} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	envsDir := filepath.Join(tmp, "envs")
	venv := filepath.Join(envsDir, envs.Name("test-apps/calc"))
	if out, err := exec.Command(base, "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
		t.Fatalf("python3 -m venv: %v\n%s", err, out)
	}
	// the stamp actor bench setup leaves in a finished environment
	if err := os.WriteFile(filepath.Join(venv, ".actor-env"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Config{Benchmark: dataset.RepoExec, Data: f.data, Repos: f.repos, Gold: true,
		Out: f.out, Envs: envsDir, Workers: 1})
	if err == nil {
		if os.Getenv("ACTOR_REQUIRE_SANDBOX") == "1" {
			t.Fatal("an environment under /tmp was not refused")
		}
		t.Skip("the sandbox binds nothing over /tmp here, so environments there work")
	}
	var fe *FolderError
	if !errors.As(err, &fe) || fe.Flag != "--envs" || fe.ExitCode() != 2 || !strings.Contains(err.Error(), envsDir) {
		t.Fatalf("got %v, want the --envs folder refused", err)
	}
	if _, err := os.Stat(f.out); err == nil {
		t.Error("the refused run made its results folder")
	}
}
