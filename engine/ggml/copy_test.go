package ggml

import (
	"strings"
	"testing"

	fsggml "github.com/ollama/ollama/fs/ggml"
	"github.com/ollama/ollama/ml"

	"actor/internal/testsupport"
)

// cacheRows reads positions from…from+n-1 of layer l of an F32 cache: keys
// and values, each position's [headDim, kvHeads] in order.
func cacheRows(t *testing.T, c *Cache, l, from, n int) (k, v []float32) {
	t.Helper()
	p := c.m.p
	w := p.HeadDim * p.KVHeads
	k = readBack(c.m, c.k[l])[from*w : (from+n)*w]
	all := readBack(c.m, c.v[l])
	if c.m.o.FlashAttention {
		return k, all[from*w : (from+n)*w]
	}
	for pos := from; pos < from+n; pos++ { // stored [size, headDim, kvHeads]
		for j := range w {
			v = append(v, all[pos+c.size*j])
		}
	}
	return k, v
}

// readBack returns the values of a cache tensor (only tensors a graph
// computed can be read, so it is copied by one).
func readBack(m *Model, t ml.Tensor) []float32 {
	ctx := m.b.NewContextSize(4)
	defer ctx.Close()
	out := t.Copy(ctx, ctx.Input().Empty(ml.DTypeF32, t.Dim(0), t.Dim(1), t.Dim(2)))
	ctx.Forward(out)
	ctx.Compute(out)
	return out.Floats()
}

// A block's keys and values computed at position 0 and copied to position
// s with a shift of s are those the model computes for it at s: exactly in
// the first layer, where keys and values depend on the token and its
// position only (later layers see what the block attended to). Covers both
// RoPE variants, both value layouts, a shift back, and a copy in place.
func TestCopyRangeRotatesKeys(t *testing.T) {
	a, b := tokens[:5], tokens[5:]
	for _, neox := range []bool{false, true} {
		for _, flash := range []bool{false, true} {
			name := map[bool]string{false: "llama", true: "neox"}[neox] + map[bool]string{false: "", true: "/flash"}[flash]
			t.Run(name, func(t *testing.T) {
				p := wide
				p.RopeNeoX = neox
				m, err := Load(randomModel(t, p, 512, fsggml.TensorTypeF32, 1, false), p, Options{Threads: 1, FlashAttention: flash})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(m.Close)
				alone := fill(t, m, b)                                     // b at 0…
				after := fill(t, m, append(append([]int32{}, a...), b...)) // b at 5…
				moved := newCache(t, m, CacheF32)
				if err := moved.CopyRange(alone, 0, len(a), len(b), len(a)); err != nil {
					t.Fatal(err)
				}
				wantK, wantV := cacheRows(t, after, 0, len(a), len(b))
				gotK, gotV := cacheRows(t, moved, 0, len(a), len(b))
				if d := testsupport.MaxAbsDiff(gotK, wantK); d > 1e-5 {
					t.Errorf("layer 0 keys moved from 0 to %d differ from those computed there by %g", len(a), d)
				}
				if d := testsupport.MaxAbsDiff(gotV, wantV); d != 0 {
					t.Errorf("layer 0 values moved differ by %g", d)
				}
				unshifted := newCache(t, m, CacheF32)
				if err := unshifted.CopyRange(alone, 0, len(a), len(b), 0); err != nil {
					t.Fatal(err)
				}
				if k, _ := cacheRows(t, unshifted, 0, len(a), len(b)); testsupport.MaxAbsDiff(k, wantK) < 1e-3 {
					t.Error("keys copied without a shift already match the new position: the test cannot see the rotation")
				}

				back := newCache(t, m, CacheF32) // from 5… to 0… with a shift of −5
				if err := back.CopyRange(after, len(a), 0, len(b), -len(a)); err != nil {
					t.Fatal(err)
				}
				wantK, _ = cacheRows(t, alone, 0, 0, len(b))
				gotK, _ = cacheRows(t, back, 0, 0, len(b))
				if d := testsupport.MaxAbsDiff(gotK, wantK); d > 1e-5 {
					t.Errorf("layer 0 keys moved back to 0 differ by %g", d)
				}

				for l := range p.Layers { // every layer, shift 0: a plain copy
					if err := back.CopyRange(after, 0, 0, len(a)+len(b), 0); err != nil {
						t.Fatal(err)
					}
					k1, v1 := cacheRows(t, back, l, 0, len(a)+len(b))
					k2, v2 := cacheRows(t, after, l, 0, len(a)+len(b))
					if testsupport.MaxAbsDiff(k1, k2) != 0 || testsupport.MaxAbsDiff(v1, v2) != 0 {
						t.Errorf("layer %d: a copy without shift changed the keys or values", l)
					}
				}
			})
		}
	}
}

func TestCopyRangeRejects(t *testing.T) {
	m := loadRandom(t, fsggml.TensorTypeF32, false, Options{Threads: 1})
	c := newCache(t, m, CacheF32)
	f16 := newCache(t, m, CacheF16)
	for _, tc := range []struct {
		name       string
		dst        *Cache
		from, to   int
		n, shift   int
		wantSubstr string
	}{
		{"past the end", c, 0, 120, 10, 0, "between KV caches of 128 and 128"},
		{"negative", c, -1, 0, 2, 0, "between KV caches"},
		{"overlap", c, 0, 3, 5, 3, "the ranges overlap"},
		{"types", f16, 0, 0, 4, 0, "different models or types"},
	} {
		err := tc.dst.CopyRange(c, tc.from, tc.to, tc.n, tc.shift)
		if err == nil || !strings.Contains(err.Error(), tc.wantSubstr) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.wantSubstr)
		}
	}
}
