package ggml

import (
	"math"
	"strconv"
	"testing"

	fsggml "github.com/ollama/ollama/fs/ggml"

	"actor/internal/testsupport"
)

// wide has row lengths that are multiples of 256, as K-quants need.
var wide = Params{Layers: 2, Embed: 256, Heads: 4, KVHeads: 2, HeadDim: 64, RopeDim: 64, Vocab: 512,
	Eps: 1e-5, RopeBase: 10000, RopeFreqScale: 1}

func loadRandom(t *testing.T, typ fsggml.TensorType, dequant bool, o Options) *Model {
	t.Helper()
	return loadPath(t, randomModel(t, wide, 512, typ, 1, dequant), wide, o)
}

// loadPath loads the model file at path, closed when the test ends.
func loadPath(t *testing.T, path string, p Params, o Options) *Model {
	t.Helper()
	m, err := Load(path, p, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

func run(t *testing.T, m *Model, c *Cache, b Batch) Output {
	t.Helper()
	out, err := m.Forward(c, b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func newCache(t *testing.T, m *Model, typ CacheType) *Cache {
	t.Helper()
	c, err := m.NewCache(128, typ)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func argmaxRow(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

var tokens = []int32{5, 77, 300, 12, 499, 3, 250, 128, 64, 1, 42, 411}

// TestQuantTypes runs random weights stored in every supported type and
// compares all logits with a float32 model holding the same weights
// dequantised: what remains is ggml quantising the activations (to Q8 for
// the quantised types) inside the matrix products.
func TestQuantTypes(t *testing.T) {
	all := make([]int, len(tokens))
	for i := range all {
		all[i] = i
	}
	for _, typ := range []fsggml.TensorType{
		fsggml.TensorTypeF16, fsggml.TensorTypeBF16, fsggml.TensorTypeQ8_0, fsggml.TensorTypeQ5_0,
		fsggml.TensorTypeQ5_1, fsggml.TensorTypeQ4_0, fsggml.TensorTypeQ4_1, fsggml.TensorTypeQ6_K,
		fsggml.TensorTypeQ5_K, fsggml.TensorTypeQ4_K,
	} {
		ref := loadRandom(t, typ, true, Options{Threads: 1})
		want := run(t, ref, newCache(t, ref, CacheF32), Batch{Tokens: tokens, Outputs: all, Logits: true}).Logits
		m := loadRandom(t, typ, false, Options{Threads: 1})
		got := run(t, m, newCache(t, m, CacheF32), Batch{Tokens: tokens, Outputs: all, Logits: true}).Logits
		var spread float64
		for _, v := range want {
			spread = max(spread, math.Abs(float64(v)))
		}
		diff := testsupport.MaxAbsDiff(got, want)
		rel := diff / spread
		t.Logf("%-5v logits max error %.4f of the largest |logit| %.1f", typ, rel, spread)
		if rel > 0.03 {
			t.Errorf("%v: logits error %.4f of the largest", typ, rel)
		}
		for i := range tokens {
			V := wide.Vocab
			g, w := got[i*V:(i+1)*V], want[i*V:(i+1)*V]
			if a, b := argmaxRow(g), argmaxRow(w); a != b && float64(w[b]-w[a]) > 2*diff {
				t.Errorf("%v position %d: argmax %d, want %d (margin %.3f)", typ, i, a, b, w[b]-w[a])
			}
		}
	}
}

// TestFlashBatchInvariant checks that with flash attention a quantised
// model gives bit-identical logits whether the tokens come in one batch or
// one at a time, in both cache types.
func TestFlashBatchInvariant(t *testing.T) {
	m := loadRandom(t, fsggml.TensorTypeQ4_K, false, Options{Threads: 1, FlashAttention: true})
	for _, typ := range []CacheType{CacheF16, CacheF32} {
		n := len(tokens)
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		batch := run(t, m, newCache(t, m, typ), Batch{Tokens: tokens, Outputs: all, Logits: true, Hidden: true})
		c := newCache(t, m, typ)
		for i, tok := range tokens {
			step := run(t, m, c, Batch{Tokens: []int32{tok}, Start: i, Outputs: []int{0}, Logits: true, Hidden: true})
			V, H := wide.Vocab, wide.Embed
			if d := testsupport.MaxAbsDiff(step.Logits, batch.Logits[i*V:(i+1)*V]) + testsupport.MaxAbsDiff(step.Hidden, batch.Hidden[i*H:(i+1)*H]); d != 0 {
				t.Fatalf("%v cache, position %d: step differs from batch by %.2e", typ, i, d)
			}
		}
	}
}

// TestAttentionRows checks the head-averaged probabilities: rows sum to 1,
// nothing after the query's own position, and the same with both graphs.
func TestAttentionRows(t *testing.T) {
	var rows [2][]float32
	for i, flash := range []bool{false, true} {
		m := loadRandom(t, fsggml.TensorTypeF32, false, Options{Threads: 1, FlashAttention: flash})
		c := newCache(t, m, CacheF32)
		run(t, m, c, Batch{Tokens: tokens[:5]})
		out := run(t, m, c, Batch{Tokens: tokens[5:], Start: 5, Outputs: []int{0, 3, 6}, Logits: true, Attention: true})
		n := len(tokens)
		for r, o := range []int{5, 8, 11} {
			var sum float64
			for k, a := range out.Attention[r*n : (r+1)*n] {
				if k > o && a != 0 {
					t.Fatalf("query %d attends to later key %d", o, k)
				}
				sum += float64(a)
			}
			if math.Abs(sum-1) > 1e-5 {
				t.Fatalf("query %d: probabilities sum to %f", o, sum)
			}
		}
		rows[i] = out.Attention
	}
	if d := testsupport.MaxAbsDiff(rows[0], rows[1]); d > 1e-6 {
		t.Errorf("attention differs between graphs by %.2e", d)
	}
}

func TestForwardErrors(t *testing.T) {
	m := loadRandom(t, fsggml.TensorTypeQ8_0, false, Options{Threads: 1})
	c := newCache(t, m, CacheF16)
	for _, b := range []Batch{
		{},
		{Tokens: []int32{1}, Start: 128},
		{Tokens: []int32{1, 2}, Start: -1},
		{Tokens: []int32{1, 512}},
		{Tokens: []int32{1, 2}, Outputs: []int{1, 0}},
		{Tokens: []int32{1, 2}, Outputs: []int{2}},
	} {
		if _, err := m.Forward(c, b); err == nil {
			t.Errorf("batch %+v: no error", b)
		}
	}
}

// typed is wide with every matrix's type given as typ, as the engine
// passes them from the GGUF file.
func typed(typ fsggml.TensorType) Params {
	p := wide
	p.Types = map[string]uint32{}
	for i := range wide.Layers {
		for _, n := range []string{"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"} {
			p.Types["blk."+strconv.Itoa(i)+"."+n+".weight"] = uint32(typ)
		}
	}
	p.Types["output.weight"] = uint32(typ)
	return p
}

// TestRepack compares a Q4_K model whose matrices were moved to ggml's
// repacked layout (when this binary can: -DGGML_USE_CPU_REPACK) with the
// same file kept in its own layout.
func TestRepack(t *testing.T) {
	path := randomModel(t, wide, 512, fsggml.TensorTypeQ4_K, 1, false)
	p := typed(fsggml.TensorTypeQ4_K)
	plain, packed := loadPath(t, path, p, Options{Threads: 1, NoRepack: true}), loadPath(t, path, p, Options{Threads: 1})
	if want := 7*wide.Layers + 1; RepackAvailable() != (packed.Repacked() == want) || plain.Repacked() != 0 {
		t.Fatalf("repack available %v: %d matrices repacked, want %d", RepackAvailable(), packed.Repacked(), want)
	}
	all := make([]int, len(tokens))
	for i := range all {
		all[i] = i
	}
	for _, n := range []int{1, len(tokens)} { // one row (gemv) and a batch (gemm)
		b := Batch{Tokens: tokens[:n], Outputs: all[:n], Logits: true}
		want := run(t, plain, newCache(t, plain, CacheF32), b).Logits
		got := run(t, packed, newCache(t, packed, CacheF32), b).Logits
		if d := testsupport.MaxAbsDiff(got, want); d > 1e-3 {
			t.Errorf("%d rows: repacked logits differ by %.2e", n, d)
		} else {
			t.Logf("%d rows: repacked logits within %.1e (%d matrices repacked)", n, d, packed.Repacked())
		}
	}
}

// TestWiden compares a Q5_0 model whose matrices were widened to their
// Q8_0 copies with the same file kept as Q5_0: the weights are the same
// numbers, and so are the products, for one row (ggml's dot products)
// and for batches (its tiled matrix products).
func TestWiden(t *testing.T) {
	path := randomModel(t, wide, 512, fsggml.TensorTypeQ5_0, 1, false)
	p := typed(fsggml.TensorTypeQ5_0)
	plain, wider := loadPath(t, path, p, Options{Threads: 2, NoWiden: true}), loadPath(t, path, p, Options{Threads: 2})
	n, extra := wider.Widened()
	if want := 7*wide.Layers + 1; n != want || extra <= 0 {
		t.Fatalf("%d matrices widened (+%d bytes), want %d", n, extra, want)
	}
	if n, _ := plain.Widened(); n != 0 {
		t.Fatalf("NoWiden widened %d matrices", n)
	}
	long := make([]int32, 96)
	for i := range long {
		long[i] = int32(i*37) % int32(wide.Vocab)
	}
	for _, toks := range [][]int32{tokens[:1], tokens, long} {
		all := make([]int, len(toks))
		for i := range all {
			all[i] = i
		}
		b := Batch{Tokens: toks, Outputs: all, Logits: true}
		want := run(t, plain, newCache(t, plain, CacheF32), b).Logits
		got := run(t, wider, newCache(t, wider, CacheF32), b).Logits
		if d := testsupport.MaxAbsDiff(got, want); d > 1e-5 {
			t.Errorf("%d rows: widened logits differ by %.2e", len(toks), d)
		} else {
			t.Logf("%d rows: widened logits within %.1e", len(toks), d)
		}
	}
}
