package tokenizer

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
)

// casesFixture is testdata/cases.json.gz, written by
// scripts/tokref/record.py: llama.cpp's ids for tricky strings in the four
// modes, and its special-token facts per tokenizer.
type casesFixture struct {
	Oracle     string   `json:"oracle"`
	Texts      []string `json:"texts"`
	Tokenizers map[string]struct {
		GGUF    string               `json:"gguf"`
		BOS     int32                `json:"bos"`
		EOS     int32                `json:"eos"`
		EOG     []int32              `json:"eog"`
		Control []int32              `json:"control"`
		IDs     map[string][][]int32 `json:"ids"`
	} `json:"tokenizers"`
}

// TestCasesMatchLlamaCpp checks Encode and EncodeSpecial with and without
// BOS on hand-picked strings (special-token texts, white space runs,
// non-Latin scripts, contractions, long runs), BOS/EOS, the
// end-of-generation set and which tokens are control tokens.
func TestCasesMatchLlamaCpp(t *testing.T) {
	fh, err := os.Open(filepath.Join("testdata", "cases.json.gz"))
	if err != nil {
		t.Fatalf("%v: run scripts/tokref/record.py", err)
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	var fx casesFixture
	if err := json.NewDecoder(zr).Decode(&fx); err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(fx.Tokenizers))
	for name := range fx.Tokenizers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c := fx.Tokenizers[name]
		t.Run(name, func(t *testing.T) {
			tok := load(t, fixtureGGUF(t, tokrefHeader{Tokenizer: name, GGUF: c.GGUF}))
			if tok.BOS() != c.BOS || tok.EOS() != c.EOS {
				t.Errorf("bos/eos %d/%d, llama.cpp %d/%d", tok.BOS(), tok.EOS(), c.BOS, c.EOS)
			}
			var eog, control []int32
			for id := range int32(tok.VocabSize()) {
				if tok.EOG(id) {
					eog = append(eog, id)
				}
				if tok.attrs[id]&attrControl != 0 {
					control = append(control, id)
				}
			}
			if !slices.Equal(eog, c.EOG) {
				t.Errorf("end-of-generation ids %v, llama.cpp %v", eog, c.EOG)
			}
			if !slices.Equal(control, c.Control) {
				t.Errorf("control ids %v, llama.cpp %v", control, c.Control)
			}
			modes := map[string]func(string) []int32{
				"bos=0,special=0": func(s string) []int32 { return tok.Encode(s, false) },
				"bos=1,special=0": func(s string) []int32 { return tok.Encode(s, true) },
				"bos=0,special=1": func(s string) []int32 { return tok.EncodeSpecial(s, false) },
				"bos=1,special=1": func(s string) []int32 { return tok.EncodeSpecial(s, true) },
			}
			for mode, encode := range modes {
				want := c.IDs[mode]
				if len(want) != len(fx.Texts) {
					t.Fatalf("%s: %d results for %d texts", mode, len(want), len(fx.Texts))
				}
				for i, s := range fx.Texts {
					if got := encode(s); !slices.Equal(got, want[i]) {
						t.Errorf("%s %q:\n got %v\nwant %v", mode, s, got, want[i])
					}
				}
			}
		})
	}
}
