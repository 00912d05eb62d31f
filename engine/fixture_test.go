package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// tinyRef is a reference produced by scripts/fixtures/make_tiny_models.py
// with Hugging Face transformers (float32, eager attention).
type tinyRef struct {
	GGUF     string    `json:"gguf"`
	Arch     string    `json:"arch"`
	Vocab    int       `json:"vocab_size"`
	Hidden   int       `json:"hidden_size"`
	Heads    int       `json:"n_heads"`
	N        int       `json:"n"`
	IDs      []int32   `json:"ids"`
	Logits   []float32 `json:"logits"`    // [n][vocab]
	HiddenS  []float32 `json:"hidden"`    // [n][hidden]
	Attn     []float32 `json:"attn_last"` // [heads][n][n]
	Top1     []int32   `json:"top1"`
	Entropy  []float64 `json:"entropy"`
	AltIDs   []int32   `json:"alt_ids"`
	AltLogit []float32 `json:"alt_logits"`
	path     string
}

var tinyCases = []string{"llama_mha", "llama_gqa", "llama_linear4_gqa", "llama_theta1e6", "qwen2_tied", "qwen2_untied_mqa"}

func loadRef(t *testing.T, name string) *tinyRef {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "tiny", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var r tinyRef
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	r.path = filepath.Join("testdata", "tiny", r.GGUF)
	return &r
}

// row returns row i of a row-major matrix with width w.
func row(m []float32, i, w int) []float32 { return m[i*w : (i+1)*w] }

// attnMean is the reference last-layer attention of query q to key k,
// averaged over heads.
func (r *tinyRef) attnMean(q, k int) float64 {
	var s float64
	for h := range r.Heads {
		s += float64(r.Attn[(h*r.N+q)*r.N+k])
	}
	return s / float64(r.Heads)
}

func loadTiny(t *testing.T, r *tinyRef, flash bool) *Model {
	t.Helper()
	m, err := Load(r.path, Options{ContextLength: 64, F32Cache: true, Threads: 1, FlashAttention: flash})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// eachTiny runs f as a subtest for every named tiny model, with the
// explicit attention graph and with flash attention.
func eachTiny(t *testing.T, names []string, f func(t *testing.T, r *tinyRef, m *Model)) {
	for _, name := range names {
		for _, flash := range []bool{false, true} {
			mode := "/softmax"
			if flash {
				mode = "/flash"
			}
			t.Run(name+mode, func(t *testing.T) {
				r := loadRef(t, name)
				f(t, r, loadTiny(t, r, flash))
			})
		}
	}
}

func newSession(t *testing.T, m *Model) *Session {
	t.Helper()
	s, err := m.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}
