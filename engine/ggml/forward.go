package ggml

import (
	"fmt"
	"math"

	"github.com/ollama/ollama/ml"
	"github.com/ollama/ollama/ml/nn/rope"
)

// Batch is one forward call: Tokens are placed at positions Start,
// Start+1, … of a cache that already holds positions 0..Start-1.
type Batch struct {
	Tokens []int32
	Start  int
	// Outputs lists indices into Tokens, ascending, whose outputs are read
	// back. It may be empty (a prefill chunk that only fills the cache);
	// then the last layer stops after writing its keys and values.
	Outputs []int
	// Logits, Hidden and Attention select what is read for each output:
	// next-token logits, the hidden state after the final norm, and the
	// last layer's attention probabilities averaged over heads.
	Logits, Hidden, Attention bool
}

// Output holds what a Batch asked for, one row per entry of Batch.Outputs.
type Output struct {
	Logits []float32 // len(Outputs) rows of Vocab
	Hidden []float32 // len(Outputs) rows of Embed
	// Attention has len(Outputs) rows of Start+len(Tokens) keys: row r
	// gives the head-averaged probability that output r attends to each
	// position (zero for positions after it).
	Attention []float32
}

type roper interface {
	RoPE(ctx ml.Context, positions ml.Tensor, ropeDim int, ropeBase, ropeScale float32, options ...func(*rope.Options)) ml.Tensor
}

// graph carries what one forward pass needs while its graph is built.
type graph struct {
	m    *Model
	c    *Cache
	ctx  ml.Context
	b    *Batch
	nTot int // keys visible to the batch: Start + len(Tokens)
	nKV  int // keys the attention reads: nTot padded to a multiple of kvPad
	// flashMask is the mask in float16, flash attention's type
	flashMask ml.Tensor
}

// kvPad is the multiple the attended key count is padded to (the padding
// is masked out), as llama.cpp does: same shapes, same kernels.
const kvPad = 256

// Forward runs one batch through the model and returns the requested
// outputs. The cache is updated in place for every token of the batch.
func (m *Model) Forward(c *Cache, b Batch) (out Output, err error) {
	n := len(b.Tokens)
	switch {
	case n == 0:
		return out, fmt.Errorf("empty batch")
	case b.Start < 0 || b.Start+n > c.size:
		return out, fmt.Errorf("positions %d..%d do not fit the KV cache of %d", b.Start, b.Start+n-1, c.size)
	}
	for i, o := range b.Outputs {
		if o < 0 || o >= n || (i > 0 && o <= b.Outputs[i-1]) {
			return out, fmt.Errorf("output indices must be ascending within the batch of %d", n)
		}
	}
	for _, t := range b.Tokens {
		if t < 0 || int(t) >= m.p.Vocab {
			return out, fmt.Errorf("token id %d outside the vocabulary of %d", t, m.p.Vocab)
		}
	}
	defer recoverErr(&err, "forward")
	ctx := m.b.NewContextSize(m.graphNodes())
	defer ctx.Close()
	nTot := b.Start + n
	g := &graph{m: m, c: c, ctx: ctx, b: &b, nTot: nTot, nKV: min(c.size, (nTot+kvPad-1)/kvPad*kvPad)}
	outs := g.build()
	ctx.Forward(outs...)
	ctx.Compute(outs...)
	m0 := len(b.Outputs)
	read := func(want bool) []float32 {
		if !want || m0 == 0 {
			return nil
		}
		t := outs[0]
		outs = outs[1:]
		return t.Floats()
	}
	out.Logits = read(b.Logits)
	out.Hidden = read(b.Hidden)
	out.Attention = read(b.Attention)
	return out, nil
}

// graphNodes bounds the number of nodes of one forward graph.
func (m *Model) graphNodes() int { return 64*m.p.Layers + 256 }

