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

// Seq is one sequence of a multi-sequence forward pass: a batch placed in
// its own cache.
type Seq struct {
	Cache *Cache
	Batch Batch
}

// graph carries what one forward pass needs while its graph is built.
type graph struct {
	m    *Model
	ctx  ml.Context
	seqs []seqGraph
	n    int // tokens of all sequences
	// want says what is read for every output row (the flags of the
	// sequences that have outputs, which must agree)
	want Batch
}

// seqGraph is one sequence's part of a graph.
type seqGraph struct {
	c    *Cache
	b    *Batch
	off  int // index of the sequence's first token among all tokens
	nTot int // keys visible to the batch: Start + len(Tokens)
	nKV  int // keys the attention reads: nTot padded to a multiple of kvPad
	mask ml.Tensor
	// flashMask is the mask in float16, flash attention's type
	flashMask ml.Tensor
}

// kvPad is the multiple the attended key count is padded to (the padding
// is masked out), as llama.cpp does: same shapes, same kernels.
const kvPad = 256

// Forward runs one batch through the model and returns the requested
// outputs. The cache is updated in place for every token of the batch.
func (m *Model) Forward(c *Cache, b Batch) (Output, error) {
	outs, err := m.ForwardSeqs([]Seq{{Cache: c, Batch: b}})
	if err != nil {
		return Output{}, err
	}
	return outs[0], nil
}

// ForwardSeqs runs several sequences, each in its own cache, as one
// forward pass: the weight matrices see the tokens of all of them at once,
// and attention runs for each sequence over its own cache with its own
// causal mask. Each sequence's outputs are those of a Forward of it alone,
// up to the float rounding of matrix products over more columns.
// Attention probabilities are read only from a single sequence; the caches
// must be distinct.
func (m *Model) ForwardSeqs(seqs []Seq) (outs []Output, err error) {
	if len(seqs) == 0 {
		return nil, fmt.Errorf("forward of no sequences")
	}
	g := &graph{m: m}
	caches := make(map[*Cache]bool, len(seqs))
	for i := range seqs {
		s := &seqs[i]
		if err := m.check(s.Cache, &s.Batch); err != nil {
			if len(seqs) > 1 {
				err = fmt.Errorf("sequence %d: %w", i, err)
			}
			return nil, err
		}
		switch {
		case caches[s.Cache]:
			return nil, fmt.Errorf("sequence %d: its KV cache is another sequence's too", i)
		case s.Batch.Attention && len(seqs) > 1:
			return nil, fmt.Errorf("attention probabilities are read from one sequence at a time, not %d", len(seqs))
		}
		if len(s.Batch.Outputs) > 0 {
			f := Batch{Logits: s.Batch.Logits, Hidden: s.Batch.Hidden, Attention: s.Batch.Attention}
			if g.want.Outputs != nil && (f.Logits != g.want.Logits || f.Hidden != g.want.Hidden) {
				return nil, fmt.Errorf("sequence %d asks for other outputs than sequence %d", i, g.want.Outputs[0])
			}
			f.Outputs = []int{i}
			g.want = f
		}
		caches[s.Cache] = true
		nTot := s.Batch.Start + len(s.Batch.Tokens)
		g.seqs = append(g.seqs, seqGraph{c: s.Cache, b: &s.Batch, off: g.n, nTot: nTot,
			nKV: min(s.Cache.size, (nTot+kvPad-1)/kvPad*kvPad)})
		g.n += len(s.Batch.Tokens)
	}
	defer recoverErr(&err, "forward")
	g.ctx = m.b.NewContextSize(m.graphNodes(len(seqs)))
	defer g.ctx.Close()
	res := g.build()
	g.ctx.Forward(res...)
	g.ctx.Compute(res...)
	read := func(want bool, width int) [][]float32 {
		if !want || len(res) == 0 {
			return nil
		}
		all := res[0].Floats()
		res = res[1:]
		return g.split(all, width)
	}
	logits := read(g.want.Logits, m.p.Vocab)
	hidden := read(g.want.Hidden, m.p.Embed)
	attn := read(g.want.Attention, g.seqs[0].nTot)
	outs = make([]Output, len(seqs))
	for i := range outs {
		if logits != nil {
			outs[i].Logits = logits[i]
		}
		if hidden != nil {
			outs[i].Hidden = hidden[i]
		}
		if attn != nil {
			outs[i].Attention = attn[i]
		}
	}
	return outs, nil
}

