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
// adjacent (sorted by length): attention deals (sequence, head) pairs out
// to the threads in turn, which balances best that way.
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
// Every operation runs on the packed tokens, without padding: attention
// (attention.c) works within each sequence's own span; F32 linear layers
// run on weights packed at load (linear.c).
func (e *Encoder) Forward(b EncoderBatch) (out []float32, err error) {
	if err := e.check(b); err != nil {
		return nil, err
	}
	defer recoverErr(&err, "encoder forward")
	var args opArgs
	defer args.free()
	ctx := e.b.NewContextSize(e.p.Layers*64 + 256) // tensors and nodes, generously
	defer ctx.Close()
	res := e.build(ctx, b, &args)
	ctx.Forward(res)
	ctx.Compute(res)
	return res.Floats(), nil
}

// build adds the forward pass of batch b to ctx and returns a copy of the
// last hidden layer, [Embed, tokens].
func (e *Encoder) build(ctx ml.Context, b EncoderBatch, args *opArgs) ml.Tensor {
	p := e.p
	hd := p.Embed / p.Heads
	attn := args.attention(b.Lens, p.Heads, hd, 1/math.Sqrt(float64(hd)))
	in := ctx.Input()
	n := len(b.IDs)
	pos := make([]int32, 0, n)
	for _, l := range b.Lens {
		for t := range l {
			pos = append(pos, int32(t))
		}
	}
	// Token type 0 for every token: its embedding row (as F32 whatever the
	// table's type), broadcast.
	typ0 := e.typ0.Rows(ctx, in.FromInts([]int32{0}, 1))
	x := e.tokEmb.Rows(ctx, in.FromInts(b.IDs, n)).Add(ctx, e.posEmb.Rows(ctx, in.FromInts(pos, n))).Add(ctx, typ0)
	x = x.LayerNorm(ctx, e.normW, e.normB, p.Eps)
	for i := range e.layers {
		l := &e.layers[i]
		q, k, v := l.q.forward(ctx, args, x, false), l.k.forward(ctx, args, x, false), l.v.forward(ctx, args, x, false)
		a := packedAttention(ctx, q, k, v, attn)
		o := l.o.forward(ctx, args, a, false)
		x = o.Add(ctx, x).LayerNorm(ctx, l.attnNormW, l.attnNormB, p.Eps)
		f := l.up.forward(ctx, args, x, true)
		f = l.down.forward(ctx, args, f, false)
		x = f.Add(ctx, x).LayerNorm(ctx, l.outNormW, l.outNormB, p.Eps)
	}
	return x.Copy(ctx, in.Empty(ml.DTypeF32, p.Embed, n))
}
