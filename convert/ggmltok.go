package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"actor/gguf"
	"actor/tokenizer"
)

// Decoders keep their tokenizer the way llama.cpp's converter writes it,
// as tokenizer.ggml.* metadata that package tokenizer's FromGGUF reads: a
// byte-level BPE ("gpt2") vocabulary with token types and merges, and the
// pre-tokenizer named by tokenizer.ggml.pre, recognised from the
// pre_tokenizer of tokenizer.json.

// Token types of tokenizer.ggml.token_type (llama.cpp's llama_token_type).
const (
	tokNormal      int32 = 1
	tokControl     int32 = 3
	tokUserDefined int32 = 4
	tokUnused      int32 = 5
)

// preTokenizers maps the canonical form of a tokenizer.json pre_tokenizer
// (see preSignature) to llama.cpp's name for it.
var preTokenizers = map[string]string{
	"ByteLevel(regex)":                    "gpt-2",
	"Digits(individual) ByteLevel(regex)": "smollm", // StarCoder, SmolLM
	"Split(" + `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+` + ") ByteLevel":      "qwen2",
	"Split(" + `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+` + ") ByteLevel": "llama-bpe",
	"Split([\r\n]) Split(" + `\s?\p{L}+` + ") Split(" + `\s?\p{P}+` + ") Split([一-龥ࠀ-一가-퟿]+) Digits(individual) ByteLevel":                           "deepseek-coder",
}

// hfPre is the part of a pre-tokenizer component the signature reads.
type hfPre struct {
	Type    string `json:"type"`
	Pattern *struct {
		Regex  *string `json:"Regex"`
		String *string `json:"String"`
	} `json:"pattern"`
	Behavior         string            `json:"behavior"`
	Invert           bool              `json:"invert"`
	IndividualDigits bool              `json:"individual_digits"`
	AddPrefixSpace   bool              `json:"add_prefix_space"`
	UseRegex         *bool             `json:"use_regex"`
	PreTokenizers    []json.RawMessage `json:"pretokenizers"`
}

// preSignature writes a pre_tokenizer as a space-separated list of steps,
// e.g. "Digits(individual) ByteLevel(regex)".
func preSignature(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var p hfPre
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", err
	}
	switch p.Type {
	case "Sequence":
		var parts []string
		for _, r := range p.PreTokenizers {
			s, err := preSignature(r)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, " "), nil
	case "ByteLevel":
		s := "ByteLevel"
		if p.AddPrefixSpace {
			s += "(prefix)"
		}
		if deref(p.UseRegex, true) {
			s += "(regex)"
		}
		return s, nil
	case "Digits":
		if p.IndividualDigits {
			return "Digits(individual)", nil
		}
		return "Digits", nil
	case "Split":
		if p.Pattern == nil || p.Pattern.Regex == nil || p.Behavior != "Isolated" || p.Invert {
			return fmt.Sprintf("Split(%s)", string(raw)), nil
		}
		return "Split(" + *p.Pattern.Regex + ")", nil
	}
	return p.Type, nil
}

