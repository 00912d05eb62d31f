package ggml

import (
	"context"
	"fmt"

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
	Types     int     // rows of token_types (the graph reads type 0)
	Positions int     // rows of position_embd: the longest input
	Eps       float32 // LayerNorm epsilon
}

type encLayer struct {
	q, k, v, o, up, down dense
	attnNormW, attnNormB ml.Tensor
	outNormW, outNormB   ml.Tensor
}

// linears returns the layer's linear layers.
func (l *encLayer) linears() []*dense { return []*dense{&l.q, &l.k, &l.v, &l.o, &l.up, &l.down} }

// dense is a linear layer: weight, bias, and the weight packed for
// linear.c when it is F32 (ggml multiplies the other types itself).
type dense struct {
	w, b   ml.Tensor
	packed *packedMatrix
}

// forward returns w·x + b, then GELU when gelu is set.
func (d *dense) forward(ctx ml.Context, args *opArgs, x ml.Tensor, gelu bool) ml.Tensor {
	switch {
	case d.packed != nil:
		return args.linear(ctx, d.packed, x, d.b, gelu)
	case gelu:
		return geluBias(ctx, d.w.Mulmat(ctx, x), d.b)
	}
	return d.w.Mulmat(ctx, x).Add(ctx, d.b)
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
	prepare()
	// No GPULayers: the encoder's own kernels (custom ops) run on the CPU,
	// and so does the rest of it, whatever devices were found.
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
	if err := e.pack(); err != nil {
		e.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return e, nil
}

// bind looks up every weight tensor the graph needs (see weights).
func (e *Encoder) bind() error { return bindAll(e.b, e.weights()) }

// Params returns the hyper-parameters the encoder was loaded with.
func (e *Encoder) Params() EncoderParams { return e.p }

// pack moves every F32 weight matrix into linear.c's panel layout.
func (e *Encoder) pack() error {
	for i := range e.layers {
		for _, d := range e.layers[i].linears() {
			if d.w.DType() != ml.DTypeF32 {
				continue
			}
			p, err := packMatrix(d.w)
			if err != nil {
				return err
			}
			d.packed = p
		}
	}
	return nil
}

// Close frees the weights.
func (e *Encoder) Close() {
	for i := range e.layers {
		for _, d := range e.layers[i].linears() {
			if d.packed != nil {
				d.packed.free()
				d.packed = nil
			}
		}
	}
	if e.b != nil {
		e.b.Close()
		e.b = nil
	}
}
