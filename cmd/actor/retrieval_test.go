package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// retrievalRepo writes a two-file repository and points ACTOR_HOME (where
// indexes live) at a temp folder.
func retrievalRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("ACTOR_HOME", t.TempDir())
	repo := t.TempDir()
	files := map[string]string{
		"pkg/util.py": "def helper_total(values):\n    return sum(values)\n",
		"pkg/main.py": "from .util import helper_total\n\n\ndef report(values):\n    \"\"\"Print the helper_total of values.\"\"\"\n    print(helper_total(values))\n",
		"notes.txt":   "helper_total is not python\n",
	}
	for rel, text := range files {
		p := filepath.Join(repo, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

func TestIndexSearchPromptCommands(t *testing.T) {
	repo := retrievalRepo(t)
	out, errOut, code := runActor(t, "index", repo)
	if code != 0 || !strings.Contains(out, "2 files (2 new or changed") {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = runActor(t, "search", repo, "helper_total", "--json", "-k", "1")
	if code != 0 {
		t.Fatalf("search: %d %s", code, errOut)
	}
	var hits []jsonBlock
	if err := json.Unmarshal([]byte(out), &hits); err != nil || len(hits) != 1 || hits[0].Rank != 1 {
		t.Fatalf("search --json: %v %q", err, out)
	}
	_, errOut, code = runActor(t, "search", repo, "x", "--method", "dense")
	if code == 0 || !strings.Contains(errOut, "dense retrieval needs an encoder model") {
		t.Errorf("dense without encoder: %d %q", code, errOut)
	}
	out, errOut, code = runActor(t, "prompt", repo, "--file", "pkg/main.py", "--line", "6", "--model", tinyModel)
	if code != 0 {
		t.Fatalf("prompt: %d %s", code, errOut)
	}
	want := "# file path: pkg/util.py\n\n# def helper_total(values):\n#     return sum(values)" +
		"\n\n# file path: pkg/main.py\n\ndef report(values):\n    \"\"\"Print the helper_total of values.\"\"\"\n"
	if out != want {
		t.Errorf("prompt\n%q\nwant\n%q", out, want)
	}
}

func TestIndexCorruptDatabase(t *testing.T) {
	repo := retrievalRepo(t)
	db := filepath.Join(t.TempDir(), "bad.db")
	os.WriteFile(db, []byte(strings.Repeat("garbage", 1000)), 0o644)
	_, errOut, code := runActor(t, "index", repo, "--db", db)
	if code == 0 || !strings.Contains(errOut, db) || !strings.Contains(errOut, "corrupt") {
		t.Errorf("corrupt index: %d %q", code, errOut)
	}
}
