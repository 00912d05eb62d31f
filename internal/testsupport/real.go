// Package testsupport is what the tests of several packages share: finding
// the real models and files that scripts fetch (skipping, or failing when
// CI requires them), the fixtures one package records and others read,
// writing file trees, and numeric differences.
//
// Real files live in the actor home ($ACTOR_HOME, default
// <user cache dir>/actor; models.Home): pulled models in models/ (actor
// models pull), llama.cpp's vocab files in vocab/ (scripts/fetch-vocab.sh).
// A test that needs one skips when it is absent, unless the file's
// requirement variable is "1" (make test sets them), and then it fails.
package testsupport

import (
	"os"
	"path/filepath"
	"testing"

	"actor/models"
)

// The requirement variables.
const (
	// RequireModels makes a missing pulled decoder model (smollm2-135m,
	// qwen2.5-coder-0.5b) a failure.
	RequireModels = "ACTOR_REQUIRE_MODELS"
	// RequireMiniLM makes a missing all-minilm-l6-v2 a failure.
	RequireMiniLM = "ACTOR_REQUIRE_MINILM"
	// RequireVocab makes missing vocab files of scripts/fetch-vocab.sh, or
	// a missing Python standard library that tokenizer fixtures were
	// recorded from, a failure.
	RequireVocab = "ACTOR_REQUIRE_VOCAB"
)

// Missing skips t, or fails it when the requirement variable env is "1",
// with the message format and args; with env "" it always skips.
func Missing(t testing.TB, env, format string, args ...any) {
	t.Helper()
	if env == "" {
		t.Skipf(format, args...)
	}
	if os.Getenv(env) == "1" {
		t.Fatalf("%s=1 and "+format, append([]any{env}, args...)...)
	}
	t.Skipf(format+" (%s=1 makes this a failure)", append(args, env)...)
}

// NeedFile returns path when it exists; otherwise it calls Missing, hint
// saying how to get the file.
func NeedFile(t testing.TB, path, env, hint string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		Missing(t, env, "%s is missing: %s", path, hint)
	}
	return path
}

// CIModels maps each model that make test pulls to the variable that
// requires it.
var CIModels = map[string]string{
	"smollm2-135m":       RequireModels,
	"qwen2.5-coder-0.5b": RequireModels,
	"qwen2.5-coder-1.5b": RequireModels,
	"all-minilm-l6-v2":   RequireMiniLM,
}

// Model returns the path of the pulled model name (a .gguf file or a
// folder). When it is not pulled the test skips, or fails if name is one
// of CIModels and its variable is set.
func Model(t testing.TB, name string) string {
	t.Helper()
	if models.Lookup(name) == nil {
		t.Fatalf("testsupport: %q is not a registry model", name)
	}
	p, err := models.Resolve(name)
	if err != nil {
		Missing(t, CIModels[name], "%v (run: actor models pull %s)", err, name)
	}
	return p
}

// VocabDir is the folder of llama.cpp's vocab files that
// scripts/fetch-vocab.sh fills: <actor home>/vocab ("" without a home).
func VocabDir() string {
	home, err := models.Home()
	if err != nil {
		return ""
	}
	return filepath.Join(home, "vocab")
}

// VocabFile returns the path of one of llama.cpp's vocab files
// ("ggml-vocab-gpt-2.gguf") in VocabDir, skipping or failing
// (RequireVocab) when it is absent.
func VocabFile(t testing.TB, name string) string {
	t.Helper()
	return NeedFile(t, filepath.Join(VocabDir(), name), RequireVocab, "run scripts/fetch-vocab.sh")
}
