package tokenizer

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// hfFuzzSet is the synthetic tokenizers of hf-cases.json.gz (by name) and
// the committed real ones.
type hfFuzzSet struct {
	names []string
	toks  []*Tokenizer
	jsons []string
}

var hfFuzzTokenizers = sync.OnceValue(func() hfFuzzSet {
	var set hfFuzzSet
	var c hfCases
	data, err := readGz("hf-cases.json.gz")
	if err == nil {
		err = json.Unmarshal(data, &c)
	}
	if err != nil {
		panic(err)
	}
	names := make([]string, 0, len(c.Tokenizers))
	for n, e := range c.Tokenizers {
		if e.JSON != nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		js := *c.Tokenizers[n].JSON
		tok, err := ParseJSON([]byte(js), n)
		if err != nil {
			panic(err)
		}
		set.names, set.toks, set.jsons = append(set.names, n), append(set.toks, tok), append(set.jsons, js)
	}
	for _, n := range []string{"minilm", "smollm2"} {
		data, err := readGz(n + "-tokenizer.json.gz")
		if err != nil {
			panic(err)
		}
		tok, err := ParseJSON(data, n)
		if err != nil {
			panic(err)
		}
		set.names, set.toks = append(set.names, n), append(set.toks, tok)
	}
	return set
})

// roundTrips names the tokenizers whose Decode inverts Encode on any
// input whose bytes all have tokens: byte-level BPE without a normaliser or
// a split that drops text.
var roundTrips = map[string]bool{"smollm2": true, "bl-split-isolated": true, "bl-split-mprev": true,
	"bl-split-mnext": true, "bl-split-contig": true, "bl-split-empty": true, "bl-llama3": true,
	"bl-bytelevel-mid": true}

// FuzzHFEncode runs arbitrary input (any bytes) through every Hugging Face
// tokenizer: no panic, ids in range, EncodeForModel within its length and
// equal to the template around Encode, Decode(Encode(x)) == x for the
// byte-level tokenizers, and the stream decoder emitting valid UTF-8 that
// equals Decode for them.
func FuzzHFEncode(f *testing.F) {
	for _, s := range []string{"", " ", "hello world", "def f():\n\treturn 12 + 3\n\n", "  the  them\r\n",
		"I'm café 日本語 😀", "<s>x</s>[CLS]<l> <r>word", "\xff\xfe\xc3", "a\xe2\x82", "=== ... ", "'s 'LL 'ſ 123456789",
		"x\u00a0y\u3000z", "▁▁a", strings.Repeat(" ", 70) + "x", "é\u0301 ½ Ⅻ", "<0x41>", "Special SPECIAL"} {
		f.Add(s, uint8(7))
	}
	set := hfFuzzTokenizers()
	f.Fuzz(func(t *testing.T, s string, n uint8) {
		for i, tok := range set.toks {
			name := set.names[i]
			for _, ids := range [][]int32{tok.Encode(s, true), tok.EncodeSpecial(s, true), tok.EncodeForModel(s, int(n))} {
				for _, id := range ids {
					if !tok.valid(id) {
						t.Fatalf("%s: %q: id %d out of range", name, s, id)
					}
				}
			}
			plain := tok.EncodeSpecial(s, false)
			full := tok.EncodeForModel(s, 0)
			if len(full) != len(plain)+tok.NumSpecial() {
				t.Fatalf("%s: %q: EncodeForModel gives %d ids for %d + %d", name, s, len(full), len(plain), tok.NumSpecial())
			}
			if cut := tok.EncodeForModel(s, int(n)); n > 0 && len(cut) > max(int(n), tok.NumSpecial()) {
				t.Fatalf("%s: %q: EncodeForModel(%d) gives %d ids", name, s, n, len(cut))
			}
			ids := tok.Encode(s, false)
			back := tok.Decode(ids)
			_ = tok.DecodeSpecial(tok.EncodeSpecial(s, true))
			d := tok.NewStreamDecoder()
			var sb strings.Builder
			for _, id := range ids {
				sb.WriteString(d.Add(id))
			}
			sb.WriteString(d.Flush())
			if !utf8.ValidString(sb.String()) {
				t.Fatalf("%s: %q: stream emitted invalid UTF-8", name, s)
			}
			if !roundTrips[name] || !hfBytesCovered(tok, s) {
				continue
			}
			if back != s {
				t.Fatalf("%s: %q decoded as %q", name, s, back)
			}
			if utf8.ValidString(s) && sb.String() != s {
				t.Fatalf("%s: %q: stream gave %q", name, s, sb.String())
			}
		}
	})
}

// FuzzParseJSON feeds mutated tokenizer.json files to ParseJSON: an error
// or a tokenizer that encodes and decodes without panicking.
func FuzzParseJSON(f *testing.F) {
	set := hfFuzzTokenizers()
	for _, js := range set.jsons {
		f.Add([]byte(js))
	}
	for _, js := range []string{`{}`, `null`, `{"model": null}`, `{"model": {"type": "BPE", "vocab": {}, "merges": []}}`,
		`{"model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1}}, "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a"}}}`,
		`{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}, "added_tokens": [{"content": "x"}]}`,
		`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "c"]]}}`} {
		f.Add([]byte(js))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := ParseJSON(data, "fuzz.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, s := range []string{"", "Hello world 123", "日本語 <s>[CLS]\xff", " x  y "} {
			for _, id := range tok.EncodeForModel(s, 16) {
				if !tok.valid(id) {
					t.Fatalf("%q: id %d out of range", s, id)
				}
			}
			_ = tok.DecodeSpecial(tok.EncodeSpecial(s, true))
		}
	})
}

// hfBytesCovered reports whether the byte-level character of every byte of
// s is in a byte-level BPE vocabulary (SmolLM2's lacks 0xFE and 0xFF, which
// UTF-8 never uses; such bytes are dropped, as by tokenizers).
func hfBytesCovered(tok *Tokenizer, s string) bool {
	m := tok.hf.model.(*hfBPE)
	for i := 0; i < len(s); i++ {
		if _, ok := m.vocab[string(byteToRune[s[i]])]; !ok {
			return false
		}
	}
	return true
}