// check validates one sequence's batch against its cache.
func (m *Model) check(c *Cache, b *Batch) error {
	n := len(b.Tokens)
	switch {
	case n == 0:
		return fmt.Errorf("empty batch")
	case c == nil:
		return fmt.Errorf("no KV cache")
	case b.Start < 0 || b.Start+n > c.size:
		return fmt.Errorf("positions %d..%d do not fit the KV cache of %d", b.Start, b.Start+n-1, c.size)
	}
	for i, o := range b.Outputs {
		if o < 0 || o >= n || (i > 0 && o <= b.Outputs[i-1]) {
			return fmt.Errorf("output indices must be ascending within the batch of %d", n)
		}
	}
	for _, t := range b.Tokens {
		if t < 0 || int(t) >= m.p.Vocab {
			return fmt.Errorf("token id %d outside the vocabulary of %d", t, m.p.Vocab)
		}
	}
	return nil
}

// split cuts output rows of width values into each sequence's share (rows
// are in sequence order, as many for a sequence as its Outputs).
func (g *graph) split(all []float32, width int) [][]float32 {
	out := make([][]float32, len(g.seqs))
	at := 0
	for i, s := range g.seqs {
		k := len(s.b.Outputs) * width
		if s.b.Attention {
			k = len(all) // only with one sequence
		}
		if k > 0 {
			out[i] = all[at : at+k]
		}
		at += k
	}
	return out
}

// graphNodes bounds the number of nodes of one forward graph of seqs
// sequences (attention adds nodes per sequence and layer).
func (m *Model) graphNodes(seqs int) int { return (64+32*(seqs-1))*m.p.Layers + 256 }

