package tokenizer

import (
	"testing"

	"actor/gguf"
)

// load opens a GGUF file and builds its tokenizer.
func load(t testing.TB, path string) *Tokenizer {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
