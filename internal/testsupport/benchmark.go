package testsupport

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// CalcBenchmark writes a two-task RepoExec-style benchmark: data/tasks.jsonl
// and the project under repos/calc (the projects' folders directly, as
// the codamosa test-apps folder holds them). Task 1 is add(a, b), task 2
// twice(x), which calls a helper of another module.
func CalcBenchmark(t testing.TB) (data, repos string) {
	t.Helper()
	root := t.TempDir()
	ops := "from ._util import double\n\n\ndef add(a, b):\n    \"\"\"Add a and b.\"\"\"\n    return a + b\n\n\n" +
		"def twice(x):\n    \"\"\"Double x.\"\"\"\n    return double(x)\n"
	test := "from ._util import double\nimport sys\nsys.path.insert(1, \"/input/test-apps/calc\")\n" +
		"from calc.ops import *  # noqa: autoimport\n\ndef test_0():\n    assert %s\n"
	rows := []map[string]any{
		{"task_id": 1, "project": "test-apps/calc", "module": "calc.ops", "entry_point": "add",
			"focal_function": "def add(a, b):\n    \"\"\"Add a and b.\"\"\"\n    return a + b", "code": ops,
			"test": strings.Replace(test, "%s", "add(1, 2) == 3", 1)},
		{"task_id": 2, "project": "test-apps/calc", "module": "calc.ops", "entry_point": "twice",
			"focal_function": "def twice(x):\n    \"\"\"Double x.\"\"\"\n    return double(x)", "code": ops,
			"test": strings.Replace(test, "%s", "twice(21) == 42", 1)},
	}
	var lines []string
	for _, r := range rows {
		b, _ := json.Marshal(r)
		lines = append(lines, string(b))
	}
	WriteTree(t, root, map[string]string{
		"data/tasks.jsonl":            strings.Join(lines, "\n") + "\n",
		"repos/calc/calc/__init__.py": "",
		"repos/calc/calc/_util.py":    "def double(x):\n    return 2 * x\n",
		"repos/calc/calc/ops.py":      ops,
	})
	return filepath.Join(root, "data"), filepath.Join(root, "repos")
}
