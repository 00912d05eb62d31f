package tokenizer

import (
	"fmt"
	"testing"
)

// special is a token added after the ordinary ones of a synthetic vocab.
type special struct {
	text string
	typ  int32
}

// bpeVocab builds a byte-level BPE vocabulary by hand: the 256 byte tokens
// (id = byte value), then the given merges' results in merge order, then
// the specials.
func bpeVocab(pre string, merges []string, specials ...special) Vocab {
	v := Vocab{Model: ModelBPE, Pre: pre, Merges: merges, BOS: -1, EOS: -1, EOT: -1, EOM: -1, PAD: -1, UNK: -1}
	for b := range 256 {
		v.Tokens = append(v.Tokens, string(byteToRune[b]))
		v.Types = append(v.Types, TypeNormal)
	}
	for _, m := range merges {
		var l, r string
		fmt.Sscanf(m, "%s %s", &l, &r)
		v.Tokens = append(v.Tokens, l+r)
		v.Types = append(v.Types, TypeNormal)
	}
	for _, s := range specials {
		v.Tokens = append(v.Tokens, s.text)
		v.Types = append(v.Types, s.typ)
	}
	return v
}

// spmVocab builds a SentencePiece vocabulary: <unk>, <s>, </s>, the 256
// <0xXX> byte tokens (ids 3..258), then pieces with their scores.
func spmVocab(pieces map[string]float32, order []string) Vocab {
	v := Vocab{Model: ModelSPM, BOS: 1, EOS: 2, EOT: -1, EOM: -1, PAD: -1, UNK: 0, AddBOS: true, AddSpacePrefix: true}
	add := func(s string, typ int32, score float32) {
		v.Tokens = append(v.Tokens, s)
		v.Types = append(v.Types, typ)
		v.Scores = append(v.Scores, score)
	}
	add("<unk>", TypeUnknown, 0)
	add("<s>", TypeControl, 0)
	add("</s>", TypeControl, 0)
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), TypeByte, 0)
	}
	for _, s := range order {
		add(s, TypeNormal, pieces[s])
	}
	return v
}

func mustNew(t testing.TB, v Vocab) *Tokenizer {
	t.Helper()
	tok, err := New(v)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// ids maps token texts to ids of tok, for writing expectations.
func ids(t testing.TB, tok *Tokenizer, texts ...string) []int32 {
	t.Helper()
	var out []int32
	for _, s := range texts {
		id, ok := tok.byText[s]
		if !ok {
			t.Fatalf("no token %q", s)
		}
		out = append(out, id)
	}
	return out
}
