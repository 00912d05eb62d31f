package ggml

import (
	"fmt"

	"github.com/ollama/ollama/ml"
)

// CopyFrom makes the first n positions of c hold those of src: every
// layer's keys and values. Both caches must be of one model and type.
func (c *Cache) CopyFrom(src *Cache, n int) error { return c.CopyRange(src, 0, 0, n, 0) }

// CopyRange makes positions to…to+n-1 of c hold the keys and values of
// positions from…from+n-1 of src, every layer. With shift ≠ 0 the keys are
// rotated by shift more positions (RoPE composes: rotating a key computed
// at position p by d gives the key of the same vector at p+d), as
// llama.cpp's context shift does: the moved tokens then look to later
// queries as if they had been computed at their new place, except for what
// they attended to when they were computed. Both caches must be of one
// model and type; c may be src when the ranges do not overlap.
func (c *Cache) CopyRange(src *Cache, from, to, n, shift int) (err error) {
	switch {
	case c == nil || src == nil || c.ctx == nil || src.ctx == nil:
		return fmt.Errorf("copy between KV caches: a cache is closed")
	case src.m != c.m || src.typ != c.typ:
		return fmt.Errorf("copy between KV caches of different models or types")
	case n < 0 || from < 0 || to < 0 || from+n > src.size || to+n > c.size:
		return fmt.Errorf("copy of positions %d…%d to %d…%d between KV caches of %d and %d",
			from, from+n, to, to+n, src.size, c.size)
	case src == c && from < to+n && to < from+n && from != to:
		return fmt.Errorf("copy of positions %d…%d to %d…%d within one KV cache: the ranges overlap", from, from+n, to, to+n)
	case n == 0 || src == c && from == to && shift == 0:
		return nil
	}
	defer recoverErr(&err, "copy KV cache")
	m, p := c.m, c.m.p
	ctx := m.b.NewContextSize(10*p.Layers + 16)
	defer ctx.Close()
	var delta ml.Tensor
	if shift != 0 {
		d := make([]int32, n)
		for i := range d {
			d[i] = int32(shift)
		}
		delta = ctx.Input().FromInts(d, n)
	}
	vT := !m.o.FlashAttention // values stored transposed
	var copies []ml.Tensor
	for l := range p.Layers {
		k := positions(ctx, src.k[l], from, n, false)
		if delta != nil {
			k = m.rope(ctx, k, delta)
		}
		copies = append(copies,
			k.Copy(ctx, positions(ctx, c.k[l], to, n, false)),
			positions(ctx, src.v[l], from, n, vT).Copy(ctx, positions(ctx, c.v[l], to, n, vT)))
	}
	ctx.Forward(copies...)
	ctx.Compute(copies...)
	return nil
}

// positions views positions from…from+n-1 of a cache tensor t: positions
// are its last dimension, or its first when transposed ([size, headDim,
// kvHeads], the values without flash attention).
func positions(ctx ml.Context, t ml.Tensor, from, n int, transposed bool) ml.Tensor {
	if transposed {
		return t.View(ctx, from*t.Stride(0), n, t.Stride(1), t.Dim(1), t.Stride(2), t.Dim(2))
	}
	return t.View(ctx, from*t.Stride(2), t.Dim(0), t.Stride(1), t.Dim(1), t.Stride(2), n)
}
