package ggml

import (
	"fmt"

	"github.com/ollama/ollama/ml"
)

// CopyFrom makes the first n positions of c hold those of src: every
// layer's keys and values. Both caches must be of one model and type.
func (c *Cache) CopyFrom(src *Cache, n int) (err error) {
	switch {
	case c == nil || src == nil || c.ctx == nil || src.ctx == nil:
		return fmt.Errorf("copy between KV caches: a cache is closed")
	case src.m != c.m || src.typ != c.typ:
		return fmt.Errorf("copy between KV caches of different models or types")
	case n < 0 || n > src.size || n > c.size:
		return fmt.Errorf("copy of %d positions between KV caches of %d and %d", n, src.size, c.size)
	case n == 0 || src == c:
		return nil
	}
	defer recoverErr(&err, "copy KV cache")
	m, p := c.m, c.m.p
	ctx := m.b.NewContextSize(8*p.Layers + 16)
	defer ctx.Close()
	var copies []ml.Tensor
	for l := range p.Layers {
		vT := !m.o.FlashAttention // values stored transposed
		copies = append(copies,
			prefix(ctx, src.k[l], n, false).Copy(ctx, prefix(ctx, c.k[l], n, false)),
			prefix(ctx, src.v[l], n, vT).Copy(ctx, prefix(ctx, c.v[l], n, vT)))
	}
	ctx.Forward(copies...)
	ctx.Compute(copies...)
	return nil
}

// prefix views the first n positions of a cache tensor t: positions are
// its last dimension, or its first when transposed ([size, headDim,
// kvHeads], the values without flash attention).
func prefix(ctx ml.Context, t ml.Tensor, n int, transposed bool) ml.Tensor {
	if transposed {
		return t.View(ctx, 0, n, t.Stride(1), t.Dim(1), t.Stride(2), t.Dim(2))
	}
	return t.View(ctx, 0, t.Dim(0), t.Stride(1), t.Dim(1), t.Stride(2), n)
}
