package tokenizer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Small tokenizer.json files written by hand, with expectations worked out
// by hand from tokenizers' rules.

// bertJSON is a WordPiece tokenizer over a ten-token vocabulary.
const bertJSON = `{
  "version": "1.0",
  "added_tokens": [
    {"id": 0, "content": "[UNK]", "special": true},
    {"id": 1, "content": "[CLS]", "special": true},
    {"id": 2, "content": "[SEP]", "special": true},
    {"id": 3, "content": "[PAD]", "special": true},
    {"id": 99, "content": "<x>", "lstrip": true, "rstrip": true},
    {"id": 99, "content": "foo", "single_word": true}
  ],
  "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
  "pre_tokenizer": {"type": "BertPreTokenizer"},
  "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 2], "cls": ["[CLS]", 1]},
  "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
  "padding": {"pad_id": 3, "pad_token": "[PAD]"},
  "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 9,
    "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "[PAD]": 3, "un": 4, "##aff": 5, "##able": 6, "a": 7, ".": 8, "中": 9}}
}`

func TestHFWordPieceByHand(t *testing.T) {
	tok, err := ParseJSON([]byte(bertJSON), "bert.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text string
		want []int32
	}{
		{"unaffable", []int32{4, 5, 6}},          // greedy longest match with ##
		{"UNAFFÁBLE.", []int32{4, 5, 6, 8}},      // lowercased, accent stripped, punctuation split
		{"unaffablea", []int32{0}},               // 10 characters > 9: [UNK]
		{"unx", []int32{0}},                      // "##x" is no token: the whole word is [UNK]
		{"a中a", []int32{7, 9, 7}},                // CJK ideographs stand alone
		{"un\u200b\x00aff", []int32{4, 5}},       // format and control characters are removed
		{"a <x> a", []int32{7, 10, 7}},           // <x> takes the spaces around it (new id 10)
		{"a [SEP]a", []int32{7, 2, 7}},           // special tokens are matched by EncodeSpecial
		{"foo afoo foo.", []int32{11, 0, 11, 8}}, // single_word: not inside "afoo" ([UNK])
		{"", nil},
	} {
		got := tok.EncodeSpecial(c.text, false)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.text, got, c.want)
		}
	}
	if got, want := tok.Encode("a [SEP]a", false), []int32{7, 0, 0, 0, 7}; !slices.Equal(got, want) {
		t.Errorf("Encode (special tokens not matched): got %v, want %v", got, want) // [ sep ] are [UNK]
	}
	if got, want := tok.EncodeForModel("un a a a a", 4), []int32{1, 4, 7, 2}; !slices.Equal(got, want) {
		t.Errorf("EncodeForModel: got %v, want %v", got, want)
	}
	if got, want := tok.EncodeFramed("un a a a a", 5, CutEnd, []int32{1, 10}, []int32{2}), []int32{1, 10, 4, 7, 2}; !slices.Equal(got, want) {
		t.Errorf("EncodeFramed: got %v, want %v", got, want)
	}
	// "unaffable. a" is un ##aff ##able . a (4 5 6 8 7): CutEnds keeps the
	// first half of the room (rounded up) from the start, the rest from the
	// end.
	for _, c := range []struct {
		maxLen int
		want   []int32
	}{{5, []int32{1, 4, 5, 7, 2}}, {6, []int32{1, 4, 5, 8, 7, 2}}, {7, []int32{1, 4, 5, 6, 8, 7, 2}}, {0, []int32{1, 4, 5, 6, 8, 7, 2}}, {3, []int32{1, 4, 2}}} {
		if got := tok.EncodeForModelCut("unaffable. a", c.maxLen, CutEnds); !slices.Equal(got, c.want) {
			t.Errorf("EncodeForModelCut(CutEnds, %d): got %v, want %v", c.maxLen, got, c.want)
		}
	}
	if got, want := tok.EncodeFramed("unaffable. a", 6, CutEnds, []int32{1, 10}, []int32{2}), []int32{1, 10, 4, 5, 7, 2}; !slices.Equal(got, want) {
		t.Errorf("EncodeFramed(CutEnds): got %v, want %v", got, want)
	}
	if got := tok.Decode([]int32{1, 4, 5, 6, 8, 7, 2}); got != "unaffable. a" {
		t.Errorf("Decode: %q", got)
	}
	if got := tok.Piece(5) + tok.Piece(7); got != "aff a" {
		t.Errorf("pieces: %q", got)
	}
	b := tok.EncodeBatch([]string{"a", "unaffable a", ""}, 0)
	wantIDs := []int32{1, 7, 2, 3, 3, 3, 1, 4, 5, 6, 7, 2, 1, 2, 3, 3, 3, 3}
	wantMask := []int32{1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0}
	if b.Rows != 3 || b.Width != 6 || !slices.Equal(b.IDs, wantIDs) || !slices.Equal(b.Mask, wantMask) ||
		!slices.Equal(b.Lens, []int{3, 6, 2}) {
		t.Errorf("EncodeBatch: %+v", b)
	}
	if tok.PadID() != 3 || tok.NumSpecial() != 2 || tok.BOS() != 1 || tok.EOS() != 2 {
		t.Errorf("pad %d, specials %d, bos %d, eos %d", tok.PadID(), tok.NumSpecial(), tok.BOS(), tok.EOS())
	}
	if id, ok := tok.TokenID("<x>"); !ok || id != 10 {
		t.Errorf("TokenID(<x>) = %d, %v", id, ok)
	}
}

