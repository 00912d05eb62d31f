package runrecord

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"actor/dataset"
	"actor/generate"
	"actor/pipeline"
)

// TestIdentify: the hashes do not depend on the order of the data files,
// a worker missing a project's file or with another probe or data is told
// which, and a missing model or project is an error.
func TestIdentify(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	model, probe := write("m.gguf", "weights"), write("m.probe", "probe")
	a, b := write("a.jsonl", "task a"), write("b.jsonl", "task b")
	write("repos/p1/lib/x.py", "def f():\n    return 1\n")
	write("repos/p2/y.py", "Y = 2\n")
	repos := filepath.Join(dir, "repos")
	tasks := []*dataset.Task{{ID: "1", Project: "p1"}, {ID: "2", Project: "p1"}, {ID: "3", Project: "p2"}}
	m := pipeline.DefaultMethod()
	m.Method, m.Probe = generate.MethodACToR, probe
	id, err := Identify(model, model, m, []string{b, a}, tasks, repos)
	if err != nil || id.Model == "" || id.Probe == "" || id.Data == "" || len(id.Sources) != 2 || id.Sources["p1"] == id.Sources["p2"] {
		t.Fatalf("%+v, %v", id, err)
	}
	same, _ := Identify(model, model, m, []string{a, b}, tasks, repos)
	if !reflect.DeepEqual(same, id) || id.Mismatch(same) != "" {
		t.Errorf("the files' order changed the identity")
	}
	// Only what retrieval reads counts: a README does not, a test file does.
	write("repos/p1/README.md", "about")
	if again, _ := Identify(model, model, m, []string{a, b}, tasks, repos); again.Sources["p1"] != id.Sources["p1"] {
		t.Errorf("a README changed p1's sources")
	}
	write("repos/p1/tests/test_x.py", "from lib.x import f\n")
	grown, _ := ProjectSources(tasks[:1], repos, nil)
	if got := id.Mismatch(Identity{Model: id.Model, Probe: id.Probe, Data: id.Data, Sources: grown}); !strings.Contains(got, "p1 sources SHA-256 "+grown["p1"][:12]+", the run's "+id.Sources["p1"][:12]) || strings.Contains(got, "p2") {
		t.Errorf("tests/ added: mismatch %q", got)
	}
	m.Method = generate.MethodRawPrompt
	other, _ := Identify(model, model, m, []string{a}, nil, repos)
	if other.Probe != "" || len(other.Sources) != 0 {
		t.Errorf("rawprompt hashed a probe, or no tasks hashed sources: %+v", other)
	}
	if got := id.Mismatch(other); !strings.Contains(got, "probe SHA-256 (none), the run's "+id.Probe[:12]) || !strings.Contains(got, "data SHA-256") || strings.Contains(got, "model") {
		t.Errorf("mismatch %q", got)
	}
	if _, err := Identify(filepath.Join(dir, "missing.gguf"), "x", m, nil, nil, repos); err == nil {
		t.Error("a missing model file hashed")
	}
	if _, err := Identify(model, model, m, []string{a}, []*dataset.Task{{ID: "9", Project: "gone"}}, repos); err == nil || !strings.Contains(err.Error(), `repository "gone" not found`) {
		t.Errorf("a missing project: %v", err)
	}
}
