package testsupport

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Fixtures that one package records in its testdata and other packages'
// tests read as well, by their path from the repository root. Tests reach
// them through Fixture or Path, never by a relative path into another
// package.
const (
	// TinyModels holds tiny random-weight Llama/Qwen2 GGUF files and their
	// Hugging Face references, <case>.gguf + <case>.json
	// (engine/testdata/README.md).
	TinyModels = "engine/testdata/tiny"
	// TinyBERT and TinyRoBERTa are Hugging Face encoder folders (config,
	// safetensors weights, vocabulary files) made by
	// scripts/fixtures/encoders/make_hf_fixtures.py.
	TinyBERT    = "encoder/testdata/tiny_bert"
	TinyRoBERTa = "encoder/testdata/tiny_roberta"
)

// root is the repository root: the nearest folder at or above the working
// directory (a package's folder under go test) whose go.mod names module
// actor.
var root = sync.OnceValues(func() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && slices.Contains(strings.Fields(string(mod)), "actor") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testsupport: no go.mod of module actor at or above the working directory")
		}
		dir = parent
	}
})

// Path returns the path of rel ('/'-separated, from the repository root,
// e.g. TinyModels+"/llama_gqa.gguf"), for package-level values; it panics
// outside the repository.
func Path(rel string) string {
	r, err := root()
	if err != nil {
		panic(err)
	}
	return filepath.Join(r, filepath.FromSlash(rel))
}

// Fixture returns Path(rel), failing the test when the file does not
// exist.
func Fixture(t testing.TB, rel string) string {
	t.Helper()
	if _, err := root(); err != nil {
		t.Fatal(err)
	}
	p := Path(rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("testsupport: fixture %s: %v", rel, err)
	}
	return p
}
