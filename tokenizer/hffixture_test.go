package tokenizer

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/gguf"
	"actor/internal/testsupport"
	"actor/models"
)

// The Hugging Face tokenizers the fixtures of scripts/tokref/record_hf.py
// were recorded from, and how the tests get them: the MiniLM, SmolLM2 and
// Qwen2.5-Coder tokenizer.json files are committed (gzipped), the
// RoBERTa-style folder is written from llama.cpp's GPT-2 vocabulary.

// gunzipFile returns the decompressed contents of a testdata file.
func gunzipFile(t testing.TB, name string) []byte {
	t.Helper()
	data, err := readGz(name)
	if err != nil {
		t.Fatalf("%v: run scripts/tokref/record_hf.py", err)
	}
	return data
}

func readGz(name string) ([]byte, error) {
	fh, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// committedJSON loads a committed gzipped tokenizer.json, checking that it
// is the file the fixture was recorded from.
func committedJSON(t testing.TB, name, wantSHA string) *Tokenizer {
	t.Helper()
	data := gunzipFile(t, name)
	if wantSHA != "" && sha256Hex(data) != wantSHA {
		t.Fatalf("testdata/%s has sha256 %s, the fixture was recorded from %s", name, sha256Hex(data), wantSHA)
	}
	tok, err := ParseJSON(data, name)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// robertaFiles writes the RoBERTa-style folder of record_hf.py
// (roberta_files) from llama.cpp's GPT-2 vocabulary: <s> <pad> </s> <unk>,
// GPT-2's tokens, <mask>; byte for byte what Python's json.dumps writes.
func robertaFiles(t testing.TB, dir string) string {
	t.Helper()
	f, err := gguf.Open(testsupport.VocabFile(t, "ggml-vocab-gpt-2.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	toks, err := f.Strings(keyTokens)
	if err != nil {
		t.Fatal(err)
	}
	merges, err := f.Strings(keyMerges)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var order []string
	for _, s := range append(append([]string{"<s>", "<pad>", "</s>", "<unk>"}, toks...), "<mask>") {
		if !seen[s] {
			seen[s] = true
			order = append(order, s)
		}
	}
	var vocab bytes.Buffer
	vocab.WriteByte('{')
	for i, s := range order {
		if i > 0 {
			vocab.WriteString(", ")
		}
		fmt.Fprintf(&vocab, "%s: %d", pyJSONString(s), i)
	}
	vocab.WriteByte('}')
	var ml bytes.Buffer
	ml.WriteString("#version: 0.2\n")
	for _, m := range merges {
		ml.WriteString(m + "\n")
	}
	files := map[string][]byte{
		"vocab.json":            vocab.Bytes(),
		"merges.txt":            ml.Bytes(),
		"tokenizer_config.json": []byte(`{"tokenizer_class": "RobertaTokenizer", "add_prefix_space": false, "model_max_length": 1024}`),
	}
	h := sha256.New()
	for _, name := range []string{"merges.txt", "tokenizer_config.json", "vocab.json"} { // sorted, as record_hf.py
		h.Write(files[name])
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// pyJSONString quotes s as Python's json.dumps(ensure_ascii=False) does.
func pyJSONString(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		case '\t':
			sb.WriteString(`\t`)
		case '\b':
			sb.WriteString(`\b`)
		case '\f':
			sb.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&sb, `\u%04x`, r)
			} else {
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// hfTokenizers returns the tokenizers to check against the fixture of a
// Hugging Face tokenizer, by how they were loaded; skips (or fails under
// the ACTOR_REQUIRE_* variable) when a needed file is absent.
func hfTokenizers(t testing.TB, name, wantSHA string) map[string]*Tokenizer {
	t.Helper()
	switch name {
	case "minilm":
		out := map[string]*Tokenizer{"tokenizer.json": committedJSON(t, "minilm-tokenizer.json.gz", wantSHA)}
		if _, err := models.Resolve("all-minilm-l6-v2"); err == nil || os.Getenv(testsupport.RequireMiniLM) == "1" {
			dir := testsupport.Model(t, "all-minilm-l6-v2")
			if sum := fileSHA256(t, filepath.Join(dir, "tokenizer.json")); wantSHA != "" && sum != wantSHA {
				t.Fatalf("%s/tokenizer.json has sha256 %s, the fixture was recorded from %s", dir, sum, wantSHA)
			}
			out["folder"] = mustDir(t, dir)
			vt := t.TempDir()
			for _, f := range []string{"vocab.txt", "tokenizer_config.json", "special_tokens_map.json"} {
				data, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(vt, f), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out["vocab.txt"] = mustDir(t, vt)
		}
		return out
	case "smollm2":
		return map[string]*Tokenizer{"tokenizer.json": committedJSON(t, "smollm2-tokenizer.json.gz", wantSHA)}
	case "qwen2.5-coder":
		return map[string]*Tokenizer{"tokenizer.json": committedJSON(t, "qwen2.5-coder-tokenizer.json.gz", wantSHA)}
	case "roberta-gpt2":
		dir := t.TempDir()
		if sum := robertaFiles(t, dir); wantSHA != "" && sum != wantSHA {
			t.Fatalf("the RoBERTa-style files have sha256 %s, the fixture was recorded from %s", sum, wantSHA)
		}
		return map[string]*Tokenizer{"vocab.json+merges.txt": mustDir(t, dir)}
	}
	t.Fatalf("unknown Hugging Face fixture tokenizer %q", name)
	return nil
}

func mustDir(t testing.TB, dir string) *Tokenizer {
	t.Helper()
	tok, err := FromHFDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// hasSpecialText reports whether text contains the text of a special
// added token (where Encode and EncodeSpecial differ).
func hasSpecialText(tok *Tokenizer, text string) bool {
	for id, a := range tok.attrs {
		if a&attrControl != 0 && strings.Contains(text, tok.texts[id]) {
			return true
		}
	}
	return false
}

// stdlibTexts reads the files of a fixture, checking their sha256.
func stdlibTexts(t *testing.T, h tokrefHeader, fx string, files []tokrefFile) []string {
	t.Helper()
	root := stdlibRoot(t, h)
	texts := make([]string, len(files))
	for i, f := range files {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatalf("stdlib file of the fixture: %v", err)
		}
		if sha256.Sum256(data) != f.Sum {
			t.Fatalf("%s differs from the text %s was recorded from (Python %s stdlib at %s); set ACTOR_PY_STDLIB to that stdlib",
				f.Path, fx, h.Python, h.Stdlib)
		}
		texts[i] = string(data)
	}
	return texts
}

// TestStdlibMatchesHF encodes the stdlib subset with every Hugging Face
// tokenizer that has a fixture, each way it can be loaded, and requires the
// tokenizers package's ids (post-processor applied), the sha256 of its
// decoded text, and Encode equal to EncodeSpecial where no special-token
// text occurs.
func TestStdlibMatchesHF(t *testing.T) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "hf-stdlib-*.tokref.gz"))
	if len(fixtures) == 0 {
		t.Fatal("no testdata/hf-stdlib-*.tokref.gz fixtures: run scripts/tokref/record_hf.py")
	}
	for _, fx := range fixtures {
		h, files, err := readTokref(fx)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(h.Tokenizer, func(t *testing.T) {
			toks := hfTokenizers(t, h.Tokenizer, h.SourceSHA256)
			texts := stdlibTexts(t, h, fx, files)
			for how, tok := range toks {
				equal, tokens := 0, 0
				for i, f := range files {
					got := tok.EncodeSpecial(texts[i], true)
					tokens += len(got)
					if diff := firstDiff(got, f.IDs); diff >= 0 {
						t.Errorf("%s (%s): ids differ from tokenizers at token %d (got %d, want %d tokens): got %s, want %s",
							f.Path, how, diff, len(got), len(f.IDs), around(tok, got, diff), around(tok, f.IDs, diff))
						continue
					}
					if sha256.Sum256([]byte(tok.Decode(got))) != f.DecodeSum {
						t.Errorf("%s (%s): decoded text differs from tokenizers' decode", f.Path, how)
						continue
					}
					if plain := tok.Encode(texts[i], true); !hasSpecialText(tok, texts[i]) && firstDiff(plain, got) >= 0 {
						t.Errorf("%s (%s): Encode differs from EncodeSpecial without special-token text", f.Path, how)
						continue
					}
					equal++
				}
				t.Logf("%s (%s): %d/%d files equal to %s (%d tokens)", h.Tokenizer, how, equal, len(files), h.Oracle, tokens)
			}
		})
	}
}

// TestHFMatchesGGUF checks that a model's tokenizer.json and its GGUF
// vocabulary tokenise alike: the tokenizers package's ids equal llama.cpp's
// on every stdlib file (the fixtures), and so do this package's two
// tokenizers when both files are present.
func TestHFMatchesGGUF(t *testing.T) {
	for _, name := range []string{"smollm2", "qwen2.5-coder"} {
		t.Run(name, func(t *testing.T) {
			hh, hfFiles, err := readTokref(filepath.Join("testdata", "hf-stdlib-"+name+".tokref.gz"))
			if err != nil {
				t.Fatal(err)
			}
			gh, ggFiles, err := readTokref(filepath.Join("testdata", "stdlib-"+name+".tokref.gz"))
			if err != nil {
				t.Fatal(err)
			}
			if len(hfFiles) != len(ggFiles) {
				t.Fatalf("%d files in the Hugging Face fixture, %d in llama.cpp's", len(hfFiles), len(ggFiles))
			}
			for i := range hfFiles {
				if hfFiles[i].Sum != ggFiles[i].Sum || firstDiff(hfFiles[i].IDs, ggFiles[i].IDs) >= 0 {
					t.Errorf("%s: tokenizers and llama.cpp disagree", hfFiles[i].Path)
				}
			}
			hfTok := hfTokenizers(t, name, hh.SourceSHA256)["tokenizer.json"]
			ggTok := load(t, fixtureGGUF(t, gh))
			texts := stdlibTexts(t, hh, "hf-stdlib-"+name, hfFiles)
			for i, text := range texts {
				if a, b := hfTok.Encode(text, false), ggTok.Encode(text, false); firstDiff(a, b) >= 0 {
					t.Errorf("%s: tokenizer.json and GGUF tokenizers differ at token %d", hfFiles[i].Path, firstDiff(a, b))
				}
			}
			t.Logf("%s: %d files, tokenizer.json == GGUF", name, len(texts))
		})
	}
}
