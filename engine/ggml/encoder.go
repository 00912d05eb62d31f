package ggml

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/ollama/ollama/ml"
)

// EncoderParams are the hyper-parameters of a BERT-style bidirectional
// encoder (post-LN blocks, GELU feed-forward, learned absolute positions
// counted from 0: RoBERTa's offset is removed by the converter).
type EncoderParams struct {
	Layers    int     // number of transformer blocks
	Embed     int     // hidden size
	Heads     int     // attention heads (Embed/Heads per head)
	FFN       int     // feed-forward size
	Vocab     int     // rows of token_embd
	Positions int     // rows of position_embd: the longest input
	Eps       float32 // LayerNorm epsilon
}

type encLayer struct {
	wq, bq, wk, bk, wv, bv, wo, bo ml.Tensor
	attnNormW, attnNormB           ml.Tensor
	wu, bu, wd, bd                 ml.Tensor
	outNormW, outNormB             ml.Tensor
}

// Encoder holds the weights of one encoder in memory and runs batches of
// token sequences through it.
type Encoder struct {
	p                    EncoderParams
	b                    ml.Backend
	tokEmb, posEmb, typ0 ml.Tensor
	normW, normB         ml.Tensor
	layers               []encLayer
}

// LoadEncoder reads the weights of the GGUF encoder file at path (llama.cpp's
// "bert" tensor names). The caller has validated names, shapes and types.
func LoadEncoder(path string, p EncoderParams, o Options) (e *Encoder, err error) {
	defer recoverErr(&err, "load "+path)
	bp := ml.BackendParams{AllocMemory: true, NumThreads: o.Threads, FlashAttention: ml.FlashAttentionDisabled}
	b, err := ml.NewBackend(path, bp)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	e = &Encoder{p: p, b: b}
	if err := e.bind(); err != nil {
		b.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := b.Load(context.Background(), nil); err != nil {
		b.Close()
		return nil, fmt.Errorf("%s: reading weights: %w", path, err)
	}
	return e, nil
}

func (e *Encoder) bind() error {
	var missing error
	get := func(name string) ml.Tensor {
		t := e.b.Get(name)
		if t == nil && missing == nil {
			missing = fmt.Errorf("tensor %s is missing", name)
		}
		return t
	}
	e.tokEmb = get("token_embd.weight")
	e.posEmb = get("position_embd.weight")
	e.typ0 = get("token_types.weight")
	e.normW = get("token_embd_norm.weight")
	e.normB = get("token_embd_norm.bias")
	e.layers = make([]encLayer, e.p.Layers)
	for i := range e.layers {
		pre := "blk." + strconv.Itoa(i) + "."
		l := &e.layers[i]
		l.wq, l.bq = get(pre+"attn_q.weight"), get(pre+"attn_q.bias")
		l.wk, l.bk = get(pre+"attn_k.weight"), get(pre+"attn_k.bias")
		l.wv, l.bv = get(pre+"attn_v.weight"), get(pre+"attn_v.bias")
		l.wo, l.bo = get(pre+"attn_output.weight"), get(pre+"attn_output.bias")
		l.attnNormW, l.attnNormB = get(pre+"attn_output_norm.weight"), get(pre+"attn_output_norm.bias")
		l.wu, l.bu = get(pre+"ffn_up.weight"), get(pre+"ffn_up.bias")
		l.wd, l.bd = get(pre+"ffn_down.weight"), get(pre+"ffn_down.bias")
		l.outNormW, l.outNormB = get(pre+"layer_output_norm.weight"), get(pre+"layer_output_norm.bias")
	}
	return missing
}

// Params returns the hyper-parameters the encoder was loaded with.
func (e *Encoder) Params() EncoderParams { return e.p }

// Close frees the weights.
func (e *Encoder) Close() {
	if e.b != nil {
		e.b.Close()
		e.b = nil
	}
}

// EncoderBatch is Rows token sequences right-padded to Width: row r holds
// IDs[r*Width : r*Width+Lens[r]] followed by padding (any valid id). All
// tokens have token type 0 and positions 0, 1, … within their row.
type EncoderBatch struct {
	IDs         []int32
	Lens        []int
	Rows, Width int
}

// check validates the batch against the encoder's sizes.
func (e *Encoder) check(b EncoderBatch) error {
	switch {
	case b.Rows <= 0 || b.Width <= 0:
		return fmt.Errorf("empty batch (%d rows of %d tokens)", b.Rows, b.Width)
	case b.Width > e.p.Positions:
		return fmt.Errorf("sequences of %d tokens exceed the %d positions of the encoder", b.Width, e.p.Positions)
	case len(b.IDs) != b.Rows*b.Width || len(b.Lens) != b.Rows:
		return fmt.Errorf("batch of %d ids and %d lengths for %d×%d", len(b.IDs), len(b.Lens), b.Rows, b.Width)
	}
	for r, n := range b.Lens {
		if n < 1 || n > b.Width {
			return fmt.Errorf("row %d has length %d (width %d)", r, n, b.Width)
		}
	}
	for _, t := range b.IDs {
		if t < 0 || int(t) >= e.p.Vocab {
			return fmt.Errorf("token id %d outside the vocabulary of %d", t, e.p.Vocab)
		}
	}
	return nil
}

// Forward returns the last hidden layer of every position of the batch:
// Rows×Width×Embed floats, row-major (padding positions hold finite values
// of no meaning). Padding keys are masked out of attention.
func (e *Encoder) Forward(b EncoderBatch) (out []float32, err error) {
	if err := e.check(b); err != nil {
		return nil, err
	}
	defer recoverErr(&err, "encoder forward")
	ctx := e.b.NewContextSize(32*e.p.Layers + 64)
	defer ctx.Close()
	res := e.build(ctx, b)
	ctx.Forward(res)
	ctx.Compute(res)
	return res.Floats(), nil
}

// build adds the forward pass of batch b to ctx and returns a copy of the
// last hidden layer, [Embed, Width*Rows].
func (e *Encoder) build(ctx ml.Context, b EncoderBatch) ml.Tensor {
	p := e.p
	in := ctx.Input()
	n := b.Rows * b.Width
	hd := p.Embed / p.Heads
	pos := make([]int32, n)
	mask := make([]float32, n*b.Width) // [key, query, row]: 0 or -Inf
	inf := float32(math.Inf(-1))
	for r := range b.Rows {
		for t := range b.Width {
			pos[r*b.Width+t] = int32(t)
		}
		for q := range b.Width {
			row := mask[(r*b.Width+q)*b.Width:][:b.Width]
			for k := b.Lens[r]; k < b.Width; k++ {
				row[k] = inf
			}
		}
	}
	ids := in.FromInts(b.IDs, n)
	positions := in.FromInts(pos, n)
	kqMask := in.FromFloats(mask, b.Width, b.Width, 1, b.Rows)

	// Token type 0 for every token: its embedding row (as F32 whatever the
	// table's type), broadcast.
	typ0 := e.typ0.Rows(ctx, in.FromInts([]int32{0}, 1))
	x := e.tokEmb.Rows(ctx, ids).Add(ctx, e.posEmb.Rows(ctx, positions)).Add(ctx, typ0)
	x = x.LayerNorm(ctx, e.normW, e.normB, p.Eps)
	scale := 1 / math.Sqrt(float64(hd))
	for i := range e.layers {
		l := &e.layers[i]
		q := l.wq.Mulmat(ctx, x).Add(ctx, l.bq).Reshape(ctx, hd, p.Heads, b.Width, b.Rows)
		k := l.wk.Mulmat(ctx, x).Add(ctx, l.bk).Reshape(ctx, hd, p.Heads, b.Width, b.Rows)
		v := l.wv.Mulmat(ctx, x).Add(ctx, l.bv).Reshape(ctx, hd, p.Heads, b.Width, b.Rows)
		v = v.Permute(ctx, 1, 2, 0, 3).Contiguous(ctx) // [Width, hd, Heads, Rows]
		// softmax(QKᵀ·scale + mask)·V per row and head, as [hd, Heads, Width, Rows]
		a := q.(ml.ScaledDotProductAttention).ScaledDotProductAttention(ctx, k, v, kqMask, nil, nil, scale, true)
		o := l.wo.Mulmat(ctx, a.Reshape(ctx, p.Embed, n)).Add(ctx, l.bo)
		x = o.Add(ctx, x).LayerNorm(ctx, l.attnNormW, l.attnNormB, p.Eps)
		f := l.wu.Mulmat(ctx, x).Add(ctx, l.bu).GELU_ERF(ctx)
		f = l.wd.Mulmat(ctx, f).Add(ctx, l.bd)
		x = f.Add(ctx, x).LayerNorm(ctx, l.outNormW, l.outNormB, p.Eps)
	}
	return x.Copy(ctx, in.Empty(ml.DTypeF32, p.Embed, n))
}
