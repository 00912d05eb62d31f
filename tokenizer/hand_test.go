package tokenizer

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestBPEMergeOrder checks merges worked out by hand: lowest rank first,
// the leftmost of equal pairs first, results merging further.
func TestBPEMergeOrder(t *testing.T) {
	tok := mustNew(t, bpeVocab("gpt-2", []string{"a b", "b c", "ab c", "a a"}))
	for _, c := range []struct {
		text string
		want []string
	}{
		{"abc", []string{"abc"}},
		{"bcab", []string{"bc", "ab"}}, // "a b" (rank 0) before "b c" (rank 1)
		{"aaa", []string{"aa", "a"}},   // the left "a a" first
		{"aaaa", []string{"aa", "aa"}},
		{"ab c", []string{"ab", "Ġ", "c"}},
		{"", nil},
	} {
		got := tok.Encode(c.text, true)
		if want := ids(t, tok, c.want...); !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", c.text, got, want)
		}
		if back := tok.Decode(got); back != c.text {
			t.Errorf("%q decoded as %q", c.text, back)
		}
	}
}

// TestPreTokenizers checks each pre-tokenizer's split of one line against
// the split worked out by hand from its regexes.
func TestPreTokenizers(t *testing.T) {
	const text = "Hello   world\n\n  x123456 I'M don't 3.5"
	for pre, want := range map[string][]string{
		"llama-bpe": {"Hello", "  ", " world", "\n\n", " ", " x", "123", "456", " I", "'M", " don", "'t", " ", "3", ".", "5"},
		"qwen2": {"Hello", "  ", " world", "\n\n", " ", " x", "1", "2", "3", "4", "5", "6", " I", "'M", " don", "'t",
			" ", "3", ".", "5"},
		"gpt-2": {"Hello", "  ", " world", "\n\n ", " x", "123456", " I", "'", "M", " don", "'t", " 3", ".", "5"},
		"smollm": {"Hello", "  ", " world", "\n\n ", " x", "1", "2", "3", "4", "5", "6", " I", "'", "M", " don", "'t",
			" ", "3", ".", "5"},
		"deepseek-coder": {"Hello", "  ", " world", "\n", "\n", " ", " x", "1", "2", "3", "4", "5", "6", " I", "'", "M",
			" don", "'", "t", " ", "3", ".", "5"},
		"default": {"Hello", "  ", " world", "\n\n ", " x", "123", "456", " I", "'", "M", " don", "'", "t", " ", "3", ".", "5"},
	} {
		p := newPretokenizer(preSpecs[pre])
		var got []string
		for _, w := range p.split(text, nil) {
			got = append(got, text[w.a:w.b])
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", pre, got, want)
		}
	}
}

// TestSPM checks SentencePiece merges by score, ties leftmost, byte
// fallback, the space prefix and BOS.
func TestSPM(t *testing.T) {
	scores := map[string]float32{"▁": -1, "a": -2, "b": -2, "c": -5, "x": -4, "▁a": -3, "ab": -1.5, "▁ab": -1, "xx": -1}
	tok := mustNew(t, spmVocab(scores, []string{"▁", "a", "b", "c", "x", "▁a", "ab", "▁ab", "xx"}))
	for _, c := range []struct {
		text string
		want []string
	}{
		{"ab", []string{"<s>", "▁ab"}}, // "ab" (-1.5) before "▁a" (-3), then "▁ab"
		{"ca", []string{"<s>", "▁", "c", "a"}},
		{"é", []string{"<s>", "▁", "<0xC3>", "<0xA9>"}},
		{"a b", []string{"<s>", "▁a", "▁", "b"}},
		{"xxx", []string{"<s>", "▁", "xx", "x"}},
		{"", []string{"<s>"}},
	} {
		got := tok.Encode(c.text, true)
		if want := ids(t, tok, c.want...); !slices.Equal(got, want) {
			t.Errorf("%q: got %v, want %v", c.text, got, want)
		}
		if back := tok.Decode(got); back != c.text {
			t.Errorf("%q decoded as %q", c.text, back)
		}
	}
	if got := tok.Encode("ab", false); !slices.Equal(got, ids(t, tok, "▁ab")) {
		t.Errorf("without BOS: %v", got)
	}
}

// TestSpecialPartition checks that control tokens are matched only by
// EncodeSpecial, user-defined ones always, longest text first.
func TestSpecialPartition(t *testing.T) {
	tok := mustNew(t, bpeVocab("gpt-2", nil,
		special{"<a>", TypeControl}, special{"<ab>", TypeControl}, special{"<u>", TypeUserDefined}))
	text := "x<ab>y<a>z<u>"
	got := tok.EncodeSpecial(text, false)
	if want := ids(t, tok, "x", "<ab>", "y", "<a>", "z", "<u>"); !slices.Equal(got, want) {
		t.Errorf("EncodeSpecial: got %v, want %v", got, want)
	}
	if back := tok.DecodeSpecial(got); back != text {
		t.Errorf("DecodeSpecial gave %q", back)
	}
	if back := tok.Decode(got); back != "xyz<u>" {
		t.Errorf("Decode left %q, want control tokens out", back)
	}
	plain := tok.Encode(text, false)
	if plain[len(plain)-1] != ids(t, tok, "<u>")[0] || slices.Contains(plain, ids(t, tok, "<a>")[0]) {
		t.Errorf("Encode matched control tokens or missed the user-defined one: %v", plain)
	}
	if back := tok.Decode(plain); back != text {
		t.Errorf("Decode(Encode) gave %q", back)
	}
}

