package engine

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"actor/engine/ggml"

	"golang.org/x/sys/cpu"
)

// tensorEntry returns the offset, in a GGUF file, of the directory entry
// of the named tensor just after its name: n_dims u32, dims u64…, type u32.
func tensorEntry(t *testing.T, data []byte, name string) int {
	t.Helper()
	var key bytes.Buffer
	binary.Write(&key, binary.LittleEndian, uint64(len(name)))
	key.WriteString(name)
	i := bytes.Index(data, key.Bytes())
	if i < 0 {
		t.Fatalf("tensor %s not found in the directory", name)
	}
	return i + key.Len()
}

// badFile writes a modified copy of the tiny llama model and returns its path.
func badFile(t *testing.T, edit func(data []byte) []byte) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "tiny", "llama_gqa.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bad.gguf")
	if err := os.WriteFile(path, edit(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		name string
		edit func(t *testing.T, d []byte) []byte
		want string // substring of the error
	}{
		{"truncated", func(t *testing.T, d []byte) []byte { return d[:len(d)/2] }, "truncated"},
		{"truncated header", func(t *testing.T, d []byte) []byte { return d[:100] }, "truncated"},
		{"wrong magic", func(t *testing.T, d []byte) []byte { copy(d, "GGUX"); return d }, "magic"},
		{"unknown architecture", func(t *testing.T, d []byte) []byte {
			i := bytes.Index(d, []byte("general.architecture"))
			j := bytes.Index(d[i:], []byte("llama")) + i
			copy(d[j:], "mamba")
			return d
		}, `unsupported architecture "mamba"`},
		{"unsupported quant type", func(t *testing.T, d []byte) []byte {
			e := tensorEntry(t, d, "token_embd.weight")  // 2-D F32 [64 288]
			binary.LittleEndian.PutUint32(d[e+4+16:], 9) // Q8_1: a smaller, valid layout
			return d
		}, "token_embd.weight has unsupported type Q8_1"},
		{"tensor shape disagrees with metadata", func(t *testing.T, d []byte) []byte {
			e := tensorEntry(t, d, "blk.1.ffn_up.weight") // [64 128] -> [128 64]: same size
			binary.LittleEndian.PutUint64(d[e+4:], 128)
			binary.LittleEndian.PutUint64(d[e+12:], 64)
			return d
		}, "blk.1.ffn_up.weight has shape [128 64]"},
		{"tensor missing", func(t *testing.T, d []byte) []byte {
			i := bytes.Index(d, []byte("blk.1.ffn_gate.weight"))
			copy(d[i:], "blk.1.ffn_gatx.weight") // the graph's name is then absent
			return d
		}, "tensor blk.1.ffn_gate.weight is missing (llama model with"},
		{"tensor size disagrees with data", func(t *testing.T, d []byte) []byte {
			e := tensorEntry(t, d, "blk.0.attn_q.weight") // [64 64] -> [64 4096]
			binary.LittleEndian.PutUint64(d[e+12:], 4096)
			return d
		}, "blk.0.attn_q.weight"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := badFile(t, func(d []byte) []byte { return c.edit(t, d) })
			m, err := Load(path, Options{Threads: 1})
			if err == nil {
				m.Close()
				t.Fatal("no error")
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, path) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming %s and containing %q", msg, path, c.want)
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "none.gguf"), Options{})
	if err == nil || !strings.Contains(err.Error(), "none.gguf") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestBadTokens(t *testing.T) {
	r := loadRef(t, "llama_mha")
	s := newSession(t, loadTiny(t, r, false))
	if _, err := s.Prefill([]int32{1, int32(r.Vocab)}); err == nil || !strings.Contains(err.Error(), "outside the vocabulary") {
		t.Fatalf("token id = vocab size: %v", err)
	}
	if _, err := s.Step(-1); err == nil {
		t.Fatal("negative token id: no error")
	}
	if _, err := s.Prefill(nil); err == nil {
		t.Fatal("empty prefill: no error")
	}
	if _, err := s.Score([]int32{1}, nil); err == nil {
		t.Fatal("empty target: no error")
	}
	if _, err := s.Prefill([]int32{1, 2, 3}); err != nil {
		t.Fatalf("the session must stay usable after errors: %v", err)
	}
	if _, err := Load(r.path, Options{ContextLength: 100000}); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("context above the trained length: %v", err)
	}
	s.Close()
	if _, err := s.Step(1); err == nil {
		t.Fatal("step on a closed session: no error")
	}
}

// TestBuiltWithAVX2 fails when the tests were built without the SIMD flags
// on a CPU that has AVX2 (run them through make test).
func TestBuiltWithAVX2(t *testing.T) {
	if cpu.X86.HasAVX2 && !ggml.BuiltWithAVX2() {
		t.Fatal(CPUWarning())
	}
	if ggml.BuiltWithAVX2() && CPUWarning() != "" {
		t.Fatal("warning although the binary has AVX2")
	}
}

// TestCPUCheck: the binary's extensions are all this CPU's (the tests run
// where they were built), and a build for extensions a CPU lacks is named
// extension by extension.
func TestCPUCheck(t *testing.T) {
	if err := CPUCheck(); err != nil {
		t.Fatal(err)
	}
	built := ggml.BuiltISA()
	if ggml.BuiltWithAVX2() && !slices.Contains(built, "avx2") {
		t.Fatalf("built with AVX2 but BuiltISA says %v", built)
	}
	has := map[string]bool{"avx": true, "avx2": true, "fma": true, "f16c": true}
	if m := missingISA([]string{"avx", "avx2", "fma", "f16c"}, has); len(m) != 0 {
		t.Fatalf("an AVX2 build on an AVX2 CPU: missing %v", m)
	}
	m := missingISA([]string{"avx2", "avx512f", "fma", "avx512vnni"}, has)
	if !slices.Equal(m, []string{"avx512f", "avx512vnni"}) {
		t.Fatalf("an AVX-512 build on an AVX2 CPU: missing %v, want avx512f and avx512vnni", m)
	}
}
