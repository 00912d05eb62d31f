package convert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"actor/tokenizer"
)

// Encoders keep their tokenizer as a tokenizer.json text in the GGUF key
// KeyTokenizerJSON. A folder with tokenizer.json stores it verbatim; a
// folder with only the slow tokenizer's files (BERT's vocab.txt, RoBERTa's
// vocab.json + merges.txt, as microsoft/unixcoder-base ships) gets the
// tokenizer.json that transformers' convert_slow_tokenizer would build
// (BertConverter, RobertaConverter). Either way the text is parsed by
// package tokenizer before it is written, so a file that converts loads.

// hfTokenConfig is what tokenizer_config.json says about special tokens.
type hfTokenConfig struct {
	DoLowerCase          *bool              `json:"do_lower_case"`
	TokenizeChineseChars *bool              `json:"tokenize_chinese_chars"`
	StripAccents         *bool              `json:"strip_accents"`
	AddPrefixSpace       *bool              `json:"add_prefix_space"`
	AddBOSToken          *bool              `json:"add_bos_token"`
	AddEOSToken          *bool              `json:"add_eos_token"`
	Tokens               map[string]any     `json:"-"`
	AddedTokensDecoder   map[string]hfAdded `json:"added_tokens_decoder"`
}

// hfAdded is an added token as tokenizer_config.json and tokenizer.json
// spell it.
type hfAdded struct {
	ID         int32  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// readTokenConfig reads tokenizer_config.json and special_tokens_map.json
// (both optional); special token names ("cls_token") map to their text.
func readTokenConfig(dir string) (hfTokenConfig, error) {
	var tc hfTokenConfig
	tc.Tokens = map[string]any{}
	for _, name := range []string{"special_tokens_map.json", "tokenizer_config.json"} {
		path := filepath.Join(dir, name)
		raw, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return tc, err
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return tc, fmt.Errorf("%s: %v", path, err)
		}
		for k, v := range m {
			if strings.HasSuffix(k, "_token") {
				tc.Tokens[k] = v
			}
		}
		if name == "tokenizer_config.json" {
			if err := json.Unmarshal(raw, &tc); err != nil {
				return tc, fmt.Errorf("%s: %v", path, err)
			}
		}
	}
	return tc, nil
}

// token returns the text of a special token ("cls_token"), written either
// as a string or as an AddedToken object; def when absent.
func (tc hfTokenConfig) token(name, def string) string {
	switch v := tc.Tokens[name].(type) {
	case string:
		return v
	case map[string]any:
		if s, ok := v["content"].(string); ok {
			return s
		}
	}
	return def
}

// encoderTokenizerJSON returns the tokenizer.json text for an encoder of
// the given family ("bert" or "roberta") in dir.
func encoderTokenizerJSON(dir, family string) (string, error) {
	path := filepath.Join(dir, "tokenizer.json")
	raw, err := os.ReadFile(path)
	switch {
	case err == nil:
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	case family == "bert":
		raw, err = bertTokenizerJSON(dir)
	default:
		raw, err = robertaTokenizerJSON(dir)
	}
	if err != nil {
		return "", err
	}
	if _, err := tokenizer.ParseJSON(raw, path); err != nil {
		return "", err
	}
	return string(raw), nil
}

// bertTokenizerJSON builds BertConverter's tokenizer.json from vocab.txt.
func bertTokenizerJSON(dir string) ([]byte, error) {
	path := filepath.Join(dir, "vocab.txt")
	lines, err := readLines(path)
	if err != nil {
		return nil, fmt.Errorf("%s: neither tokenizer.json nor vocab.txt: %w", dir, err)
	}
	vocab := make(map[string]int32, len(lines))
	for i, l := range lines {
		vocab[l] = int32(i) // a repeated line takes the later id, as BertTokenizer's load_vocab
	}
	tc, err := readTokenConfig(dir)
	if err != nil {
		return nil, err
	}
	cls, sep := tc.token("cls_token", "[CLS]"), tc.token("sep_token", "[SEP]")
	unk := tc.token("unk_token", "[UNK]")
	specials := []string{tc.token("pad_token", "[PAD]"), unk, cls, sep, tc.token("mask_token", "[MASK]")}
	added, err := addedTokens(tc, vocab, specials)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, s := range []string{cls, sep} {
		if _, ok := vocab[s]; !ok {
			return nil, fmt.Errorf("%s: special token %q is not in the vocabulary", path, s)
		}
	}
	return marshal(map[string]any{
		"version":      "1.0",
		"added_tokens": added,
		"normalizer": map[string]any{
			"type": "BertNormalizer", "clean_text": true,
			"handle_chinese_chars": deref(tc.TokenizeChineseChars, true),
			"strip_accents":        tc.StripAccents, // null: follows lowercase
			"lowercase":            deref(tc.DoLowerCase, true),
		},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"model": map[string]any{
			"type": "WordPiece", "unk_token": unk, "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": vocab,
		},
		"post_processor": map[string]any{
			"type": "BertProcessing", "sep": []any{sep, vocab[sep]}, "cls": []any{cls, vocab[cls]},
		},
		"decoder": map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
	})
}

