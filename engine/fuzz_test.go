package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds mutated model files to Load: every input must give a
// model or an error, never a panic or a crash in the backend.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"llama_gqa", "qwen2_tied"} {
		data, err := os.ReadFile(filepath.Join("testdata", "tiny", name+".gguf"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.gguf")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(path, Options{Threads: 1, ContextLength: 16})
		if err != nil {
			return
		}
		defer m.Close()
		s, err := m.NewSession()
		if err != nil {
			return
		}
		defer s.Close()
		s.Prefill([]int32{0, 1, 2})
	})
}
