package tokenizer

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/internal/testsupport"
)

// tokrefHeader is the first line of a fixture written by
// scripts/tokref/record.py.
type tokrefHeader struct {
	Format     string `json:"format"`
	Tokenizer  string `json:"tokenizer"`
	GGUF       string `json:"gguf"`
	GGUFSHA256 string `json:"gguf_sha256"`
	Oracle     string `json:"oracle"`
	Python     string `json:"python"`
	Stdlib     string `json:"stdlib"`
	Files      int    `json:"files"`
	// Hugging Face fixtures (record_hf.py): what was tokenised, and
	// whether each record ends with the sha256 of the decoded text.
	Source       string `json:"source"`
	SourceSHA256 string `json:"source_sha256"`
	DecodeSHA256 bool   `json:"decode_sha256"`
}

// tokrefFile is the reference for one text file: its path relative to the
// recorded root, the sha256 of its bytes, the reference's ids, and (Hugging
// Face fixtures) the sha256 of the reference's decoded text.
type tokrefFile struct {
	Path      string
	Sum       [32]byte
	IDs       []int32
	DecodeSum [32]byte
}

// readTokref parses a stdlib-<name>.tokref.gz fixture.
func readTokref(path string) (tokrefHeader, []tokrefFile, error) {
	var h tokrefHeader
	fh, err := os.Open(path)
	if err != nil {
		return h, nil, err
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		return h, nil, fmt.Errorf("%s: %v", path, err)
	}
	r := bufio.NewReader(zr)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return h, nil, fmt.Errorf("%s: header: %v", path, err)
	}
	if err := json.Unmarshal(line, &h); err != nil || h.Format != "actor-tokref-1" {
		return h, nil, fmt.Errorf("%s: not an actor-tokref-1 fixture (%v)", path, err)
	}
	uv := func() (int, error) {
		n, err := binary.ReadUvarint(r)
		if err == nil && n > 1<<26 {
			err = fmt.Errorf("count %d out of range", n)
		}
		return int(n), err
	}
	files := make([]tokrefFile, h.Files)
	for i := range files {
		f := &files[i]
		n, err := uv()
		if err != nil {
			return h, nil, fmt.Errorf("%s: record %d: %v", path, i, err)
		}
		name := make([]byte, n)
		if _, err := io.ReadFull(r, name); err != nil {
			return h, nil, fmt.Errorf("%s: record %d: %v", path, i, err)
		}
		f.Path = string(name)
		if _, err := io.ReadFull(r, f.Sum[:]); err != nil {
			return h, nil, fmt.Errorf("%s: record %d: %v", path, i, err)
		}
		if n, err = uv(); err != nil {
			return h, nil, fmt.Errorf("%s: record %d: %v", path, i, err)
		}
		f.IDs = make([]int32, n)
		for j := range f.IDs {
			id, err := uv()
			if err != nil {
				return h, nil, fmt.Errorf("%s: record %d: %v", path, i, err)
			}
			f.IDs[j] = int32(id)
		}
		if h.DecodeSHA256 {
			if _, err := io.ReadFull(r, f.DecodeSum[:]); err != nil {
				return h, nil, fmt.Errorf("%s: record %d: %v", path, i, err)
			}
		}
	}
	return h, files, nil
}

// fixtureGGUF finds the model file a fixture was recorded from: a pulled
// model (testsupport.Model) or one of llama.cpp's vocab files
// (testsupport.VocabFile); either skips, or fails when CI requires it, when
// the file is absent.
func fixtureGGUF(t testing.TB, h tokrefHeader) string {
	t.Helper()
	switch h.Tokenizer {
	case "smollm2":
		return testsupport.Model(t, "smollm2-135m")
	case "qwen2.5-coder":
		return testsupport.Model(t, "qwen2.5-coder-0.5b")
	}
	return testsupport.VocabFile(t, h.GGUF)
}

// fileSHA256 returns the hex sha256 of a file's contents.
func fileSHA256(t testing.TB, path string) string {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestStdlibMatchesLlamaCpp encodes the recorded subset of the Python
// standard library with every tokenizer that has a fixture and requires
// llama.cpp's ids exactly, and decode(encode(x)) == x.
func TestStdlibMatchesLlamaCpp(t *testing.T) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "stdlib-*.tokref.gz"))
	if len(fixtures) == 0 {
		t.Fatal("no testdata/stdlib-*.tokref.gz fixtures: run scripts/tokref/record.py")
	}
	for _, fx := range fixtures {
		h, files, err := readTokref(fx)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(h.Tokenizer, func(t *testing.T) {
			gguf := fixtureGGUF(t, h)
			if sum := fileSHA256(t, gguf); sum != h.GGUFSHA256 {
				t.Fatalf("%s has sha256 %s, but %s was recorded from %s", gguf, sum, fx, h.GGUFSHA256)
			}
			texts := stdlibTexts(t, h, fx, files)
			tok := load(t, gguf)
			equal, tokens := 0, 0
			for i, f := range files {
				text := texts[i]
				got := tok.Encode(text, false)
				tokens += len(got)
				if diff := firstDiff(got, f.IDs); diff >= 0 {
					t.Errorf("%s: ids differ from llama.cpp at token %d (got %d, want %d tokens): got %s, want %s",
						f.Path, diff, len(got), len(f.IDs), around(tok, got, diff), around(tok, f.IDs, diff))
					continue
				}
				if back := tok.Decode(got); back != text {
					t.Errorf("%s: decode(encode(x)) != x", f.Path)
					continue
				}
				equal++
			}
			t.Logf("%s: %d/%d files equal to llama.cpp and round-tripped (%d tokens)", h.Tokenizer, equal, len(files), tokens)
		})
	}
}

// stdlibRoot returns the standard library folder to read: $ACTOR_PY_STDLIB
// or the recorded one; skips (fails under ACTOR_REQUIRE_VOCAB=1) when absent.
func stdlibRoot(t *testing.T, h tokrefHeader) string {
	t.Helper()
	root := os.Getenv("ACTOR_PY_STDLIB")
	if root == "" {
		root = h.Stdlib
	}
	return testsupport.NeedFile(t, root, testsupport.RequireVocab, "the Python "+h.Python+" standard library; set ACTOR_PY_STDLIB")
}

// firstDiff returns the first index where a and b differ, -1 if equal.
func firstDiff(a, b []int32) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// around renders the tokens near index i for a failure message.
func around(tok *Tokenizer, ids []int32, i int) string {
	lo, hi := max(0, i-3), min(len(ids), i+4)
	var parts []string
	for _, id := range ids[lo:hi] {
		parts = append(parts, fmt.Sprintf("%d:%q", id, tok.TokenText(id)))
	}
	return "[" + strings.Join(parts, " ") + "]"
}
