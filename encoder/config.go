package encoder

import (
	"fmt"
	"slices"

	"actor/engine/ggml"
	"actor/gguf"
)

// Config is the shape of an encoder, read from GGUF metadata.
type Config struct {
	Name      string // general.name
	Family    string // "bert" or "roberta" (actor.encoder.family)
	Layers    int
	Embed     int // hidden size: the dimension of the token embeddings
	Heads     int
	FFN       int
	Vocab     int
	Types     int // rows of token_types.weight
	Positions int // longest input the position table allows
	MaxTokens int // longest input the model was trained for (≤ Positions)
	Eps       float64
}

// supportedTypes are the weight types the encoder graph is tested with.
var supportedTypes = []gguf.Type{gguf.TypeF32, gguf.TypeF16, gguf.TypeBF16, gguf.TypeQ8_0}

// readConfig reads and checks the metadata and every tensor of an encoder
// file, so the backend only ever sees a consistent file.
func readConfig(f *gguf.File) (Config, error) {
	if a := f.Architecture(); a != "bert" {
		return Config{}, fmt.Errorf("architecture %q is not an encoder (want bert; convert BertModel or RobertaModel checkpoints with actor convert)", a)
	}
	var c Config
	var err error
	read := func(key string, dst *int) {
		if err != nil {
			return
		}
		var v uint64
		if v, err = f.Uint(key); err == nil && (v == 0 || v > 1<<30) {
			err = fmt.Errorf("metadata key %s is %d", key, v)
		}
		*dst = int(v)
	}
	read("bert.block_count", &c.Layers)
	read("bert.embedding_length", &c.Embed)
	read("bert.attention.head_count", &c.Heads)
	read("bert.feed_forward_length", &c.FFN)
	read("bert.context_length", &c.Positions)
	if err != nil {
		return Config{}, err
	}
	if c.Eps, err = f.Float("bert.attention.layer_norm_epsilon"); err != nil {
		return Config{}, err
	}
	c.Name, _ = f.String("general.name")
	c.Family = "bert"
	if f.Has(gguf.KeyEncoderFamily) {
		if c.Family, err = f.String(gguf.KeyEncoderFamily); err != nil {
			return Config{}, err
		}
	}
	c.MaxTokens = c.Positions
	if f.Has(gguf.KeyEncoderMaxTokens) {
		read(gguf.KeyEncoderMaxTokens, &c.MaxTokens)
	}
	switch {
	case err != nil:
		return Config{}, err
	case c.Family != "bert" && c.Family != "roberta":
		return Config{}, fmt.Errorf("%s %q: want bert or roberta", gguf.KeyEncoderFamily, c.Family)
	case c.Embed%c.Heads != 0:
		return Config{}, fmt.Errorf("bert.attention.head_count %d does not divide embedding_length %d", c.Heads, c.Embed)
	case c.MaxTokens > c.Positions:
		return Config{}, fmt.Errorf("%s %d exceeds the %d positions", gguf.KeyEncoderMaxTokens, c.MaxTokens, c.Positions)
	case !(c.Eps > 0 && c.Eps < 1):
		return Config{}, fmt.Errorf("bert.attention.layer_norm_epsilon %g out of range", c.Eps)
	}
	if t, ok := f.Tensor("token_embd.weight"); ok && len(t.Shape) == 2 {
		c.Vocab = int(t.Shape[1])
	}
	if t, ok := f.Tensor("token_types.weight"); ok && len(t.Shape) == 2 {
		c.Types = int(t.Shape[1])
	}
	if c.Vocab == 0 || c.Types == 0 {
		return Config{}, fmt.Errorf("tensor token_embd.weight or token_types.weight is missing or not 2-D")
	}
	return c, c.checkTensors(f)
}

// checkTensors verifies the name, shape and type of every tensor.
func (c Config) checkTensors(f *gguf.File) error {
	want := map[string][]uint64{}
	for _, w := range ggml.EncoderWeights(c.params()) {
		want[w.Name] = w.Shape
	}
	for _, t := range f.Tensors {
		shape, ok := want[t.Name]
		switch {
		case !ok:
			return fmt.Errorf("unexpected tensor %s (%d layers)", t.Name, c.Layers)
		case !slices.Contains(supportedTypes, t.Type):
			return fmt.Errorf("tensor %s has unsupported type %s (F32, F16, BF16 or Q8_0)", t.Name, t.Type)
		case !slices.Equal(t.Shape, shape):
			return fmt.Errorf("tensor %s has shape %v, the metadata implies %v", t.Name, t.Shape, shape)
		case len(shape) == 1 && t.Type != gguf.TypeF32:
			return fmt.Errorf("tensor %s is %s; norms and biases must be F32", t.Name, t.Type)
		}
		delete(want, t.Name)
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	}) {
		return fmt.Errorf("tensor %s is missing (%d layers)", name, c.Layers)
	}
	return nil
}

// params converts the configuration to the backend's parameters.
func (c Config) params() ggml.EncoderParams {
	return ggml.EncoderParams{Layers: c.Layers, Embed: c.Embed, Heads: c.Heads, FFN: c.FFN,
		Vocab: c.Vocab, Types: c.Types, Positions: c.Positions, Eps: float32(c.Eps)}
}
