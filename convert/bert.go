package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"actor/gguf"
)

// convertEncoder writes a BertModel or RobertaModel (family "bert" or
// "roberta") as llama.cpp's "bert" architecture. RoBERTa numbers positions
// from padding_idx+1 (UniXcoder: 2, with 1026 position embeddings); its
// first padding_idx+1 rows are never used and are dropped, so both
// families read positions 0, 1, 2, … and have the same graph.
func convertEncoder(w *writer, family string) error {
	c := w.ck.cfg()
	h := c.int("hidden_size", 0, true)
	layers := c.int("num_hidden_layers", 0, true)
	heads := c.int("num_attention_heads", 0, true)
	ffn := c.int("intermediate_size", 0, true)
	nPos := c.int("max_position_embeddings", 0, true)
	nTypes := c.int("type_vocab_size", 2, false)
	vocab := c.int("vocab_size", 0, true)
	eps := c.num("layer_norm_eps", 1e-12, false)
	act := c.str("hidden_act", "gelu")
	posType := c.str("position_embedding_type", "absolute")
	decoder := c.bool("is_decoder", false)
	pad := c.int("pad_token_id", 1, false)
	if c.err != nil {
		return c.err
	}
	switch {
	case h <= 0 || layers <= 0 || heads <= 0 || ffn <= 0 || vocab <= 0 || nTypes <= 0:
		return fmt.Errorf("%s: sizes must be positive", c.path)
	case h%heads != 0:
		return fmt.Errorf("%s: num_attention_heads %d does not divide hidden_size %d", c.path, heads, h)
	case act != "gelu":
		return fmt.Errorf("%s: hidden_act %q is not supported (only gelu, the erf form)", c.path, act)
	case posType != "absolute":
		return fmt.Errorf("%s: position_embedding_type %q is not supported (only absolute)", c.path, posType)
	case decoder:
		return fmt.Errorf("%s: is_decoder is set; only bidirectional encoders are converted", c.path)
	}
	skip := 0 // position rows never used
	if family == "roberta" {
		skip = pad + 1
	}
	if nPos <= skip {
		return fmt.Errorf("%s: max_position_embeddings %d leaves no positions after padding_idx %d", c.path, nPos, pad)
	}
	tokJSON, err := encoderTokenizerJSON(w.dir)
	if err != nil {
		return err
	}
	maxTokens, err := sentenceMaxLength(w.dir, nPos-skip)
	if err != nil {
		return err
	}
	pre := ""
	for _, p := range []string{"bert.", "roberta."} {
		if w.ck.has(p + "embeddings.word_embeddings.weight") {
			pre = p
		}
	}
	w.ignored = []string{"embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias"}
	w.start("bert", F32, 5+16*layers)
	w.kv("bert.context_length", uint32(nPos-skip))
	w.kv("bert.embedding_length", uint32(h))
	w.kv("bert.feed_forward_length", uint32(ffn))
	w.kv("bert.block_count", uint32(layers))
	w.kv("bert.attention.head_count", uint32(heads))
	w.kv("bert.attention.layer_norm_epsilon", float32(eps))
	w.kv("bert.attention.causal", false)
	w.kv(gguf.KeyEncoderFamily, family)
	w.kv(gguf.KeyEncoderMaxTokens, uint32(maxTokens))
	w.kv(gguf.KeyTokenizerJSON, tokJSON)

	H, F := int64(h), int64(ffn)
	e := pre + "embeddings."
	pos, _, err := w.read(e+"position_embeddings.weight", int64(nPos), H)
	if err != nil {
		return err
	}
	steps := []func() error{
		func() error { return w.copy("token_embd.weight", e+"word_embeddings.weight", matrix, int64(vocab), H) },
		func() error {
			return w.put("position_embd.weight", pos[skip*h:], []int64{int64(nPos - skip), H}, table)
		},
		func() error {
			return w.copy("token_types.weight", e+"token_type_embeddings.weight", table, int64(nTypes), H)
		},
		func() error { return w.copy("token_embd_norm.weight", e+"LayerNorm.weight", vector, H) },
		func() error { return w.copy("token_embd_norm.bias", e+"LayerNorm.bias", vector, H) },
	}
	for i := range layers {
		src := pre + "encoder.layer." + strconv.Itoa(i) + "."
		dst := "blk." + strconv.Itoa(i) + "."
		lin := func(d, s string, out, in int64) {
			steps = append(steps,
				func() error { return w.copy(dst+d+".weight", src+s+".weight", matrix, out, in) },
				func() error { return w.copy(dst+d+".bias", src+s+".bias", vector, out) })
		}
		norm := func(d, s string) {
			steps = append(steps,
				func() error { return w.copy(dst+d+".weight", src+s+".weight", vector, H) },
				func() error { return w.copy(dst+d+".bias", src+s+".bias", vector, H) })
		}
		lin("attn_q", "attention.self.query", H, H)
		lin("attn_k", "attention.self.key", H, H)
		lin("attn_v", "attention.self.value", H, H)
		lin("attn_output", "attention.output.dense", H, H)
		norm("attn_output_norm", "attention.output.LayerNorm")
		lin("ffn_up", "intermediate.dense", F, H)
		lin("ffn_down", "output.dense", H, F)
		norm("layer_output_norm", "output.LayerNorm")
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

// sentenceMaxLength returns sentence-transformers' max_seq_length from
// sentence_bert_config.json, or def without that file.
func sentenceMaxLength(dir string, def int) (int, error) {
	path := filepath.Join(dir, "sentence_bert_config.json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return def, nil
	}
	if err != nil {
		return 0, err
	}
	var sc struct {
		MaxSeqLength *int `json:"max_seq_length"`
	}
	if err := json.Unmarshal(raw, &sc); err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	if sc.MaxSeqLength == nil {
		return def, nil
	}
	if *sc.MaxSeqLength < 3 || *sc.MaxSeqLength > def {
		return 0, fmt.Errorf("%s: max_seq_length %d outside 3..%d (the position table)", path, *sc.MaxSeqLength, def)
	}
	return *sc.MaxSeqLength, nil
}
