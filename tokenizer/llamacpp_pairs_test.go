package tokenizer

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"actor/internal/testsupport"
)

// vocabNames are the llama.cpp vocab files whose .inp/.out pairs we check.
var vocabNames = []string{"llama-bpe", "llama-spm", "qwen2", "deepseek-coder", "gpt-2", "starcoder", "refact"}

// readPairs parses llama.cpp's test-tokenizer-0 files: inputs separated by
// "\n__ggml_vocab_test__\n", one line of space-separated ids per input.
func readPairs(t *testing.T, inp, out string) (texts []string, ids [][]int32) {
	t.Helper()
	raw, err := os.ReadFile(inp)
	if err != nil {
		t.Fatal(err)
	}
	o, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	const sep = "\n__ggml_vocab_test__\n"
	s := string(raw)
	for len(s) > 0 {
		i := strings.Index(s, sep)
		if i < 0 {
			texts = append(texts, s)
			break
		}
		texts = append(texts, s[:i])
		s = s[i+len(sep):]
	}
	lines := strings.Split(strings.TrimSuffix(string(o), "\n"), "\n")
	if len(lines) != len(texts) {
		t.Fatalf("%s: %d inputs but %d outputs", inp, len(texts), len(lines))
	}
	for _, l := range lines {
		var row []int32
		for _, f := range strings.Fields(l) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s: bad id %q", out, f)
			}
			row = append(row, int32(n))
		}
		ids = append(ids, row)
	}
	return texts, ids
}

// TestLlamaCppPairs checks our ids against the expected ids that llama.cpp
// ships with its vocab files (its test-tokenizer-0), and the round trip.
func TestLlamaCppPairs(t *testing.T) {
	for _, name := range vocabNames {
		t.Run(name, func(t *testing.T) {
			tok := load(t, testsupport.VocabFile(t, "ggml-vocab-"+name+".gguf"))
			texts, want := readPairs(t, testsupport.VocabFile(t, "ggml-vocab-"+name+".gguf.inp"), testsupport.VocabFile(t, "ggml-vocab-"+name+".gguf.out"))
			for i, text := range texts {
				got := tok.Encode(text, false)
				if !slices.Equal(got, want[i]) {
					t.Errorf("%q:\n got %v\nwant %v", text, got, want[i])
				}
				if back := tok.Decode(got); back != text {
					t.Errorf("round trip of %q gave %q", text, back)
				}
			}
		})
	}
}
