package tokenizer

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"actor/gguf"
	"actor/internal/testsupport"
)

// fuzzTokenizers are small hand-built tokenizers covering every
// pre-tokenizer family and SentencePiece, with control and user-defined
// tokens, and the real vocabularies that are present.
var fuzzTokenizers = sync.OnceValue(func() []*Tokenizer {
	merges := []string{"Ġ Ġ", "ĠĠ ĠĠ", "a b", "i n", "Ġ t", "h e", "Ġt he", "e r", "Ġ a", "Ċ Ċ", "1 2", "( )", "Ã ©"}
	specials := []special{{"<|im_end|>", TypeControl}, {"<u>", TypeUserDefined}, {"õ", TypeUserDefined}}
	var out []*Tokenizer
	for pre := range preSpecs {
		tok, err := New(bpeVocab(pre, merges, specials...))
		if err != nil {
			panic(err)
		}
		out = append(out, tok)
	}
	pieces := map[string]float32{"▁": -1, "a": -2, "b": -2, "▁a": -3, "ab": -1.5, "▁ab": -1, "▁▁": -2, "▁▁▁▁": -2,
		"e": -3, "t": -3, "h": -3, "th": -2, "▁th": -2, "▁the": -1, "<u>": 0}
	v := spmVocab(pieces, []string{"▁", "a", "b", "▁a", "ab", "▁ab", "▁▁", "▁▁▁▁", "e", "t", "h", "th", "▁th", "▁the", "<u>"})
	v.Types[len(v.Types)-1] = TypeUserDefined
	out = append(out, must(New(v)))
	// the real vocabularies too, when scripts/fetch-vocab.sh has run
	for _, name := range []string{"llama-spm", "qwen2", "deepseek-coder", "llama-bpe"} {
		if f, err := gguf.Open(filepath.Join(testsupport.VocabDir(), "ggml-vocab-"+name+".gguf")); err == nil {
			out = append(out, must(FromGGUF(f)))
		}
	}
	return out
})

func must(t *Tokenizer, err error) *Tokenizer {
	if err != nil {
		panic(err)
	}
	return t
}

// FuzzRoundTrip encodes arbitrary input (any bytes, not only UTF-8) with
// every tokenizer: no panic, ids in range, Decode(Encode(x)) == x and
// DecodeSpecial(EncodeSpecial(x)) == x, and streaming gives the same text.
// Exempt are what no vocabulary can tell apart: SentencePiece's literal
// "▁" and space, and in byte-level BPE a byte that cannot occur in UTF-8
// whose byte-level character is taken by an added token (DeepSeek-Coder's
// "õ" is both byte 0xF5 and the user-defined token "õ").
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"", " ", "hello world", "def f():\n\treturn 12 + 3\n\n", "  the  them\r\n",
		"I'm café 日本語 😀", "<|im_end|>x<u>õ", "\xff\xfe\xc3", "a\xe2\x82", "=== ... ", "'s 'LL 123456789",
		"x\u00a0y\u3000z", "▁▁a", strings.Repeat(" ", 70) + "x", "é\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range fuzzTokenizers() {
			exempt := (tok.spm && strings.Contains(s, "▁")) || (!tok.spm && !bytesDistinct(tok, s))
			got := tok.Encode(s, false)
			for _, id := range got {
				if !tok.valid(id) {
					t.Fatalf("%q: id %d out of range", s, id)
				}
			}
			if back := tok.Decode(got); back != s && !exempt {
				t.Fatalf("pre %v spm %v: %q decoded as %q", tok.pre, tok.spm, s, back)
			}
			if back := tok.DecodeSpecial(tok.EncodeSpecial(s, false)); back != s && !exempt {
				t.Fatalf("spm %v: %q special-decoded as %q", tok.spm, s, back)
			}
			d := tok.NewStreamDecoder()
			var sb strings.Builder
			for _, id := range got {
				sb.WriteString(d.Add(id))
			}
			sb.WriteString(d.Flush())
			if !utf8.ValidString(sb.String()) {
				t.Fatalf("%q: stream emitted invalid UTF-8", s)
			}
			if utf8.ValidString(s) && !tok.spm && sb.String() != s {
				t.Fatalf("%q: stream gave %q", s, sb.String())
			}
		}
	})
}

// bytesDistinct reports whether every byte of s has its own byte-level
// token in a BPE vocabulary.
func bytesDistinct(tok *Tokenizer, s string) bool {
	for i := 0; i < len(s); i++ {
		id := tok.bpe.byteSym[s[i]]
		if id >= tok.bpe.nVocab || tok.attrs[id] != attrNormal {
			return false
		}
	}
	return true
}
