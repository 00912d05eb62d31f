package tokenizer

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"actor/gguf"
)

// ggufBytes writes a tensor-less GGUF v3 file holding the given metadata
// (string, bool, uint32, []string, []int32 and []float32 values).
func ggufBytes(t *testing.T, kv map[string]any) []byte {
	t.Helper()
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { w(uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	w(uint32(3))
	w(uint64(0))
	w(uint64(len(kv)))
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		str(k)
		switch v := kv[k].(type) {
		case string:
			w(uint32(8))
			str(v)
		case bool:
			w(uint32(7))
			w(v)
		case uint32:
			w(uint32(4))
			w(v)
		case []string:
			w(uint32(9))
			w(uint32(8))
			w(uint64(len(v)))
			for _, s := range v {
				str(s)
			}
		case []int32:
			w(uint32(9))
			w(uint32(5))
			w(uint64(len(v)))
			w(v)
		case []float32:
			w(uint32(9))
			w(uint32(6))
			w(uint64(len(v)))
			w(v)
		default:
			t.Fatalf("ggufBytes: %s has unsupported type %T", k, v)
		}
	}
	for b.Len()%32 != 0 {
		b.WriteByte(0)
	}
	return b.Bytes()
}

func fromGGUFBytes(t *testing.T, kv map[string]any) (*Tokenizer, error) {
	t.Helper()
	data := ggufBytes(t, kv)
	f, err := gguf.Read("test.gguf", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return FromGGUF(f)
}

// bpeKV is the metadata of a small byte-level BPE model.
func bpeKV() map[string]any {
	v := bpeVocab("qwen2", []string{"a b", "Ġ ab"}, special{"<|im_end|>", TypeControl})
	return map[string]any{
		keyModel: "gpt2", keyPre: "qwen2", keyTokens: v.Tokens, keyTypes: v.Types, keyMerges: v.Merges,
		keyEOS: uint32(len(v.Tokens) - 1), keyAddBOS: false,
	}
}

// TestFromGGUF checks metadata reading and llama.cpp's defaults.
func TestFromGGUF(t *testing.T) {
	tok, err := fromGGUFBytes(t, bpeKV())
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Encode(" ab", true); !slices.Equal(got, ids(t, tok, "Ġab")) {
		t.Errorf("Encode: %v", got)
	}
	if tok.BOS() != 11 || tok.EOS() != int32(tok.VocabSize()-1) || tok.AddsBOS() {
		t.Errorf("special ids: bos %d eos %d", tok.BOS(), tok.EOS())
	}

	spm := spmVocab(map[string]float32{"▁a": -1}, []string{"▁a"})
	tok, err = fromGGUFBytes(t, map[string]any{keyModel: "llama", keyTokens: spm.Tokens, keyTypes: spm.Types, keyScores: spm.Scores})
	if err != nil {
		t.Fatal(err)
	}
	if got := tok.Encode("a", true); !slices.Equal(got, ids(t, tok, "<s>", "▁a")) {
		t.Errorf("SPM defaults (BOS 1, add BOS, space prefix): %v", got)
	}
}

// TestFromGGUFErrors checks that bad metadata gives one clear error.
func TestFromGGUFErrors(t *testing.T) {
	for name, c := range map[string]struct {
		edit func(map[string]any)
		want string
	}{
		"no model":   {func(kv map[string]any) { delete(kv, keyModel) }, `"tokenizer.ggml.model" is missing`},
		"no tokens":  {func(kv map[string]any) { delete(kv, keyTokens) }, `"tokenizer.ggml.tokens" is missing`},
		"no merges":  {func(kv map[string]any) { delete(kv, keyMerges) }, `"tokenizer.ggml.merges" is missing`},
		"bert":       {func(kv map[string]any) { kv[keyModel] = "bert" }, `unsupported tokenizer model "bert"`},
		"pre":        {func(kv map[string]any) { kv[keyPre] = "tekken" }, `unsupported pre-tokenizer "tekken"`},
		"types":      {func(kv map[string]any) { kv[keyTypes] = []int32{1} }, "1 token types"},
		"bos type":   {func(kv map[string]any) { kv[keyBOS] = "one" }, "tokenizer.ggml.bos_token_id"},
		"flag type":  {func(kv map[string]any) { kv[keyAddBOS] = uint32(1) }, "tokenizer.ggml.add_bos_token"},
		"tokens int": {func(kv map[string]any) { kv[keyTokens] = []int32{1} }, "tokenizer.ggml.tokens"},
	} {
		kv := bpeKV()
		c.edit(kv)
		_, err := fromGGUFBytes(t, kv)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "test.gguf") {
			t.Errorf("%s: error %v, want one naming test.gguf and %q", name, err, c.want)
		}
	}
}
