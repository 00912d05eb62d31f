package ggml

import (
	"fmt"
	"math"

	"github.com/ollama/ollama/ml"
)

// EncoderBatch is a set of token sequences of different lengths, packed
// one after another: sequence i is Lens[i] ids of IDs, starting after the
// sequences before it. Every token has token type 0 and positions count
// 0, 1, … within each sequence. Sequences of similar length should be
// adjacent (sorted by length): attention runs on groups of adjacent
// sequences padded to a common width.
type EncoderBatch struct {
	IDs  []int32
	Lens []int
}

// check validates the batch against the encoder's sizes.
func (e *Encoder) check(b EncoderBatch) error {
	if len(b.Lens) == 0 {
		return fmt.Errorf("empty batch")
	}
	n := 0
	for i, l := range b.Lens {
		if l < 1 || l > e.p.Positions {
			return fmt.Errorf("sequence %d has %d tokens (1 to %d, the positions of the encoder)", i, l, e.p.Positions)
		}
		n += l
	}
	if n != len(b.IDs) {
		return fmt.Errorf("batch of %d ids for sequences of %d tokens in all", len(b.IDs), n)
	}
	for _, t := range b.IDs {
		if t < 0 || int(t) >= e.p.Vocab {
			return fmt.Errorf("token id %d outside the vocabulary of %d", t, e.p.Vocab)
		}
	}
	return nil
}

// Forward returns the last hidden layer of every token of the batch,
// packed as the ids are: len(IDs)×Embed floats.
//
// The linear layers run on the packed tokens, without padding. Attention
// gathers each group of adjacent sequences into a padded block (padding
// keys masked out) and scatters the result back.
func (e *Encoder) Forward(b EncoderBatch) (out []float32, err error) {
	if err := e.check(b); err != nil {
		return nil, err
	}
	defer recoverErr(&err, "encoder forward")
	groups := attnGroups(b.Lens, e.p.Positions)
	ctx := e.b.NewContextSize(e.p.Layers*(48+48*len(groups)) + 256) // tensors and nodes, generously
	defer ctx.Close()
	res := e.build(ctx, b, groups)
	ctx.Forward(res)
	ctx.Compute(res)
	return res.Floats(), nil
}

// widthPad is the multiple attention blocks are padded to: ggml's fast
// matmul kernels (llamafile's tinyBLAS) need the key count of QKᵀ to be a
// multiple of 4 and the inner size of the attention-weighted sum of values
// a multiple of 8; otherwise a generic kernel 2-3× slower runs.
const widthPad = 8

// attnBlockTokens bounds the padded tokens of one attention block, which
// bounds its score tensor (width² × heads × sequences floats).
const attnBlockTokens = 4096

// attnGroup is a run of adjacent sequences whose attention is computed in
// one padded block of Width tokens per sequence.
type attnGroup struct {
	first, count int // sequences first .. first+count-1
	width        int // padded length
	short, long  int // shortest and longest sequence
}

// attnGroups cuts the sequences into runs of similar length (the longest
// at most 1.25× + 8 the shortest, as sorted input gives) within the
// padded-token budget of a block.
func attnGroups(lens []int, positions int) []attnGroup {
	var out []attnGroup
	pad := func(n int) int { return min((n+widthPad-1)/widthPad*widthPad, positions) }
	for i, l := range lens {
		if n := len(out); n > 0 {
			g := &out[n-1]
			short, long := min(g.short, l), max(g.long, l)
			if 4*long <= 5*short+32 && pad(long)*(g.count+1) <= attnBlockTokens {
				g.count, g.short, g.long, g.width = g.count+1, short, long, pad(long)
				continue
			}
		}
		out = append(out, attnGroup{first: i, count: 1, width: pad(l), short: l, long: l})
	}
	return out
}

// blockInputs are the per-group index and mask tensors of attention.
type blockInputs struct {
	gather  ml.Tensor // [width*count]: packed token of each padded slot
	scatter ml.Tensor // [tokens of the group]: padded slot of each token
	mask    ml.Tensor // [width, width, 1, count]: 0, or -Inf for padding keys
	g       attnGroup
}

// blockIndex builds the gather, scatter and mask data of group g, whose
// first token is at packed offset start.
func blockIndex(lens []int, g attnGroup, start int) (gather, scatter []int32, mask []float32) {
	w := g.width
	gather = make([]int32, w*g.count)
	mask = make([]float32, w*w*g.count)
	inf := float32(math.Inf(-1))
	off := start
	for r := range g.count {
		l := lens[g.first+r]
		for t := range w {
			src := off // padding slots read the sequence's first token
			if t < l {
				src = off + t
				scatter = append(scatter, int32(r*w+t))
			}
			gather[r*w+t] = int32(src)
		}
		for q := range w {
			row := mask[(r*w+q)*w:][:w]
			for k := l; k < w; k++ {
				row[k] = inf
			}
		}
		off += l
	}
	return gather, scatter, mask
}

