package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/internal/testsupport"
	"actor/predictions"
)

// fixture is a tiny RepoExec-style benchmark made by the tests: one
// project (a package with a relative import), two tasks whose test programs
// use the /input/ and /output/ prefixes, and the expected-output pickles.
type fixture struct {
	data, repos, out string
}

const opsSource = `from ._util import double


def add(a, b):
    """Add a and b."""
    return a + b


def twice(x):
    """Double x."""
    return double(x)
`

// header is what RepoExec test programs start with: the module's imports
// (relative ones included), then the project on sys.path.
const header = `from ._util import double
import sys
sys.path.insert(1, "/input/test-apps/calc")
import pickle
`

var fixtureTasks = []map[string]any{
	{
		"task_id": 1, "project": "test-apps/calc", "module": "calc.ops", "entry_point": "add",
		"focal_function": "def add(a, b):\n    \"\"\"Add a and b.\"\"\"\n    return a + b",
		"code":           "from ._util import double\n\ndef add(a, b):\n    \"\"\"Add a and b.\"\"\"\n    return a + b",
		"test": header + "\nfrom calc.ops import *  # noqa: autoimport\nfrom calc.ops import add  # noqa: autoimport\n\n" +
			"def test_0():\n    assert add(1, 2) == 3\n\n" +
			"def test_1():\n    with open(\"/output/test-apps+calc/test_output/calc+ops/add/test_1\", \"rb\") as f:\n        output = pickle.load(f)\n    assert add(-4, 7) == output\n",
	},
	{
		"task_id": 2, "project": "test-apps/calc", "module": "calc.ops", "entry_point": "twice",
		"focal_function": "def twice(x):\n    \"\"\"Double x.\"\"\"\n    return double(x)",
		"code":           "from ._util import double\n\ndef twice(x):\n    \"\"\"Double x.\"\"\"\n    return double(x)",
		"test": header + "\nfrom calc.ops import *  # noqa: autoimport\nfrom calc.ops import twice  # noqa: autoimport\n\n" +
			"def test_0():\n    assert twice(21) == 42\n\n" +
			"def test_1():\n    assert twice('ab') == 'abab'\n",
	},
}

// newFixture writes the fixture benchmark under a new temporary folder.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{data: filepath.Join(root, "data"), repos: filepath.Join(root, "repos"), out: filepath.Join(root, "out")}
	files := map[string]string{
		"repos/test-apps/calc/calc/__init__.py": "",
		"repos/test-apps/calc/calc/_util.py":    "def double(x):\n    return 2 * x\n",
		"repos/test-apps/calc/calc/ops.py":      opsSource,
		"repos/test-apps/calc/setup.py":         "raise SystemExit('not for running')\n",
		// pickle protocol 0 of the integer 3
		"data/test_output/test-apps+calc/test_output/calc+ops/add/test_1": "I3\n.",
	}
	var rows []string
	for _, task := range fixtureTasks {
		b, err := json.Marshal(task)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, string(b))
	}
	files["data/tasks.jsonl"] = strings.Join(rows, "\n") + "\n"
	testsupport.WriteTree(t, root, files)
	return f
}

// writePredictions writes lines (JSON objects or raw text) to a file.
func writePredictions(t *testing.T, dir string, lines ...any) string {
	t.Helper()
	var out []string
	for _, l := range lines {
		switch v := l.(type) {
		case string:
			out = append(out, v)
		case predictions.Prediction:
			b, _ := json.Marshal(v)
			out = append(out, string(b))
		}
	}
	p := filepath.Join(dir, "predictions.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// coderEvalModule is the project file of the CoderEval fixture: a method
// (lines 6-8) and a function (lines 11-13), checked when the file runs.
const coderEvalModule = `import os


class K:
    @staticmethod
    def sq(x):
        """Square."""
        return x * x


def cube(x):
    """Cube x."""
    return x * x * x


`

// newCoderEvalFixture writes a CoderEval-style benchmark: the records, a
// prompt file and a project whose file runs its own checks; cube also has
// a *_passk_validte.py twin, CoderEval's test entry point.
func newCoderEvalFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{data: filepath.Join(root, "data"), repos: filepath.Join(root, "repos"), out: filepath.Join(root, "out")}
	rec := func(id, name, line, end, code string) string {
		b, _ := json.Marshal(map[string]string{"_id": id, "name": name, "project": "owner/proj", "file_path": "pkg/mod.py",
			"lineno": line, "end_lineno": end, "code": code, "docstring": "", "level": "self_contained", "file_content": coderEvalModule})
		return string(b)
	}
	files := map[string]string{
		"repos/owner---proj/pkg/__init__.py": "",
		"repos/owner---proj/pkg/mod.py":      coderEvalModule + "if __name__ == \"__main__\":\n    assert K.sq(3) == 9\n    assert cube(2) == 8\n",
		"repos/owner---proj/pkg/mod_cube_passk_validte.py": coderEvalModule +
			"if __name__ == \"__main__\":\n    assert cube(3) == 27\n    assert cube(-1) == -1\n",
		"data/CoderEval4Python.json": "{\"RECORDS\": [\n" +
			rec("c1", "cube", "11", "13", "def cube(x):\n    \"\"\"Cube x.\"\"\"\n    return x * x * x") + ",\n" +
			rec("c2", "sq", "6", "8", "def sq(x):\n        \"\"\"Square.\"\"\"\n        return x * x") + "\n]}\n",
		"data/CEPythonRaw.jsonl": `{"question_id": "c1", "input": "def cube(x):\n\t\"\"\"\n\tCube x.\n\t\"\"\"\n\t", "signature": "def cube(x):", "docstring": "Cube x."}` + "\n",
	}
	testsupport.WriteTree(t, root, files)
	return f
}
