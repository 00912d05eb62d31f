package encoder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"actor/convert"
	"actor/internal/testsupport"
	"actor/retrieve"
)

// TestMiniLM converts the real all-MiniLM-L6-v2 with the converter and
// checks, on 20 sentences and code snippets (one past the 256-token cut),
// that our ids equal sentence-transformers' and that mean-pooled,
// normalised embeddings have cosine ≥ 0.9999 with its embeddings
// (testdata/minilm_ref.json, scripts/fixtures/encoders/record_minilm.py).
// F16 weights must still reach 0.999.
func TestMiniLM(t *testing.T) {
	dir := testsupport.Model(t, "all-minilm-l6-v2")
	raw, err := os.ReadFile("testdata/minilm_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		MaxSeqLength int `json:"max_seq_length"`
		Texts        []string
		IDs          [][]int32
		Embeddings   [][]float32
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		typ convert.Type
		min float64
	}{{convert.F32, 0.9999}, {convert.F16, 0.999}} {
		out := filepath.Join(t.TempDir(), "minilm.gguf")
		if _, err := convert.Convert(dir, out, convert.Options{Type: c.typ}); err != nil {
			t.Fatal(err)
		}
		e := open(t, out, Options{Threads: 2})
		if e.opts.MaxTokens != ref.MaxSeqLength {
			t.Errorf("max tokens %d, sentence-transformers %d", e.opts.MaxTokens, ref.MaxSeqLength)
		}
		for i, text := range ref.Texts {
			if got := e.Tokens(text); !slices.Equal(got, ref.IDs[i]) {
				t.Errorf("text %d: ids %v\nsentence-transformers %v", i, got, ref.IDs[i])
			}
		}
		vecs, err := retrieve.Embedder{Encoder: e, Pooling: retrieve.MeanPooling}.Embed(ref.Texts)
		if err != nil {
			t.Fatal(err)
		}
		worst := 1.0
		for i, v := range vecs {
			cos := 0.0
			for j := range v {
				cos += float64(v[j]) * float64(ref.Embeddings[i][j])
			}
			worst = min(worst, cos)
			if cos < c.min {
				t.Errorf("%s text %d: cosine %.6f < %g", c.typ, i, cos, c.min)
			}
		}
		t.Logf("%s: lowest cosine with sentence-transformers %.7f over %d texts", c.typ, worst, len(vecs))
	}
}