// TestStreamDecoder checks that a character split over byte tokens is held
// back until complete and that invalid bytes come out as U+FFFD.
func TestStreamDecoder(t *testing.T) {
	tok := mustNew(t, spmVocab(map[string]float32{"▁a": -1}, []string{"▁a"}))
	d := tok.NewStreamDecoder()
	steps := []struct {
		tok, want string
	}{
		{"<s>", ""}, {"<0xC3>", ""}, {"<0xA9>", "é"}, {"▁a", " a"}, {"<0xFF>", "\uFFFD"},
		{"<0xE2>", ""}, {"<0x82>", ""}, {"<0xAC>", "€"}, {"<0xF0>", ""},
	}
	for _, s := range steps {
		if got := d.Add(ids(t, tok, s.tok)[0]); got != s.want {
			t.Errorf("Add(%s) = %q, want %q", s.tok, got, s.want)
		}
	}
	if got := d.Flush(); got != "\uFFFD" {
		t.Errorf("Flush = %q", got)
	}
	if got := d.Flush(); got != "" {
		t.Errorf("second Flush = %q", got)
	}
}

// TestEOGAndSpecials checks end-of-generation detection by text, control
// marking, whitespace tokens and the accessors.
func TestEOGAndSpecials(t *testing.T) {
	v := bpeVocab("gpt-2", []string{"Ġ Ġ"}, special{"<|im_end|>", TypeUserDefined},
		special{"<|endoftext|>", TypeControl}, special{"<|file_sep|>", TypeUserDefined}, special{"<x>", TypeUserDefined})
	v.EOS = int32(len(v.Tokens) - 3)
	tok := mustNew(t, v)
	for _, c := range []struct {
		text         string
		eog, special bool
	}{
		{"<|im_end|>", true, true},
		{"<|endoftext|>", true, true},
		{"<|file_sep|>", true, true},
		{"<x>", false, false},
		{"a", false, false},
	} {
		id := ids(t, tok, c.text)[0]
		if tok.EOG(id) != c.eog || tok.IsSpecial(id) != c.special {
			t.Errorf("%q: EOG %v IsSpecial %v", c.text, tok.EOG(id), tok.IsSpecial(id))
		}
	}
	if tok.EOS() != v.EOS || tok.BOS() != -1 || tok.VocabSize() != len(v.Tokens) || tok.AddsBOS() {
		t.Errorf("accessors: eos %d bos %d size %d", tok.EOS(), tok.BOS(), tok.VocabSize())
	}
	for _, id := range []int32{-1, int32(len(v.Tokens))} {
		if tok.EOG(id) || tok.IsSpecial(id) || tok.TokenText(id) != "" || tok.Piece(id) != "" || tok.Decode([]int32{id}) != "" {
			t.Errorf("invalid id %d not handled", id)
		}
	}
}

// TestHash checks that the hash is stable and sees a change of merges.
func TestHash(t *testing.T) {
	a := mustNew(t, bpeVocab("gpt-2", []string{"a b"})).Hash()
	b := mustNew(t, bpeVocab("gpt-2", []string{"a b"})).Hash()
	c := mustNew(t, bpeVocab("gpt-2", []string{"b a"})).Hash()
	if a != b || a == c || len(a) != 64 {
		t.Errorf("hashes %s %s %s", a, b, c)
	}
}

// TestNewRejects checks the errors for vocabularies New cannot use.
func TestNewRejects(t *testing.T) {
	short := bpeVocab("gpt-2", nil)
	short.Types = short.Types[:10]
	for name, c := range map[string]struct {
		v    Vocab
		want string
	}{
		"empty": {Vocab{Model: ModelBPE}, "empty"},
		"model": {Vocab{Model: "bert", Tokens: []string{"a"}}, `unsupported tokenizer model "bert"`},
		"pre":   {bpeVocab("klingon", nil), `unsupported pre-tokenizer "klingon"`},
		"types": {short, "10 token types for 256 tokens"},
	} {
		_, err := New(c.v)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}

// TestConcurrentEncode checks that one tokenizer (and its word cache) can
// serve several goroutines at once.
func TestConcurrentEncode(t *testing.T) {
	for _, tok := range fuzzTokenizers() {
		text := strings.Repeat("the cat sat on the mat; 12 abab\n\t", 50)
		want := tok.Encode(text, false)
		tok.cache = wordCache{}
		var wg sync.WaitGroup
		errs := make(chan string, 8)
		for range 8 {
			wg.Go(func() {
				if got := tok.Encode(text, false); !slices.Equal(got, want) {
					errs <- "concurrent Encode differs"
				}
			})
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Fatal(e)
		}
	}
}

// TestFIMTokens finds the fill-in-the-middle tokens by their texts, and
// reports -1 for the ones a vocabulary lacks.
func TestFIMTokens(t *testing.T) {
	v := bpeVocab("gpt-2", nil, special{"<|fim_prefix|>", TypeControl}, special{"<|fim_suffix|>", TypeControl},
		special{"<|fim_middle|>", TypeControl}, special{"<|repo_name|>", TypeControl}, special{"<|file_sep|>", TypeControl})
	tok := mustNew(t, v)
	n := int32(len(v.Tokens))
	want := FIM{Prefix: n - 5, Suffix: n - 4, Middle: n - 3, Repo: n - 2, Sep: n - 1}
	if f := tok.FIM(); f != want || !f.Infill() || !f.Repository() {
		t.Errorf("FIM %+v, want %+v", f, want)
	}
	plain := mustNew(t, bpeVocab("gpt-2", nil, special{"<|fim_prefix|>", TypeControl}))
	if f := plain.FIM(); f.Infill() || f.Repository() || f.Prefix != int32(len(plain.texts)-1) || f.Middle != -1 {
		t.Errorf("a vocabulary with only a prefix token: %+v", f)
	}
}