// hfDecoderTokenizer is the part of a decoder's tokenizer.json converted.
type hfDecoderTokenizer struct {
	AddedTokens []struct {
		ID      int32  `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor *struct {
		Type   string `json:"type"`
		Single []struct {
			SpecialToken *struct {
				ID string `json:"id"`
			} `json:"SpecialToken"`
		} `json:"single"`
	} `json:"post_processor"`
	Model struct {
		Type   string           `json:"type"`
		Vocab  map[string]int32 `json:"vocab"`
		Merges json.RawMessage  `json:"merges"`
	} `json:"model"`
}

// decoderTokenizerKVs reads dir/tokenizer.json (and tokenizer_config.json)
// and returns the tokenizer.ggml.* metadata for a model with nVocab
// embedding rows; ids the tokenizer leaves unassigned become "[PADn]"
// tokens of type unused, as llama.cpp's converter pads them.
func decoderTokenizerKVs(dir string, nVocab int, ck *checkpoint) ([]gguf.KV, error) {
	path := filepath.Join(dir, "tokenizer.json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no tokenizer.json (decoders need the fast tokenizer's file)", dir)
	}
	if err != nil {
		return nil, err
	}
	var t hfDecoderTokenizer
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	sig, err := preSignature(t.PreTokenizer)
	if err != nil {
		return nil, fmt.Errorf("%s: pre_tokenizer: %v", path, err)
	}
	if t.Model.Type != "BPE" || !strings.Contains(sig, "ByteLevel") {
		return nil, fmt.Errorf("%s: only byte-level BPE tokenizers are converted (model %s, pre_tokenizer %q)", path, t.Model.Type, sig)
	}
	pre, ok := preTokenizers[sig]
	if !ok {
		return nil, fmt.Errorf("%s: unknown pre_tokenizer %q (known: GPT-2, StarCoder/SmolLM, Qwen2, Llama 3, DeepSeek-Coder)", path, sig)
	}
	merges, err := mergeStrings(t.Model.Merges)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	n := nVocab
	for _, id := range t.Model.Vocab {
		n = max(n, int(id)+1)
	}
	for _, a := range t.AddedTokens {
		n = max(n, int(a.ID)+1)
	}
	if n > nVocab {
		return nil, fmt.Errorf("%s: token ids up to %d, but the model has %d embedding rows", path, n-1, nVocab)
	}
	tokens := make([]string, n)
	types := make([]int32, n)
	for s, id := range t.Model.Vocab {
		if id < 0 {
			return nil, fmt.Errorf("%s: token %q has negative id %d", path, s, id)
		}
		tokens[id], types[id] = s, tokNormal
	}
	for _, a := range t.AddedTokens {
		if a.ID < 0 {
			return nil, fmt.Errorf("%s: added token %q has negative id %d", path, a.Content, a.ID)
		}
		tokens[a.ID], types[a.ID] = a.Content, tokUserDefined
		if a.Special {
			types[a.ID] = tokControl
		}
	}
	for i := range tokens {
		if types[i] == 0 {
			tokens[i], types[i] = fmt.Sprintf("[PAD%d]", i), tokUnused
		}
	}
	kvs := []gguf.KV{
		{Key: "tokenizer.ggml.model", Value: "gpt2"},
		{Key: "tokenizer.ggml.pre", Value: pre},
		{Key: "tokenizer.ggml.tokens", Value: tokens},
		{Key: "tokenizer.ggml.token_type", Value: types},
		{Key: "tokenizer.ggml.merges", Value: merges},
	}
	special, err := specialTokenKVs(dir, tokens, t, ck)
	if err != nil {
		return nil, err
	}
	return append(kvs, special...), nil
}

// mergeStrings returns merges as "a b" strings, from either form
// tokenizer.json uses.
func mergeStrings(raw json.RawMessage) ([]string, error) {
	var lines []string
	if err := json.Unmarshal(raw, &lines); err == nil {
		return lines, nil
	}
	var pairs [][2]string
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, errors.New("model.merges: want strings or pairs of strings")
	}
	lines = make([]string, len(pairs))
	for i, p := range pairs {
		if strings.Contains(p[0], " ") || strings.Contains(p[1], " ") {
			return nil, fmt.Errorf("merge %d (%q, %q) has a space, which GGUF merges cannot hold", i+1, p[0], p[1])
		}
		lines[i] = p[0] + " " + p[1]
	}
	return lines, nil
}

// specialTokenKVs finds the BOS, EOS, UNK and PAD ids (tokenizer_config.json
// texts first, then config.json's *_token_id, as llama.cpp's SpecialVocab)
// and whether BOS / EOS are added (tokenizer_config.json's add_bos_token,
// else whether the post-processor template starts / ends with a special
// token).
func specialTokenKVs(dir string, tokens []string, t hfDecoderTokenizer, ck *checkpoint) ([]gguf.KV, error) {
	tc, err := tokenizer.ReadHFSpecialTokens(dir)
	if err != nil {
		return nil, err
	}
	ids := map[string]int{}
	for i, s := range tokens {
		if _, ok := ids[s]; !ok {
			ids[s] = i
		}
	}
	var kvs []gguf.KV
	for _, typ := range []string{"bos", "eos", "unk", "pad"} {
		id := -1
		if s := tc.Text[typ+"_token"]; s != "" {
			i, ok := ids[s]
			if !ok {
				return nil, fmt.Errorf("%s: %s_token %q is not a token", filepath.Join(dir, "tokenizer_config.json"), typ, s)
			}
			id = i
		} else if v, ok := ck.config[typ+"_token_id"].(float64); ok && v >= 0 && int(v) < len(tokens) {
			id = int(v)
		}
		if id >= 0 {
			kvs = append(kvs, gguf.KV{Key: "tokenizer.ggml." + typ + "_token_id", Value: uint32(id)})
		}
	}
	addBOS, addEOS := false, false
	if p := t.PostProcessor; p != nil && p.Type == "TemplateProcessing" && len(p.Single) > 0 {
		addBOS = p.Single[0].SpecialToken != nil
		addEOS = len(p.Single) > 1 && p.Single[len(p.Single)-1].SpecialToken != nil
	}
	kvs = append(kvs,
		gguf.KV{Key: "tokenizer.ggml.add_bos_token", Value: deref(tc.AddBOS, addBOS)},
		gguf.KV{Key: "tokenizer.ggml.add_eos_token", Value: deref(tc.AddEOS, addEOS)})
	return kvs, nil
}