// build adds the whole forward pass to the context and returns the output
// tensors (copies, so the graph allocator cannot reuse their memory) in the
// order logits, hidden, attention, each only when requested.
//
// The graph is llama.cpp's (llm_build_llama, non-flash attention): keys
// padded to a multiple of 256 (masked), every row through the last layer's
// attention and output projection, output rows selected after that. ggml
// chooses its matmul kernels by shape, so the same shapes give the same
// float rounding as llama.cpp, and quantised models, which amplify
// rounding differences from layer to layer, then decode the same tokens.
func (g *graph) build() []ml.Tensor {
	m, b, ctx, p := g.m, g.b, g.ctx, g.m.p
	in := ctx.Input()
	n := len(b.Tokens)
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = int32(b.Start + i)
	}
	tokens := in.FromInts(b.Tokens, n)
	positions := in.FromInts(pos, n)
	mask := in.FromFloats(causalMask(pos, g.nKV), g.nKV, n)
	if m.o.FlashAttention {
		g.flashMask = mask.Cast(ctx, ml.DTypeF16)
	}
	nOut := len(b.Outputs)
	var outRows ml.Tensor
	if nOut > 0 && nOut < n {
		outRows = in.FromInts(toInt32(b.Outputs), nOut)
	}

	x := m.tokEmb.Rows(ctx, tokens)
	var attn ml.Tensor
	for l := range p.Layers {
		last := l == p.Layers-1
		lw := &m.layers[l]
		h := x.RMSNorm(ctx, lw.attnNorm, p.Eps)
		g.storeKV(l, h, positions)
		if last && nOut == 0 {
			return nil
		}
		q := lw.wq.Mulmat(ctx, h)
		if lw.bq != nil {
			q = q.Add(ctx, lw.bq)
		}
		q = g.rope(q.Reshape(ctx, p.HeadDim, p.Heads, n), positions)
		var o ml.Tensor
		if last && b.Attention {
			var probs ml.Tensor
			probs, attn = g.attentionProbs(l, q, mask)
			if !m.o.FlashAttention {
				o = g.values(l).Mulmat(ctx, probs).Permute(ctx, 0, 2, 1, 3) // [hd, heads, n]
			}
		}
		if o == nil {
			// With flash attention the output always comes from the fused
			// kernel, even when probabilities are read, so that it does
			// not depend on what is read back.
			o = g.fusedAttention(l, q, mask)
		}
		o = lw.wo.Mulmat(ctx, o.Reshape(ctx, p.HeadDim*p.Heads, n))
		if last && outRows != nil {
			o, x = o.Rows(ctx, outRows), x.Rows(ctx, outRows)
			if attn != nil {
				attn = attn.Rows(ctx, outRows)
			}
		}
		x = o.Add(ctx, x)
		h = x.RMSNorm(ctx, lw.ffnNorm, p.Eps)
		x = lw.wd.Mulmat(ctx, lw.wg.Mulmat(ctx, h).SILU(ctx, lw.wu.Mulmat(ctx, h))).Add(ctx, x)
	}
	hidden := x.RMSNorm(ctx, m.outNorm, p.Eps)
	var outs []ml.Tensor
	keep := func(t ml.Tensor, shape ...int) {
		outs = append(outs, t.Copy(ctx, in.Empty(ml.DTypeF32, shape...)))
	}
	if b.Logits {
		keep(m.output.Mulmat(ctx, hidden), p.Vocab, nOut)
	}
	if b.Hidden {
		keep(hidden, p.Embed, nOut)
	}
	if b.Attention { // drop the padding keys
		keep(attn.View(ctx, 0, g.nTot, attn.Stride(1), nOut), g.nTot, nOut)
	}
	return outs
}

// storeKV computes the keys and values of layer l for the batch and writes
// them into the cache. The writes are expanded into the graph at once, so
// they run before anything that reads the cache.
func (g *graph) storeKV(l int, h, positions ml.Tensor) {
	ctx, p, lw, n := g.ctx, g.m.p, &g.m.layers[l], len(g.b.Tokens)
	k := lw.wk.Mulmat(ctx, h)
	v := lw.wv.Mulmat(ctx, h)
	if lw.bk != nil {
		k, v = k.Add(ctx, lw.bk), v.Add(ctx, lw.bv)
	}
	k = g.rope(k.Reshape(ctx, p.HeadDim, p.KVHeads, n), positions)
	kc, vc := g.c.k[l], g.c.v[l]
	kDst := kc.View(ctx, g.b.Start*kc.Stride(2), p.HeadDim*p.KVHeads*n)
	if g.m.o.FlashAttention {
		vDst := vc.View(ctx, g.b.Start*vc.Stride(2), p.HeadDim*p.KVHeads*n)
		ctx.Forward(k.Copy(ctx, kDst), v.Copy(ctx, vDst))
		return
	}
	// values go in transposed: [n, headDim, kvHeads] strided into the cache
	vDst := vc.View(ctx, g.b.Start*vc.Stride(0), n, vc.Stride(1), p.HeadDim, vc.Stride(2), p.KVHeads)
	vSrc := v.Reshape(ctx, p.HeadDim, p.KVHeads, n).Permute(ctx, 1, 2, 0, 3)
	ctx.Forward(k.Copy(ctx, kDst), vSrc.Copy(ctx, vDst))
}

