package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/internal/testsupport"
)

// tinyBERT is the tiny random BERT checkpoint of the encoder fixtures.
var tinyBERT = testsupport.Path(testsupport.TinyBERT)

// TestConvertCommand converts the tiny BERT and checks the refusals.
func TestConvertCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tiny.gguf")
	stdout, errOut, code := runActor(t, "convert", tinyBERT, out, "--type", "f16")
	if code != 0 || !strings.Contains(stdout, "BertModel as bert, 37 tensors, f16") {
		t.Fatalf("convert: %d\n%s\n%s", code, stdout, errOut)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runActor(t, "convert", tinyBERT, out, "--type", "q2_k")
	if code == 0 || !strings.Contains(errOut, `unknown output type "q2_k"`) {
		t.Errorf("bad --type: %d %q", code, errOut)
	}
	_, errOut, code = runActor(t, "convert", t.TempDir(), out)
	if code == 0 || !strings.Contains(errOut, "no config.json") {
		t.Errorf("empty folder: %d %q", code, errOut)
	}
}

// TestDenseCommandsWithTinyBERT runs index and dense search with a real
// (tiny, random) encoder given as a Hugging Face folder: it is converted
// once into $ACTOR_HOME/encoders and reused.
func TestDenseCommandsWithTinyBERT(t *testing.T) {
	repo := retrievalRepo(t)
	dir, err := filepath.Abs(tinyBERT)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runActor(t, "index", repo, "--encoder", dir, "--encoder-threads", "1")
	if code != 0 || !strings.Contains(out, "embedded 2 snippets") || !strings.Contains(errOut, "converting "+dir) {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	cached, _ := filepath.Glob(filepath.Join(os.Getenv("ACTOR_HOME"), "encoders", "tiny_bert-*.gguf"))
	if len(cached) != 1 {
		t.Fatalf("cached conversions: %v", cached)
	}
	out, errOut, code = runActor(t, "search", repo, "def helper_total(values):", "--method", "dense", "--encoder", dir, "--json", "-k", "2")
	if code != 0 || strings.Contains(errOut, "converting") {
		t.Fatalf("search: %d %s", code, errOut)
	}
	var hits []jsonBlock
	if err := json.Unmarshal([]byte(out), &hits); err != nil || len(hits) != 2 || hits[0].Score < hits[1].Score {
		t.Fatalf("dense search: %v %s", err, out)
	}
	_, errOut, code = runActor(t, "search", repo, "x", "--method", "dense", "--encoder", dir, "--encoder-layout", "encoder-only")
	if code == 0 || !strings.Contains(errOut, "layout encoder-only is for RoBERTa") {
		t.Errorf("encoder-only on BERT: %d %q", code, errOut)
	}
}
