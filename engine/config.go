package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"actor/engine/ggml"
	"actor/gguf"
)

// Config is the shape of a decoder, read from GGUF metadata.
type Config struct {
	Architecture  string // "llama" or "qwen2"
	Name          string // general.name, may be empty
	Layers        int
	Embed         int // hidden size: length of Prediction.Hidden
	FFN           int
	Heads         int
	KVHeads       int
	HeadDim       int
	RopeDim       int
	Vocab         int // length of Prediction.Logits
	ContextLength int // the model's trained context ({arch}.context_length)
	RopeBase      float64
	// RopeLinearFactor is the linear RoPE scaling factor (positions are
	// divided by it; DeepSeek-Coder uses 4), 1 when unscaled.
	RopeLinearFactor float64
	Eps              float64
	QKVBias          bool // attention projections carry biases (Qwen2)
	TiedEmbeddings   bool // no output.weight: the LM head reuses token_embd
}

// architectures lists the supported decoders and their RoPE layout.
var architectures = map[string]struct{ neox bool }{
	"llama": {neox: false}, // llama.cpp permutes Q/K rows: adjacent-pair rotation
	"qwen2": {neox: true},
}

// supportedTypes are the tensor types the graphs are tested with.
var supportedTypes = []gguf.Type{
	gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16, gguf.TypeQ8_0, gguf.TypeQ4_0,
	gguf.TypeQ4_1, gguf.TypeQ5_0, gguf.TypeQ5_1, gguf.TypeQ4_K, gguf.TypeQ5_K, gguf.TypeQ6_K,
}

func supportedTypeNames() string {
	names := make([]string, len(supportedTypes))
	for i, t := range supportedTypes {
		names[i] = t.String()
	}
	return strings.Join(names, ", ")
}

// readConfig reads the hyper-parameters of f and checks every tensor the
// graph uses against them, so the backend only ever sees a consistent file.
func readConfig(f *gguf.File) (Config, error) {
	arch := f.Architecture()
	if _, ok := architectures[arch]; !ok {
		names := slices.Sorted(func(yield func(string) bool) {
			for k := range architectures {
				if !yield(k) {
					return
				}
			}
		})
		if arch == "" {
			return Config{}, fmt.Errorf("no general.architecture key (supported: %s)", strings.Join(names, ", "))
		}
		return Config{}, fmt.Errorf("unsupported architecture %q (supported: %s)", arch, strings.Join(names, ", "))
	}
	r := metaReader{f: f, arch: arch}
	c := Config{Architecture: arch}
	c.Name, _ = f.String("general.name")
	c.Layers = r.int("block_count", -1)
	c.Embed = r.int("embedding_length", -1)
	c.FFN = r.int("feed_forward_length", -1)
	c.Heads = r.int("attention.head_count", -1)
	c.KVHeads = r.int("attention.head_count_kv", c.Heads)
	c.ContextLength = r.int("context_length", -1)
	if r.err == nil && (c.Heads <= 0 || c.Embed%c.Heads != 0) {
		r.fail("attention.head_count %d does not divide embedding_length %d", c.Heads, c.Embed)
	}
	if r.err == nil {
		c.HeadDim = r.int("attention.key_length", c.Embed/c.Heads)
		c.RopeDim = r.int("rope.dimension_count", c.HeadDim)
	}
	c.RopeBase = r.float("rope.freq_base", 10000)
	c.Eps = r.float("attention.layer_norm_rms_epsilon", -1)
	c.RopeLinearFactor = r.ropeScaling()
	if r.err != nil {
		return Config{}, r.err
	}
	switch {
	case c.Layers <= 0 || c.Embed <= 0 || c.FFN <= 0 || c.ContextLength <= 0:
		return Config{}, fmt.Errorf("non-positive size in metadata (block_count %d, embedding_length %d, feed_forward_length %d, context_length %d)",
			c.Layers, c.Embed, c.FFN, c.ContextLength)
	case c.KVHeads <= 0 || c.Heads%c.KVHeads != 0:
		return Config{}, fmt.Errorf("attention.head_count_kv %d does not divide head_count %d", c.KVHeads, c.Heads)
	case c.RopeDim <= 0 || c.RopeDim > c.HeadDim || c.RopeDim%2 != 0:
		return Config{}, fmt.Errorf("rope.dimension_count %d invalid for head size %d", c.RopeDim, c.HeadDim)
	case !(c.Eps > 0 && c.Eps < 1):
		return Config{}, fmt.Errorf("attention.layer_norm_rms_epsilon %g out of range", c.Eps)
	case !(c.RopeBase > 0):
		return Config{}, fmt.Errorf("rope.freq_base %g must be positive", c.RopeBase)
	}
	if emb, ok := f.Tensor("token_embd.weight"); ok && len(emb.Shape) == 2 {
		c.Vocab = int(emb.Shape[1])
	}
	if v, err := f.Uint(arch + ".vocab_size"); err == nil && int(v) != c.Vocab {
		return Config{}, fmt.Errorf("%s.vocab_size %d disagrees with token_embd.weight (%d rows)", arch, v, c.Vocab)
	}
	_, c.QKVBias = f.Tensor("blk.0.attn_q.bias")
	_, hasOutput := f.Tensor("output.weight")
	c.TiedEmbeddings = !hasOutput
	if err := c.checkTensors(f); err != nil {
		return Config{}, err
	}
	return c, nil
}

