package tokenizer

import (
	"os"
	"path/filepath"
	"testing"

	"actor/gguf"
)

// vocabDir is where scripts/fetch-vocab.sh puts llama.cpp's vocab-only
// GGUF files: $ACTOR_VOCAB_DIR, else <user cache dir>/actor/vocab.
func vocabDir() string {
	if d := os.Getenv("ACTOR_VOCAB_DIR"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "actor", "vocab")
}

// needFile returns path if it exists; otherwise the test is skipped, or
// fails when env (ACTOR_REQUIRE_VOCAB, ACTOR_REQUIRE_SMOLLM2) is "1".
func needFile(t testing.TB, path, env, hint string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv(env) == "1" {
			t.Fatalf("%s is missing and %s=1: %s", path, env, hint)
		}
		t.Skipf("%s is missing (%s); set %s=1 to make this a failure", path, hint, env)
	}
	return path
}

// vocabFile returns the path of ggml-vocab-<name>.gguf<suffix>.
func vocabFile(t testing.TB, name, suffix string) string {
	return needFile(t, filepath.Join(vocabDir(), "ggml-vocab-"+name+".gguf"+suffix),
		"ACTOR_REQUIRE_VOCAB", "run scripts/fetch-vocab.sh")
}

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
