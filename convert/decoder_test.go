package convert

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"actor/engine"
	"actor/tokenizer"
)

// decoderRef is written by scripts/fixtures/encoders/make_hf_fixtures.py:
// transformers' ids of a code text and the logits at every position.
type decoderRef struct {
	Text   string
	IDs    []int32
	Vocab  int
	Logits []float32
}

// TestDecoderLogits converts the tiny Llama (BF16, 3 shards, GQA, linear
// RoPE ×4, DeepSeek-Coder pre-tokenizer, BOS) and Qwen2 (F32, tied, biases)
// checkpoints, then checks that the GGUF tokenizer gives transformers' ids
// and that the engine's logits at every position match transformers'.
func TestDecoderLogits(t *testing.T) {
	cases := []struct {
		dir string
		typ Type
		tol float64 // max abs logit error
	}{
		{"tiny_llama", F32, 1e-4},
		{"tiny_qwen2", F32, 1e-4},
		{"tiny_llama", F16, 5e-2},
		// Q8_0: rounding the weights alone moves transformers' logits
		// (max 11.5) by 0.43; ggml also quantises activations.
		{"tiny_qwen2", Q8_0, 8e-1},
	}
	for _, c := range cases {
		t.Run(c.dir+"/"+string(c.typ), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", c.dir+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var ref decoderRef
			if err := json.Unmarshal(raw, &ref); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "m.gguf")
			if _, err := Convert(filepath.Join("testdata", c.dir), out, Options{Type: c.typ}); err != nil {
				t.Fatal(err)
			}
			m, err := engine.Load(out, engine.Options{Threads: 1, F32Cache: true, ContextLength: 64})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			tok, err := tokenizer.FromGGUF(m.GGUF())
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.Encode(ref.Text, true); !slices.Equal(got, ref.IDs) {
				t.Errorf("ids %v\ntransformers %v", got, ref.IDs)
			}
			if m.Config.Vocab != ref.Vocab {
				t.Fatalf("vocab %d, want %d", m.Config.Vocab, ref.Vocab)
			}
			s, err := m.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			worst, agree := 0.0, 0
			for i, id := range ref.IDs {
				var p engine.Prediction
				if i == 0 {
					p, err = s.Prefill(ref.IDs[:1])
				} else {
					p, err = s.Step(id)
				}
				if err != nil {
					t.Fatal(err)
				}
				want := ref.Logits[i*ref.Vocab : (i+1)*ref.Vocab]
				for j, v := range want {
					worst = max(worst, math.Abs(float64(p.Logits[j]-v)))
				}
				if argmax(p.Logits) == argmax(want) {
					agree++
				}
			}
			t.Logf("max abs logit error %.2e, argmax agrees at %d/%d positions", worst, agree, len(ref.IDs))
			if worst > c.tol {
				t.Errorf("max abs logit error %.3g > %g", worst, c.tol)
			}
			if c.typ == F32 && agree != len(ref.IDs) {
				t.Errorf("argmax differs at %d positions", len(ref.IDs)-agree)
			}
		})
	}
}

func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}
