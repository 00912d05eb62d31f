package ggml

import (
	"context"
	"fmt"
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
