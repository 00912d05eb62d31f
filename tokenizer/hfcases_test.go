package tokenizer

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"testing"
)

// hfCases is testdata/hf-cases.json.gz, written by
// scripts/tokref/record_hf.py: for tricky strings, the tokenizers package's
// ids, decoded texts and truncated encodings, per tokenizer; synthetic
// tokenizers carry their tokenizer.json.
type hfCases struct {
	Oracle     string                 `json:"oracle"`
	Texts      []string               `json:"texts"`
	Tokenizers map[string]hfCaseEntry `json:"tokenizers"`
}

// hfCaseEntry holds the results of one tokenizer on the texts.
type hfCaseEntry struct {
	JSON          *string              `json:"json"`
	Special       [][]int32            `json:"special"` // encode(text): post-processor, special tokens matched
	Plain         [][]int32            `json:"plain"`   // encode_special_tokens, no post-processor
	Decode        []string             `json:"decode"`  // decode(special ids), special tokens skipped
	DecodeSpecial []string             `json:"decode_special"`
	Trunc         map[string][][]int32 `json:"trunc"` // truncation to max_length n
}

func readHFCases(t *testing.T) hfCases {
	t.Helper()
	var c hfCases
	if err := json.Unmarshal(gunzipFile(t, "hf-cases.json.gz"), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestHFCases checks every tokenizer of hf-cases.json.gz on the tricky
// strings: EncodeSpecial with the post-processor, Encode without it,
// Decode and DecodeSpecial, and EncodeForModel truncating to 5 and 9
// tokens. The synthetic tokenizers cover each normalizer, pre-tokenizer
// (every split behaviour, invert, empty regex matches, a known regex with
// ignore_merges), model option, post-processor, decoder and added-token
// flag.
func TestHFCases(t *testing.T) {
	c := readHFCases(t)
	names := make([]string, 0, len(c.Tokenizers))
	for n := range c.Tokenizers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		want := c.Tokenizers[name]
		t.Run(name, func(t *testing.T) {
			var toks map[string]*Tokenizer
			if want.JSON != nil {
				tok, err := ParseJSON([]byte(*want.JSON), name)
				if err != nil {
					t.Fatal(err)
				}
				toks = map[string]*Tokenizer{"tokenizer.json": tok}
			} else {
				toks = hfTokenizers(t, name, "")
			}
			for how, tok := range toks {
				if len(toks) > 1 {
					t.Log("loaded from", how)
				}
				checkHFCases(t, tok, c.Texts, want)
			}
		})
	}
}

// checkHFCases compares tok with the recorded results on texts.
func checkHFCases(t *testing.T, tok *Tokenizer, texts []string, want hfCaseEntry) {
	t.Helper()
	for i, text := range texts {
		if got := tok.EncodeSpecial(text, true); !slices.Equal(got, want.Special[i]) {
			t.Errorf("EncodeSpecial(%q):\n got %v\nwant %v", text, got, want.Special[i])
			continue
		}
		if got := tok.Encode(text, false); !slices.Equal(got, want.Plain[i]) {
			t.Errorf("Encode(%q):\n got %v\nwant %v", text, got, want.Plain[i])
		}
		if got := tok.Decode(want.Special[i]); got != want.Decode[i] {
			t.Errorf("Decode of %q: got %q, want %q", text, got, want.Decode[i])
		}
		if got := tok.DecodeSpecial(want.Special[i]); got != want.DecodeSpecial[i] {
			t.Errorf("DecodeSpecial of %q: got %q, want %q", text, got, want.DecodeSpecial[i])
		}
		for n, ids := range want.Trunc {
			maxLen, _ := strconv.Atoi(n)
			if got := tok.EncodeForModel(text, maxLen); !slices.Equal(got, ids[i]) {
				t.Errorf("EncodeForModel(%q, %d): got %v, want %v", text, maxLen, got, ids[i])
			}
		}
	}
}
