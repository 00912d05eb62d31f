package convert

import (
	"fmt"
	"strconv"
)

// convertDecoder writes a LlamaForCausalLM ("llama") or Qwen2ForCausalLM
// ("qwen2") checkpoint with llama.cpp's names and keys. Llama's Q and K
// rows (and biases) are permuted per head so that ggml's adjacent-pair
// RoPE equals Hugging Face's rotate_half; Qwen2 is stored as is and run
// with NeoX RoPE. Tied embeddings are written without output.weight.
func convertDecoder(w *writer, arch string) error {
	c := w.ck.cfg()
	h := c.int("hidden_size", 0, true)
	layers := c.int("num_hidden_layers", 0, true)
	heads := c.int("num_attention_heads", 0, true)
	kvHeads := c.int("num_key_value_heads", heads, false)
	ffn := c.int("intermediate_size", 0, true)
	vocab := c.int("vocab_size", 0, true)
	ctx := c.int("max_position_embeddings", 0, true)
	eps := c.num("rms_norm_eps", 1e-6, false)
	act := c.str("hidden_act", "silu")
	tied := c.bool("tie_word_embeddings", false)
	bias := arch == "qwen2" || c.bool("attention_bias", false)
	mlpBias := c.bool("mlp_bias", false)
	sliding := c.bool("use_sliding_window", false)
	headDim := 0
	if heads > 0 {
		headDim = c.int("head_dim", h/heads, false)
	}
	theta, factor := ropeConfig(c)
	if c.err != nil {
		return c.err
	}
	switch {
	case h <= 0 || layers <= 0 || heads <= 0 || ffn <= 0 || vocab <= 0 || ctx <= 0 || headDim <= 0:
		return fmt.Errorf("%s: sizes must be positive", c.path)
	case kvHeads <= 0 || heads%kvHeads != 0:
		return fmt.Errorf("%s: num_key_value_heads %d does not divide num_attention_heads %d", c.path, kvHeads, heads)
	case headDim%2 != 0:
		return fmt.Errorf("%s: head size %d is odd", c.path, headDim)
	case act != "silu":
		return fmt.Errorf("%s: hidden_act %q is not supported (only silu)", c.path, act)
	case mlpBias:
		return fmt.Errorf("%s: mlp_bias is not supported", c.path)
	case sliding:
		return fmt.Errorf("%s: use_sliding_window is not supported", c.path)
	}
	tokKVs, err := decoderTokenizerKVs(w.dir, vocab, w.ck)
	if err != nil {
		return err
	}
	w.ignored = []string{"rotary_emb.inv_freq"}
	if tied {
		w.ignored = append(w.ignored, "lm_head.weight")
	}
	n := 2 + 9*layers
	if bias {
		n += 3 * layers
	}
	if !tied {
		n++
	}
	w.start(arch, F16, n)
	w.kv(arch+".vocab_size", uint32(vocab))
	w.kv(arch+".context_length", uint32(ctx))
	w.kv(arch+".embedding_length", uint32(h))
	w.kv(arch+".block_count", uint32(layers))
	w.kv(arch+".feed_forward_length", uint32(ffn))
	w.kv(arch+".attention.head_count", uint32(heads))
	w.kv(arch+".attention.head_count_kv", uint32(kvHeads))
	w.kv(arch+".rope.dimension_count", uint32(headDim))
	if headDim != h/heads || h%heads != 0 {
		w.kv(arch+".attention.key_length", uint32(headDim))
		w.kv(arch+".attention.value_length", uint32(headDim))
	}
	w.kv(arch+".attention.layer_norm_rms_epsilon", float32(eps))
	w.kv(arch+".rope.freq_base", float32(theta))
	if factor != 1 {
		w.kv(arch+".rope.scaling.type", "linear")
		w.kv(arch+".rope.scaling.factor", float32(factor))
	}
	w.kvs = append(w.kvs, tokKVs...)

	H, F, V := int64(h), int64(ffn), int64(vocab)
	q, kv := int64(heads*headDim), int64(kvHeads*headDim)
	if err := w.copy("token_embd.weight", "model.embed_tokens.weight", matrix, V, H); err != nil {
		return err
	}
	// qk stores a Q or K projection, permuted for Llama.
	qk := func(dst, src string, nHead int, shape ...int64) error {
		data, shape, err := w.read(src, shape...)
		if err != nil {
			return err
		}
		if arch == "llama" {
			data = permuteRows(data, nHead, headDim)
		}
		k := matrix
		if len(shape) == 1 {
			k = vector
		}
		return w.put(dst, data, shape, k)
	}
	for i := range layers {
		s := "model.layers." + strconv.Itoa(i) + "."
		d := "blk." + strconv.Itoa(i) + "."
		steps := []error{
			w.copy(d+"attn_norm.weight", s+"input_layernorm.weight", vector, H),
			qk(d+"attn_q.weight", s+"self_attn.q_proj.weight", heads, q, H),
			qk(d+"attn_k.weight", s+"self_attn.k_proj.weight", kvHeads, kv, H),
			w.copy(d+"attn_v.weight", s+"self_attn.v_proj.weight", matrix, kv, H),
			w.copy(d+"attn_output.weight", s+"self_attn.o_proj.weight", matrix, H, q),
		}
		if bias {
			steps = append(steps,
				qk(d+"attn_q.bias", s+"self_attn.q_proj.bias", heads, q),
				qk(d+"attn_k.bias", s+"self_attn.k_proj.bias", kvHeads, kv),
				w.copy(d+"attn_v.bias", s+"self_attn.v_proj.bias", vector, kv))
		}
		steps = append(steps,
			w.copy(d+"ffn_norm.weight", s+"post_attention_layernorm.weight", vector, H),
			w.copy(d+"ffn_gate.weight", s+"mlp.gate_proj.weight", matrix, F, H),
			w.copy(d+"ffn_up.weight", s+"mlp.up_proj.weight", matrix, F, H),
			w.copy(d+"ffn_down.weight", s+"mlp.down_proj.weight", matrix, H, F))
		for _, err := range steps {
			if err != nil {
				return err
			}
		}
	}
	if err := w.copy("output_norm.weight", "model.norm.weight", vector, H); err != nil {
		return err
	}
	if !tied {
		return w.copy("output.weight", "lm_head.weight", matrix, V, H)
	}
	return nil
}

