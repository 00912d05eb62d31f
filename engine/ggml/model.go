// Package ggml runs decoder-only transformer graphs (Llama, Qwen2) on the ggml
// tensor library through ollama's Go bindings (github.com/ollama/ollama/ml).
//
// It is the only package of the project that imports the tensor backend, so
// the backend can be replaced in one place. It knows nothing of GGUF metadata
// or tokenizers: the caller (package engine) validates the file, reads the
// hyper-parameters into Params and drives Forward with token batches.
//
// The CPU thread count of ggml is process-wide: every Load sets it for all
// models of the process (the last Load wins).
package ggml

import (
	"context"
	"fmt"

	"github.com/ollama/ollama/ml"
	_ "github.com/ollama/ollama/ml/backend/ggml" // registers the "ggml" backend
)

// Params are the hyper-parameters of a Llama-style decoder.
type Params struct {
	Layers   int     // number of transformer blocks
	Embed    int     // hidden size
	FFN      int     // feed-forward size
	Heads    int     // query heads
	KVHeads  int     // key/value heads (GQA when < Heads)
	HeadDim  int     // size of one head
	RopeDim  int     // rotated dimensions of a head (usually HeadDim)
	Vocab    int     // output rows of the LM head
	Eps      float32 // RMSNorm epsilon
	RopeBase float32 // RoPE theta
	// RopeFreqScale is ggml's frequency scale: 1/factor for linear RoPE
	// scaling, 1 without scaling.
	RopeFreqScale float32
	// RopeNeoX selects the NeoX rotation (pairs i, i+d/2: Qwen2). Otherwise
	// adjacent pairs are rotated, which matches llama.cpp's permuted Llama
	// Q/K weights.
	RopeNeoX bool
	// QKVBias adds blk.N.attn_{q,k,v}.bias after the projections (Qwen2).
	QKVBias bool
	// Types maps each tensor name to its ggml type id (the GGUF tensor
	// directory), to choose the matrices worth repacking.
	Types map[string]uint32
}

type layer struct {
	attnNorm, wq, wk, wv, bq, bk, bv, wo ml.Tensor
	ffnNorm, wg, wu, wd                  ml.Tensor
}

// Options choose how a model runs.
type Options struct {
	// Threads is ggml's CPU thread count, process-wide (the last Load wins).
	Threads int
	// FlashAttention runs attention with ggml's fused flash-attention
	// kernel, which computes every query row on its own: results do not
	// depend on how tokens are split into batches. Without it attention is
	// two matrix products around a softmax, as llama.cpp does by default.
	// Layers whose probabilities are read always use the explicit form.
	FlashAttention bool
	// NoRepack keeps every weight in the file's layout even when the
	// binary can repack (see RepackAvailable).
	NoRepack bool
	// NoWiden keeps Q5_0 matrices as they are instead of their exact,
	// faster Q8_0 copies (see widen.go).
	NoWiden bool
	// GPU, when set, holds every layer and the output layer (weights and
	// KV caches) in that device's memory; the token embeddings stay on
	// the CPU and ops the GPU lacks run there. Widening and repacking,
	// rewrites of host memory, are skipped. Find one with ResolveDevice.
	GPU *GPU
}

// Model holds the weights of one decoder in memory (copied from the file,
// no mmap) and builds its forward graphs.
type Model struct {
	p       Params
	o       Options
	b       ml.Backend
	tokEmb  ml.Tensor
	outNorm ml.Tensor
	output  ml.Tensor
	layers  []layer
	// repacked holds matrices moved to ggml's interleaved layout, or nil
	repacked *repackedWeights
	// widened holds the Q8_0 copies of Q5_0 matrices, or nil
	widened *widenedWeights
}

// Load reads the weights of the GGUF file at path into memory. The file must
// already have been validated (tensor names, shapes and types) by the caller:
// the backend trusts it.
func Load(path string, p Params, o Options) (m *Model, err error) {
	defer recoverErr(&err, "load "+path)
	prepare()
	bp := ml.BackendParams{AllocMemory: true, NumThreads: o.Threads, FlashAttention: ml.FlashAttentionDisabled}
	if o.FlashAttention {
		bp.FlashAttention = ml.FlashAttentionEnabled
	}
	if o.GPU != nil {
		layers := make([]int, p.Layers+1) // blocks and, at index Layers, the output
		for i := range layers {
			layers[i] = i
		}
		bp.GPULayers = ml.GPULayersList{{DeviceID: ml.DeviceID{ID: o.GPU.ID, Library: o.GPU.Library}, Layers: layers}}
	}
	b, err := ml.NewBackend(path, bp)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m = &Model{p: p, o: o, b: b}
	if err := m.bind(); err != nil {
		b.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := b.Load(context.Background(), nil); err != nil {
		b.Close()
		return nil, fmt.Errorf("%s: reading weights: %w", path, err)
	}
	if !o.NoWiden && o.GPU == nil {
		m.widen(p.Types)
	}
	if !o.NoRepack && o.GPU == nil {
		m.repack(p.Types)
	}
	return m, nil
}

// bind looks up every weight tensor the graph needs (see weights); the
// backend aliases output.weight to token_embd.weight when they are tied.
func (m *Model) bind() error { return bindAll(m.b, m.weights()) }

// Params returns the hyper-parameters the model was loaded with.
func (m *Model) Params() Params { return m.p }

// Close frees the weights. Caches made by the model must be closed first.
func (m *Model) Close() {
	if m.b != nil {
		m.b.Close()
		m.b = nil
		m.repacked.free()
		m.repacked = nil
		m.widened.free()
		m.widened = nil
	}
}

// GPU is the device holding the layers, nil on the CPU.
func (m *Model) GPU() *GPU { return m.o.GPU }

// Repacked is the number of weight matrices held in ggml's repacked layout.
func (m *Model) Repacked() int {
	if m.repacked == nil {
		return 0
	}
	return m.repacked.n
}

// recoverErr turns a panic of the backend (out of memory, failed compute)
// into an error, so bad input never crashes the process.
func recoverErr(err *error, what string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: backend failure: %v", what, r)
	}
}
