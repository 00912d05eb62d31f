package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"actor/bench/dataset"
	"actor/bench/envs"
	"actor/bench/results"
	"actor/bench/sandbox"
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