// ropeConfig reads the RoPE base and linear scaling factor, from
// transformers 5's rope_parameters or the older rope_theta and
// rope_scaling; other scalings are refused.
func ropeConfig(c *cfg) (theta, factor float64) {
	theta, factor = c.num("rope_theta", 10000, false), 1
	scaling, _ := c.m["rope_scaling"].(map[string]any)
	if p, ok := c.m["rope_parameters"].(map[string]any); ok {
		scaling = p
		if t, ok := p["rope_theta"].(float64); ok {
			theta = t
		}
	} else if v, ok := c.m["rope_scaling"]; ok && v != nil && scaling == nil {
		c.fail("rope_scaling is %v, not an object", v)
	}
	if scaling == nil {
		return theta, factor
	}
	typ, _ := scaling["rope_type"].(string)
	if typ == "" {
		typ, _ = scaling["type"].(string)
	}
	switch typ {
	case "", "default":
	case "linear":
		f, ok := scaling["factor"].(float64)
		if !ok || !(f > 0) {
			c.fail("linear RoPE scaling needs a positive factor")
			return theta, factor
		}
		factor = f
	default:
		c.fail("RoPE scaling %q is not supported (only linear)", typ)
	}
	if !(theta > 0) {
		c.fail("rope_theta %v must be positive", theta)
	}
	return theta, factor
}

// permuteRows reorders the rows of a Q or K projection (nHead heads of
// headDim rows) as llama.cpp's converter does: within each head, row
// half*headDim/2 + i moves to 2i + half. ggml's adjacent-pair RoPE then
// computes what Hugging Face's rotate_half computes on the original.
func permuteRows(w []float32, nHead, headDim int) []float32 {
	cols := len(w) / (nHead * headDim)
	out := make([]float32, len(w))
	half := headDim / 2
	for h := range nHead {
		for p := range 2 {
			for i := range half {
				src := (h*headDim + p*half + i) * cols
				dst := (h*headDim + 2*i + p) * cols
				copy(out[dst:dst+cols], w[src:src+cols])
			}
		}
	}
	return out
}