// checkTensors verifies names, shapes and types of every tensor the graph
// reads, and that no tensor of the file has a type the backend can't run.
func (c Config) checkTensors(f *gguf.File) error {
	for _, t := range f.Tensors {
		if !slices.Contains(supportedTypes, t.Type) {
			return fmt.Errorf("tensor %s has unsupported type %s (supported: %s)", t.Name, t.Type, supportedTypeNames())
		}
	}
	if _, ok := f.Tensor("rope_freqs.weight"); ok {
		return errors.New("tensor rope_freqs.weight (Llama-3 style RoPE frequency factors) is not supported")
	}
	if c.Vocab == 0 {
		return errors.New("tensor token_embd.weight is missing or not 2-D")
	}
	ws := ggml.DecoderWeights(c.params(f))
	slices.SortFunc(ws, func(a, b ggml.Weight) int { return strings.Compare(a.Name, b.Name) })
	for _, w := range ws {
		name, shape := w.Name, w.Shape
		if w.Aliased && c.TiedEmbeddings {
			continue
		}
		t, ok := f.Tensor(name)
		if !ok {
			return fmt.Errorf("tensor %s is missing (%s model with %d layers)", name, c.Architecture, c.Layers)
		}
		if !slices.Equal(t.Shape, shape) {
			return fmt.Errorf("tensor %s has shape %v, the metadata implies %v", name, t.Shape, shape)
		}
		if len(shape) == 1 && t.Type != gguf.TypeF32 {
			return fmt.Errorf("tensor %s is %s; norms and biases must be F32", name, t.Type)
		}
	}
	return nil
}

// params converts the configuration to the backend's parameters.
func (c Config) params(f *gguf.File) ggml.Params {
	types := make(map[string]uint32, len(f.Tensors))
	for _, t := range f.Tensors {
		types[t.Name] = uint32(t.Type)
	}
	return ggml.Params{
		Types:  types,
		Layers: c.Layers, Embed: c.Embed, FFN: c.FFN, Heads: c.Heads, KVHeads: c.KVHeads,
		HeadDim: c.HeadDim, RopeDim: c.RopeDim, Vocab: c.Vocab, Eps: float32(c.Eps),
		RopeBase: float32(c.RopeBase), RopeFreqScale: float32(1 / c.RopeLinearFactor),
		RopeNeoX: architectures[c.Architecture].neox, QKVBias: c.QKVBias,
	}
}

// metaReader reads "{arch}.key" values and keeps the first error.
type metaReader struct {
	f    *gguf.File
	arch string
	err  error
}

func (r *metaReader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, a...)
	}
}

// int reads an integer key; def < 0 makes the key required.
func (r *metaReader) int(key string, def int) int {
	full := r.arch + "." + key
	if !r.f.Has(full) {
		if def < 0 {
			r.fail("metadata key %s is missing", full)
		}
		return def
	}
	v, err := r.f.Uint(full)
	if err != nil || v > 1<<30 {
		r.fail("metadata key %s: want an integer up to 2^30 (%v)", full, err)
		return 0
	}
	return int(v)
}

// float reads a float key; def < 0 makes the key required.
func (r *metaReader) float(key string, def float64) float64 {
	full := r.arch + "." + key
	if !r.f.Has(full) {
		if def < 0 {
			r.fail("metadata key %s is missing", full)
		}
		return def
	}
	v, err := r.f.Float(full)
	if err != nil {
		r.fail("metadata key %s: %v", full, err)
	}
	return v
}

// ropeScaling returns the linear RoPE factor, refusing other scalings.
func (r *metaReader) ropeScaling() float64 {
	typ := "none"
	if r.f.Has(r.arch + ".rope.scaling.type") {
		var err error
		if typ, err = r.f.String(r.arch + ".rope.scaling.type"); err != nil {
			r.fail("%v", err)
		}
	}
	factor := 1.0
	switch {
	case r.f.Has(r.arch + ".rope.scale_linear"): // older converters
		factor = r.float("rope.scale_linear", 1)
		if typ == "none" {
			typ = "linear"
		}
	case typ == "linear":
		factor = r.float("rope.scaling.factor", -1)
	}
	switch typ {
	case "none", "linear":
	default:
		r.fail("RoPE scaling type %q is not supported (only linear)", typ)
	}
	if !(factor > 0) {
		r.fail("RoPE scaling factor %g must be positive", factor)
		return 1
	}
	return factor
}