// build adds the forward pass of batch b to ctx and returns a copy of the
// last hidden layer, [Embed, tokens].
func (e *Encoder) build(ctx ml.Context, b EncoderBatch, groups []attnGroup) ml.Tensor {
	p := e.p
	in := ctx.Input()
	n := len(b.IDs)
	pos := make([]int32, 0, n)
	for _, l := range b.Lens {
		for t := range l {
			pos = append(pos, int32(t))
		}
	}
	blocks := make([]blockInputs, len(groups))
	start := 0
	for i, g := range groups {
		gather, scatter, mask := blockIndex(b.Lens, g, start)
		blocks[i] = blockInputs{
			gather:  in.FromInts(gather, len(gather)),
			scatter: in.FromInts(scatter, len(scatter)),
			mask:    in.FromFloats(mask, g.width, g.width, 1, g.count),
			g:       g,
		}
		start += len(scatter)
	}
	// Token type 0 for every token: its embedding row (as F32 whatever the
	// table's type), broadcast.
	typ0 := e.typ0.Rows(ctx, in.FromInts([]int32{0}, 1))
	x := e.tokEmb.Rows(ctx, in.FromInts(b.IDs, n)).Add(ctx, e.posEmb.Rows(ctx, in.FromInts(pos, n))).Add(ctx, typ0)
	x = x.LayerNorm(ctx, e.normW, e.normB, p.Eps)
	for i := range e.layers {
		l := &e.layers[i]
		q := l.wq.Mulmat(ctx, x).Add(ctx, l.bq)
		k := l.wk.Mulmat(ctx, x).Add(ctx, l.bk)
		v := l.wv.Mulmat(ctx, x).Add(ctx, l.bv)
		var a ml.Tensor
		for _, blk := range blocks {
			o := e.attention(ctx, q, k, v, blk)
			if a == nil {
				a = o
			} else {
				a = a.Concat(ctx, o, 1)
			}
		}
		o := l.wo.Mulmat(ctx, a).Add(ctx, l.bo)
		x = o.Add(ctx, x).LayerNorm(ctx, l.attnNormW, l.attnNormB, p.Eps)
		f := l.wu.Mulmat(ctx, x).Add(ctx, l.bu).GELU_ERF(ctx)
		f = l.wd.Mulmat(ctx, f).Add(ctx, l.bd)
		x = f.Add(ctx, x).LayerNorm(ctx, l.outNormW, l.outNormB, p.Eps)
	}
	return x.Copy(ctx, in.Empty(ml.DTypeF32, p.Embed, n))
}

// attention computes softmax(QKᵀ/√hd + mask)·V for one block of sequences
// from the packed projections q, k, v ([Embed, tokens]) and returns the
// block's tokens, packed: [Embed, tokens of the block].
func (e *Encoder) attention(ctx ml.Context, q, k, v ml.Tensor, blk blockInputs) ml.Tensor {
	p := e.p
	hd, w, rows := p.Embed/p.Heads, blk.g.width, blk.g.count
	// Q is made contiguous as [hd, w, Heads, rows], then viewed back as
	// [hd, Heads, w, rows], which the fused attention permutes again: the
	// fast kernel of QKᵀ needs a contiguous right operand.
	qb := q.Rows(ctx, blk.gather).Reshape(ctx, hd, p.Heads, w, rows)
	qb = qb.Permute(ctx, 0, 2, 1, 3).Contiguous(ctx).Permute(ctx, 0, 2, 1, 3)
	kb := k.Rows(ctx, blk.gather).Reshape(ctx, hd, p.Heads, w, rows)
	vb := v.Rows(ctx, blk.gather).Reshape(ctx, hd, p.Heads, w, rows)
	vb = vb.Permute(ctx, 1, 2, 0, 3).Contiguous(ctx) // [w, hd, Heads, rows]
	scale := 1 / math.Sqrt(float64(hd))
	a := qb.(ml.ScaledDotProductAttention).ScaledDotProductAttention(ctx, kb, vb, blk.mask, nil, nil, scale, true)
	return a.Reshape(ctx, p.Embed, w*rows).Rows(ctx, blk.scatter)
}