// llamaJSON is a SentencePiece-style BPE (Metaspace, byte fallback) with
// Llama 2's decoder chain.
const llamaJSON = `{
  "added_tokens": [{"id": 0, "content": "<unk>", "special": true}, {"id": 1, "content": "<s>", "special": true}],
  "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": false},
  "post_processor": {"type": "TemplateProcessing", "single": "<s> $A", "special_tokens": {"<s>": {"id": "<s>", "ids": [1]}}},
  "decoder": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
    {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
  "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true,
    "vocab": {"<unk>": 0, "<s>": 1, "<0xC3>": 2, "<0xA9>": 3, "▁": 4, "a": 5, "b": 6, "▁a": 7, "ab": 8, "▁ab": 9},
    "merges": [["a", "b"], ["▁", "a"], ["▁", "ab"]]}
}`

func TestHFMetaspaceByHand(t *testing.T) {
	tok, err := ParseJSON([]byte(llamaJSON), "llama.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text string
		want []int32
	}{
		{"ab", []int32{1, 9}},       // "▁ab": a b first (rank 0), then ▁ ab (rank 2)
		{"a ab", []int32{1, 7, 9}},  // spaces become ▁, prepended at the start only
		{"é", []int32{1, 4, 2, 3}},  // é is not a token: its bytes
		{"xy", []int32{1, 4, 0}},    // x and y: one fused <unk>
		{"<s>ab", []int32{1, 1, 8}}, // no ▁ after a special token ("first")
	} {
		got := tok.EncodeSpecial(c.text, true)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: got %v, want %v", c.text, got, c.want)
		}
	}
	if got := tok.Decode([]int32{1, 7, 9, 4, 2, 3}); got != "a ab é" {
		t.Errorf("Decode: %q", got)
	}
	d := tok.NewStreamDecoder()
	var sb strings.Builder
	for _, id := range []int32{7, 9, 4, 2, 3} {
		sb.WriteString(d.Add(id))
	}
	if got := sb.String() + d.Flush(); got != " a ab é" {
		t.Errorf("stream: %q (a continuation keeps its first space)", got)
	}
}

func TestHFErrorsNameTheFile(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`not json`, "not a tokenizer.json"},
		{`{"version": "2.0", "model": {}}`, `unknown tokenizer.json version "2.0"`},
		{`{"model": {"type": "Unigram", "vocab": {"a": 0}}}`, `unsupported model type "Unigram"`},
		{`{"normalizer": {"type": "Precompiled"}, "model": {"type": "WordPiece", "vocab": {"[UNK]": 0}}}`,
			`normalizer: unsupported normalizer type "Precompiled"`},
		{`{"pre_tokenizer": {"type": "UnicodeScripts"}, "model": {"type": "WordPiece", "vocab": {"[UNK]": 0}}}`,
			`unsupported pre_tokenizer type "UnicodeScripts"`},
		{`{"decoder": {"type": "CTC"}, "model": {"type": "WordPiece", "vocab": {"[UNK]": 0}}}`, `unsupported decoder type "CTC"`},
		{`{"model": {"type": "WordPiece", "vocab": {"a": 0}}}`, `unk_token "[UNK]" is not in the vocabulary`},
		{`{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]}}`, `"ab" is not in the vocabulary`},
		{`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a  b"]}}`, "not two tokens separated by one space"},
		{`{"model": {"type": "BPE", "vocab": {"a": 7000}, "merges": []}}`, "out of range"},
		{`{"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a"}, "behavior": "Isolated"}, "model": {"type": "WordPiece", "vocab": {"[UNK]": 0}}}`,
			`regex "(a"`},
	} {
		_, err := ParseJSON([]byte(c.json), "dir/tokenizer.json")
		if err == nil || !strings.HasPrefix(err.Error(), "dir/tokenizer.json: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming the file and saying %q", c.json, err, c.want)
		}
	}
	dir := t.TempDir()
	if _, err := FromHFDir(dir); err == nil || !strings.Contains(err.Error(), dir+": no tokenizer.json") {
		t.Errorf("empty folder: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "vocab.json"), []byte(`{"a": 0}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "merges.txt"), []byte("#version: 0.2\na\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FromHFDir(dir); err == nil || !strings.Contains(err.Error(), "merges.txt: merge 1") {
		t.Errorf("bad merges.txt: %v", err)
	}
	if _, err := FromJSON(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

func TestHFHash(t *testing.T) {
	a, _ := ParseJSON([]byte(bertJSON), "a")
	b, _ := ParseJSON([]byte(bertJSON), "b")
	c, _ := ParseJSON([]byte(strings.Replace(bertJSON, `"max_input_chars_per_word": 9`, `"max_input_chars_per_word": 10`, 1)), "c")
	if a.Hash() != b.Hash() || a.Hash() == c.Hash() || len(a.Hash()) != 64 {
		t.Errorf("hashes %s %s %s", a.Hash(), b.Hash(), c.Hash())
	}
}

// TestHFConcurrentEncode encodes from several goroutines at once (shared
// word cache, pools, regexes) and requires the sequential results.
func TestHFConcurrentEncode(t *testing.T) {
	tok := committedJSON(t, "minilm-tokenizer.json.gz", "")
	texts := []string{"def f(x):\n    return x", "Hello, WORLD! naïve café", "日本語 text 123", strings.Repeat("ab cd ", 50)}
	want := make([][]int32, len(texts))
	for i, s := range texts {
		want[i] = tok.EncodeForModel(s, 64)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 200 {
				i := (g + k) % len(texts)
				if got := tok.EncodeForModel(texts[i], 64); !slices.Equal(got, want[i]) {
					errs <- texts[i]
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Errorf("%q: concurrent result differs", s)
	}
}