// outputs lists the rows, among all tokens, whose outputs are read.
func (g *graph) outputs() []int32 {
	var rows []int32
	for _, s := range g.seqs {
		for _, o := range s.b.Outputs {
			rows = append(rows, int32(s.off+o))
		}
	}
	return rows
}

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
// With several sequences every matrix product runs over all their tokens
// and attention runs per sequence.
func (g *graph) build() []ml.Tensor {
	m, ctx, p, n := g.m, g.ctx, g.m.p, g.n
	in := ctx.Input()
	var toks, pos []int32
	for i := range g.seqs {
		s := &g.seqs[i]
		sp := make([]int32, len(s.b.Tokens))
		for j := range sp {
			sp[j] = int32(s.b.Start + j)
		}
		toks, pos = append(toks, s.b.Tokens...), append(pos, sp...)
		s.mask = in.FromFloats(causalMask(sp, s.nKV), s.nKV, len(sp))
		if m.o.FlashAttention {
			s.flashMask = s.mask.Cast(ctx, ml.DTypeF16)
		}
	}
	tokens := in.FromInts(toks, n)
	positions := in.FromInts(pos, n)
	rows := g.outputs()
	nOut := len(rows)
	var outRows ml.Tensor
	if nOut > 0 && nOut < n {
		outRows = in.FromInts(rows, nOut)
	}
	b0 := &g.want

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
		if last && b0.Attention { // one sequence only
			var probs ml.Tensor
			probs, attn = g.attentionProbs(l, q)
			if !m.o.FlashAttention {
				o = g.values(l, &g.seqs[0]).Mulmat(ctx, probs).Permute(ctx, 0, 2, 1, 3) // [hd, heads, n]
			}
		}
		if o == nil {
			// With flash attention the output always comes from the fused
			// kernel, even when probabilities are read, so that it does
			// not depend on what is read back.
			o = g.attention(l, q)
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
	if b0.Logits {
		keep(m.output.Mulmat(ctx, hidden), p.Vocab, nOut)
	}
	if b0.Hidden {
		keep(hidden, p.Embed, nOut)
	}
	if b0.Attention { // drop the padding keys
		nTot := g.seqs[0].nTot
		keep(attn.View(ctx, 0, nTot, attn.Stride(1), nOut), nTot, nOut)
	}
	return outs
}

// part returns sequence s's columns of t, a [a, b, n] tensor over all
// tokens (t itself when there is one sequence).
func (g *graph) part(t ml.Tensor, s *seqGraph) ml.Tensor {
	if len(g.seqs) == 1 {
		return t
	}
	return t.View(g.ctx, s.off*t.Stride(2), t.Dim(0), t.Stride(1), t.Dim(1), t.Stride(2), len(s.b.Tokens))
}

// attention is every sequence's fused attention over its own cache,
// joined in token order: [headDim, heads, n].
func (g *graph) attention(l int, q ml.Tensor) ml.Tensor {
	var o ml.Tensor
	for i := range g.seqs {
		s := &g.seqs[i]
		os := g.fusedAttention(l, g.part(q, s), s)
		if o == nil {
			o = os
		} else {
			o = o.Concat(g.ctx, os, 2)
		}
	}
	return o
}

// storeKV computes the keys and values of layer l for the batch and writes
// each sequence's into its cache. The writes are expanded into the graph at
// once, so they run before anything that reads the cache.
func (g *graph) storeKV(l int, h, positions ml.Tensor) {
	ctx, p, lw, n := g.ctx, g.m.p, &g.m.layers[l], g.n
	k := lw.wk.Mulmat(ctx, h)
	v := lw.wv.Mulmat(ctx, h)
	if lw.bk != nil {
		k, v = k.Add(ctx, lw.bk), v.Add(ctx, lw.bv)
	}
	k = g.rope(k.Reshape(ctx, p.HeadDim, p.KVHeads, n), positions)
	v = v.Reshape(ctx, p.HeadDim, p.KVHeads, n)
	for i := range g.seqs {
		s := &g.seqs[i]
		ks, vs, ns, start := g.part(k, s), g.part(v, s), len(s.b.Tokens), s.b.Start
		kc, vc := s.c.k[l], s.c.v[l]
		kDst := kc.View(ctx, start*kc.Stride(2), p.HeadDim*p.KVHeads*ns)
		if g.m.o.FlashAttention {
			vDst := vc.View(ctx, start*vc.Stride(2), p.HeadDim*p.KVHeads*ns)
			ctx.Forward(ks.Copy(ctx, kDst), vs.Copy(ctx, vDst))
			continue
		}
		// values go in transposed: [n, headDim, kvHeads] strided into the cache
		vDst := vc.View(ctx, start*vc.Stride(0), ns, vc.Stride(1), p.HeadDim, vc.Stride(2), p.KVHeads)
		ctx.Forward(ks.Copy(ctx, kDst), vs.Permute(ctx, 1, 2, 0, 3).Copy(ctx, vDst))
	}
}

// keys returns the cached keys of layer l of sequence s as [headDim,
// kvHeads, nKV].
func (g *graph) keys(l int, s *seqGraph) ml.Tensor {
	kc := s.c.k[l]
	return kc.View(g.ctx, 0, g.m.p.HeadDim, kc.Stride(1), g.m.p.KVHeads, kc.Stride(2), s.nKV)
}

// values returns the cached values of layer l of sequence s: [headDim,
// kvHeads, nKV] for flash attention, [nKV, headDim, kvHeads] otherwise.
func (g *graph) values(l int, s *seqGraph) ml.Tensor {
	vc, p := s.c.v[l], g.m.p
	if g.m.o.FlashAttention {
		return vc.View(g.ctx, 0, p.HeadDim, vc.Stride(1), p.KVHeads, vc.Stride(2), s.nKV)
	}
	return vc.View(g.ctx, 0, s.nKV, vc.Stride(1), p.HeadDim, vc.Stride(2), p.KVHeads)
}

func (g *graph) scale() float64 { return 1 / math.Sqrt(float64(g.m.p.HeadDim)) }

// fusedAttention is softmax(QKᵀ·scale + mask)·V over sequence s's cache,
// either flash attention or with scale, mask and softmax fused in one op;
// q is [headDim, heads, n], the result [headDim, heads, n].
func (g *graph) fusedAttention(l int, q ml.Tensor, s *seqGraph) ml.Tensor {
	mask := s.mask
	if g.m.o.FlashAttention {
		mask = s.flashMask
	}
	sdpa := q.(ml.ScaledDotProductAttention)
	return sdpa.ScaledDotProductAttention(g.ctx, g.keys(l, s), g.values(l, s), mask, nil, nil, g.scale(), true)
}

// attentionProbs computes softmax(QKᵀ·scale + mask) of the only sequence
// explicitly, as [nKV, n, heads], and its average over heads as [nKV, n].
func (g *graph) attentionProbs(l int, q ml.Tensor) (probs, avg ml.Tensor) {
	ctx, p, s := g.ctx, g.m.p, &g.seqs[0]
	k := g.keys(l, s).Permute(ctx, 0, 2, 1, 3)              // [hd, nKV, kvHeads]
	kq := k.MulmatFullPrec(ctx, q.Permute(ctx, 0, 2, 1, 3)) // [nKV, n, heads]
	probs = kq.Scale(ctx, g.scale()).Add(ctx, s.mask).Softmax(ctx)
	avg = probs.Permute(ctx, 1, 2, 0, 3).Contiguous(ctx).SumRows(ctx).Scale(ctx, 1/float64(p.Heads))
	return probs, avg.Reshape(ctx, s.nKV, g.n)
}

func (g *graph) rope(t, positions ml.Tensor) ml.Tensor { return g.m.rope(g.ctx, t, positions) }

// rope rotates t ([headDim, heads, n]) by positions (n of them), the
// model's RoPE variant.
func (m *Model) rope(ctx ml.Context, t, positions ml.Tensor) ml.Tensor {
	p := m.p
	var opts []func(*rope.Options)
	if p.RopeNeoX {
		opts = append(opts, rope.WithTypeNeoX())
	}
	return t.(roper).RoPE(ctx, positions, p.RopeDim, p.RopeBase, p.RopeFreqScale, opts...)
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