// robertaTokenizerJSON builds RobertaConverter's tokenizer.json from
// vocab.json and merges.txt.
func robertaTokenizerJSON(dir string) ([]byte, error) {
	vpath := filepath.Join(dir, "vocab.json")
	raw, err := os.ReadFile(vpath)
	if err != nil {
		return nil, fmt.Errorf("%s: neither tokenizer.json nor vocab.json + merges.txt: %w", dir, err)
	}
	var vocab map[string]int32
	if err := json.Unmarshal(raw, &vocab); err != nil {
		return nil, fmt.Errorf("%s: %v", vpath, err)
	}
	merges, err := readLines(filepath.Join(dir, "merges.txt"))
	if err != nil {
		return nil, err
	}
	merges = slices.DeleteFunc(merges, func(l string) bool { return strings.HasPrefix(l, "#version") || l == "" })
	tc, err := readTokenConfig(dir)
	if err != nil {
		return nil, err
	}
	cls, sep := tc.token("cls_token", "<s>"), tc.token("sep_token", "</s>")
	specials := []string{cls, tc.token("pad_token", "<pad>"), sep, tc.token("unk_token", "<unk>"), tc.token("mask_token", "<mask>")}
	added, err := addedTokens(tc, vocab, specials)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", vpath, err)
	}
	for _, s := range []string{cls, sep} {
		if _, ok := vocab[s]; !ok {
			return nil, fmt.Errorf("%s: special token %q is not in the vocabulary", vpath, s)
		}
	}
	prefix := deref(tc.AddPrefixSpace, false)
	return marshal(map[string]any{
		"version":       "1.0",
		"added_tokens":  added,
		"normalizer":    nil,
		"pre_tokenizer": map[string]any{"type": "ByteLevel", "add_prefix_space": prefix, "trim_offsets": true, "use_regex": true},
		"model": map[string]any{
			"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": "",
			"end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false, "vocab": vocab, "merges": merges,
		},
		"post_processor": map[string]any{
			"type": "RobertaProcessing", "sep": []any{sep, vocab[sep]}, "cls": []any{cls, vocab[cls]},
			"trim_offsets": true, "add_prefix_space": prefix,
		},
		"decoder": map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
	})
}

// addedTokens lists the added tokens: tokenizer_config.json's
// added_tokens_decoder when present, otherwise the special tokens that are
// in the vocabulary (as transformers 5 adds them: no lstrip, not
// normalised).
func addedTokens(tc hfTokenConfig, vocab map[string]int32, specials []string) ([]hfAdded, error) {
	var out []hfAdded
	if len(tc.AddedTokensDecoder) > 0 {
		for key, a := range tc.AddedTokensDecoder {
			id, err := strconv.ParseInt(key, 10, 32)
			if err != nil || id < 0 {
				return nil, fmt.Errorf("added_tokens_decoder key %q is not a token id", key)
			}
			a.ID = int32(id)
			out = append(out, a)
		}
	} else {
		for _, s := range specials {
			if id, ok := vocab[s]; ok {
				out = append(out, hfAdded{ID: id, Content: s, Special: true})
			}
		}
	}
	slices.SortFunc(out, func(a, b hfAdded) int { return int(a.ID - b.ID) })
	return out, nil
}

// marshal writes JSON without HTML escaping (token texts such as "<s>"
// stay readable).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// readLines returns the lines of a text file without their line ends.
func readLines(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, len(raw)+1)
	for sc.Scan() {
		out = append(out, strings.TrimSuffix(sc.Text(), "\r"))
	}
	return out, sc.Err()
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
