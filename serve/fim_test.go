package serve

import (
	"slices"
	"testing"

	"actor/gguf"
	"actor/internal/testsupport"
	"actor/tokenizer"
)

// Qwen2.5-Coder's fill-in-the-middle layout: its three special tokens
// around the prefix and suffix encoded as plain text.
func TestFIMTokensQwen(t *testing.T) {
	g, err := gguf.Open(testsupport.Model(t, "qwen2.5-coder-0.5b"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.FromGGUF(g)
	if err != nil {
		t.Fatal(err)
	}
	prefix, suffix := "def f(x):\n    ", "\n    return y\n"
	ids, err := fimTokens(tok, prefix, suffix)
	if err != nil {
		t.Fatal(err)
	}
	special := func(name string) int32 { return tok.EncodeSpecial(name, false)[0] }
	want := append([]int32{special(fimPrefix)}, tok.Encode(prefix, false)...)
	want = append(append(want, special(fimSuffix)), tok.Encode(suffix, false)...)
	want = append(want, special(fimMiddle))
	if !slices.Equal(ids, want) {
		t.Errorf("FIM tokens %v (%q), want %v", ids, tok.Decode(ids), want)
	}
	// A special token's name in the text stays text.
	if ids, _ := fimTokens(tok, fimMiddle, ""); slices.Contains(ids[1:len(ids)-2], special(fimMiddle)) {
		t.Errorf("the prefix's %s became the special token: %v", fimMiddle, ids)
	}
}