// keys returns the cached keys of layer l as [headDim, kvHeads, nKV].
func (g *graph) keys(l int) ml.Tensor {
	kc := g.c.k[l]
	return kc.View(g.ctx, 0, g.m.p.HeadDim, kc.Stride(1), g.m.p.KVHeads, kc.Stride(2), g.nKV)
}

// values returns the cached values of layer l: [headDim, kvHeads, nKV]
// for flash attention, [nKV, headDim, kvHeads] otherwise.
func (g *graph) values(l int) ml.Tensor {
	vc, p := g.c.v[l], g.m.p
	if g.m.o.FlashAttention {
		return vc.View(g.ctx, 0, p.HeadDim, vc.Stride(1), p.KVHeads, vc.Stride(2), g.nKV)
	}
	return vc.View(g.ctx, 0, g.nKV, vc.Stride(1), p.HeadDim, vc.Stride(2), p.KVHeads)
}

func (g *graph) scale() float64 { return 1 / math.Sqrt(float64(g.m.p.HeadDim)) }

// fusedAttention is softmax(QKᵀ·scale + mask)·V, either flash attention
// or with scale, mask and softmax fused in one op; q is [headDim, heads,
// n], the result [headDim, heads, n].
func (g *graph) fusedAttention(l int, q, mask ml.Tensor) ml.Tensor {
	if g.m.o.FlashAttention {
		mask = g.flashMask
	}
	sdpa := q.(ml.ScaledDotProductAttention)
	return sdpa.ScaledDotProductAttention(g.ctx, g.keys(l), g.values(l), mask, nil, nil, g.scale(), true)
}

// attentionProbs computes softmax(QKᵀ·scale + mask) explicitly, as
// [nKV, n, heads], and its average over heads as [nKV, n].
func (g *graph) attentionProbs(l int, q, mask ml.Tensor) (probs, avg ml.Tensor) {
	ctx, p := g.ctx, g.m.p
	k := g.keys(l).Permute(ctx, 0, 2, 1, 3)                 // [hd, nKV, kvHeads]
	kq := k.MulmatFullPrec(ctx, q.Permute(ctx, 0, 2, 1, 3)) // [nKV, n, heads]
	probs = kq.Scale(ctx, g.scale()).Add(ctx, mask).Softmax(ctx)
	avg = probs.Permute(ctx, 1, 2, 0, 3).Contiguous(ctx).SumRows(ctx).Scale(ctx, 1/float64(p.Heads))
	return probs, avg.Reshape(ctx, g.nKV, len(g.b.Tokens))
}

func (g *graph) rope(t, positions ml.Tensor) ml.Tensor {
	p := g.m.p
	var opts []func(*rope.Options)
	if p.RopeNeoX {
		opts = append(opts, rope.WithTypeNeoX())
	}
	return t.(roper).RoPE(g.ctx, positions, p.RopeDim, p.RopeBase, p.RopeFreqScale, opts...)
}

// causalMask returns rows (one per position in pos) of nTot additive mask
// values: 0 where key j <= pos, -Inf after.
func causalMask(pos []int32, nTot int) []float32 {
	mask := make([]float32, len(pos)*nTot)
	inf := float32(math.Inf(-1))
	for r, p := range pos {
		row := mask[r*nTot : (r+1)*nTot]
		for j := int(p) + 1; j < nTot; j++ {
			row[j] = inf
		}
	}
	return mask
}

func toInt32(s []int) []int32 {
	out := make([]int32, len(s))
	for i, v := range s {
		out[i] = int32(v)
	}
	return out
}
