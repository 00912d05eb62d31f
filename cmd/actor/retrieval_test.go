package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/encoder"
	"actor/internal/testsupport"
	"actor/pipeline"
	"actor/retrieve"
)

// retrievalRepo writes a two-file repository and points ACTOR_HOME (where
// indexes live) at a temp folder.
func retrievalRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("ACTOR_HOME", t.TempDir())
	repo := t.TempDir()
	files := map[string]string{
		"pkg/util.py": "def helper_total(values):\n    return sum(values)\n",
		"pkg/main.py": "from .util import helper_total\n\n\ndef report(values):\n    \"\"\"Print the helper_total of values.\"\"\"\n    print(helper_total(values))\n",
		"notes.txt":   "helper_total is not python\n",
	}
	return testsupport.WriteTree(t, repo, files)
}

func TestIndexSearchPromptCommands(t *testing.T) {
	repo := retrievalRepo(t)
	out, errOut, code := runActor(t, "index", repo)
	if code != 0 || !strings.Contains(out, "2 files (2 new or changed") {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = runActor(t, "search", repo, "helper_total", "--json", "-k", "1")
	if code != 0 {
		t.Fatalf("search: %d %s", code, errOut)
	}
	var hits []jsonBlock
	if err := json.Unmarshal([]byte(out), &hits); err != nil || len(hits) != 1 || hits[0].Rank != 1 {
		t.Fatalf("search --json: %v %q", err, out)
	}
	_, errOut, code = runActor(t, "search", repo, "x", "--method", "dense")
	if code == 0 || !strings.Contains(errOut, "dense retrieval needs --encoder MODEL") {
		t.Errorf("dense without encoder: %d %q", code, errOut)
	}
	out, errOut, code = runActor(t, "prompt", repo, "--file", "pkg/main.py", "--line", "6", "--model", tinyModel)
	if code != 0 {
		t.Fatalf("prompt: %d %s", code, errOut)
	}
	want := "# file path: pkg/util.py\n\n# def helper_total(values):\n#     return sum(values)" +
		"\n\n# file path: pkg/main.py\n\ndef report(values):\n    \"\"\"Print the helper_total of values.\"\"\"\n"
	if out != want {
		t.Errorf("prompt\n%q\nwant\n%q", out, want)
	}
}

func TestIndexCorruptDatabase(t *testing.T) {
	repo := retrievalRepo(t)
	db := filepath.Join(t.TempDir(), "bad.db")
	os.WriteFile(db, []byte(strings.Repeat("garbage", 1000)), 0o644)
	_, errOut, code := runActor(t, "index", repo, "--db", db)
	if code == 0 || !strings.Contains(errOut, db) || !strings.Contains(errOut, "corrupt") {
		t.Errorf("corrupt index: %d %q", code, errOut)
	}
}

// wordHashEncoder is a toy encoder for the dense path's wiring: each
// whitespace word becomes a ±1 vector from its FNV hash bits, framed by two
// constant special tokens. Child processes of runActor use it for
// --encoder when ACTOR_TEST_WORD_ENCODER=1.
type wordHashEncoder struct{}

func (wordHashEncoder) ID() string { return "word-hash-16" }
func (wordHashEncoder) Dim() int   { return 16 }
func (wordHashEncoder) Encode(texts []string) (retrieve.TokenBatch, error) {
	b := retrieve.TokenBatch{Dim: 16}
	var rows [][][]float32
	for _, s := range texts {
		toks := [][]float32{make([]float32, 16)}
		for _, w := range strings.Fields(s) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v := make([]float32, 16)
			for j := range v {
				v[j] = float32(int(h.Sum32()>>j&1)*2 - 1)
			}
			toks = append(toks, v)
		}
		toks = append(toks, make([]float32, 16))
		rows = append(rows, toks)
		b.Seq = max(b.Seq, len(toks))
	}
	for _, toks := range rows {
		b.Lengths = append(b.Lengths, len(toks))
		for t := 0; t < b.Seq; t++ {
			if t < len(toks) {
				b.Data = append(b.Data, toks[t]...)
			} else {
				b.Data = append(b.Data, make([]float32, 16)...)
			}
		}
	}
	return b, nil
}

// testEncoders is the encoder opener of actor as the tests run it: the
// toy encoder (--encoder word-hash, no other) when
// ACTOR_TEST_WORD_ENCODER=1, else the real ones.
func testEncoders() encoderOpener {
	if os.Getenv("ACTOR_TEST_WORD_ENCODER") != "1" {
		return pipeline.OpenEncoder
	}
	return func(model string, _ encoder.Options) (retrieve.Encoder, error) {
		if model != "word-hash" {
			return nil, fmt.Errorf("unknown test encoder %q", model)
		}
		return wordHashEncoder{}, nil
	}
}

// The dense path end to end with a toy encoder: index embeds candidates,
// a rerun embeds nothing, search ranks by cosine.
func TestDenseCommandsWithToyEncoder(t *testing.T) {
	repo := retrievalRepo(t)
	t.Setenv("ACTOR_TEST_WORD_ENCODER", "1")
	out, errOut, code := runActor(t, "index", repo, "--encoder", "word-hash")
	if code != 0 || !strings.Contains(out, "embedded 2 snippets") || !strings.Contains(out, "word-hash-16|mean") {
		t.Fatalf("index: %d\n%s\n%s", code, out, errOut)
	}
	out, _, code = runActor(t, "index", repo, "--encoder", "word-hash")
	if code != 0 || strings.Contains(out, "embedded") || !strings.Contains(out, "2 embeddings") {
		t.Fatalf("rerun embedded again:\n%s", out)
	}
	out, errOut, code = runActor(t, "search", repo, "def helper_total(values):", "--method", "dense", "--encoder", "word-hash", "--json")
	if code != 0 {
		t.Fatalf("dense search: %d %s", code, errOut)
	}
	var hits []jsonBlock
	if err := json.Unmarshal([]byte(out), &hits); err != nil || len(hits) != 2 || hits[0].Path != "pkg/util.py" || hits[0].Score <= hits[1].Score {
		t.Fatalf("dense search: %v %s", err, out)
	}
}
