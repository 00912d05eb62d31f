package tokenizer

import (
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
	"unicode"
)

// Loading a Hugging Face model folder whose tokenizer is given by older
// vocabulary files: the tokenizer.json equivalent that transformers builds
// from them is written out and loaded like any tokenizer.json.

// FromHFDir loads the tokenizer of a Hugging Face model folder: its
// tokenizer.json when there is one; else vocab.json + merges.txt, a
// byte-level BPE as transformers' RobertaTokenizer builds it (<s> … </s>
// around a sequence; GPT2Tokenizer: nothing) — the layout of RoBERTa and
// UniXcoder; else vocab.txt, BERT's WordPiece as BertTokenizer builds it
// ([CLS] … [SEP]). tokenizer_config.json and special_tokens_map.json give
// the special tokens and options (do_lower_case, strip_accents,
// tokenize_chinese_chars, add_prefix_space, added_tokens_decoder), and
// added_tokens.json further tokens; they also set BOS, EOS and the padding
// token of a tokenizer.json.
func FromHFDir(dir string) (*Tokenizer, error) {
	cfg, err := readHFConfig(dir)
	if err != nil {
		return nil, err
	}
	var t *Tokenizer
	switch {
	case exists(filepath.Join(dir, "tokenizer.json")):
		if t, err = FromJSON(filepath.Join(dir, "tokenizer.json")); err != nil {
			return nil, err
		}
	case exists(filepath.Join(dir, "vocab.json")) && exists(filepath.Join(dir, "merges.txt")):
		t, err = byteLevelFromFiles(dir, cfg)
	case exists(filepath.Join(dir, "vocab.txt")):
		t, err = wordPieceFromFile(dir, cfg)
	default:
		return nil, fmt.Errorf("%s: no tokenizer.json, vocab.json + merges.txt or vocab.txt", dir)
	}
	if err != nil {
		return nil, err
	}
	cfg.apply(t)
	return t, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// specialNames are transformers' special-token attributes, in the order it
// adds them.
var specialNames = []string{"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}

// hfConfig is what tokenizer_config.json, special_tokens_map.json and
// added_tokens.json say.
type hfConfig struct {
	class                                string
	lower, stripAccents, chinese, prefix *bool
	special                              map[string]addedToken // by attribute name ("bos_token")
	decoder                              []addedToken          // added_tokens_decoder, by id
	extra                                []addedToken          // added_tokens.json, by id
	files                                []string              // the files read, for Hash
}

func readJSONFile(path string, v any) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("tokenizer: %v", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("%s: %v", path, err)
	}
	return true, nil
}

func readHFConfig(dir string) (*hfConfig, error) {
	cfg := &hfConfig{special: map[string]addedToken{}}
	var tc struct {
		Class          string                `json:"tokenizer_class"`
		Lower          *bool                 `json:"do_lower_case"`
		StripAccents   *bool                 `json:"strip_accents"`
		Chinese        *bool                 `json:"tokenize_chinese_chars"`
		AddPrefixSpace *bool                 `json:"add_prefix_space"`
		Decoder        map[string]addedToken `json:"added_tokens_decoder"`
	}
	for _, name := range []string{"special_tokens_map.json", "tokenizer_config.json"} {
		path := filepath.Join(dir, name)
		var raw map[string]json.RawMessage
		ok, err := readJSONFile(path, &raw)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		cfg.files = append(cfg.files, path)
		for _, attr := range specialNames {
			if v, ok := raw[attr]; ok {
				tok, ok, err := specialToken(v)
				if err != nil {
					return nil, fmt.Errorf("%s: %s: %v", path, attr, err)
				}
				if ok {
					cfg.special[attr] = tok
				}
			}
		}
		if name == "tokenizer_config.json" {
			if _, err := readJSONFile(path, &tc); err != nil {
				return nil, err
			}
		}
	}
	cfg.class, cfg.lower, cfg.stripAccents, cfg.chinese, cfg.prefix = tc.Class, tc.Lower, tc.StripAccents, tc.Chinese, tc.AddPrefixSpace
	for k, a := range tc.Decoder {
		id, err := strconv.Atoi(k)
		if err != nil || id < 0 || id >= 1<<30 {
			return nil, fmt.Errorf("%s: added_tokens_decoder: bad id %q", filepath.Join(dir, "tokenizer_config.json"), k)
		}
		a.ID = int32(id)
		cfg.decoder = append(cfg.decoder, a)
	}
	slices.SortFunc(cfg.decoder, func(a, b addedToken) int { return int(a.ID - b.ID) })
	var extra map[string]int32
	path := filepath.Join(dir, "added_tokens.json")
	if ok, err := readJSONFile(path, &extra); err != nil {
		return nil, err
	} else if ok {
		cfg.files = append(cfg.files, path)
	}
	for s, id := range extra {
		cfg.extra = append(cfg.extra, addedToken{ID: id, Content: s, Normalized: true})
	}
	slices.SortFunc(cfg.extra, func(a, b addedToken) int { return int(a.ID - b.ID) })
	return cfg, nil
}

// specialToken reads a special token given as a string (AddedToken with
// special=True: not normalised, no stripping) or as an AddedToken object.
func specialToken(raw json.RawMessage) (addedToken, bool, error) {
	if string(raw) == "null" {
		return addedToken{}, false, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return addedToken{Content: s, Special: true}, s != "", nil
	}
	a := addedToken{Special: true}
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, false, fmt.Errorf("want a string or an AddedToken object")
	}
	return a, a.Content != "", nil
}

// content returns the text of a special token, or def when not configured.
func (c *hfConfig) content(attr, def string) string {
	if a, ok := c.special[attr]; ok {
		return a.Content
	}
	return def
}

// added lists the added tokens transformers registers: the configured
// special tokens (defaults for those not configured), added_tokens_decoder
// and added_tokens.json.
func (c *hfConfig) added(defaults map[string]string) []addedToken {
	var out []addedToken
	for _, attr := range specialNames {
		if a, ok := c.special[attr]; ok {
			out = append(out, a)
		} else if d, ok := defaults[attr]; ok {
			out = append(out, addedToken{Content: d, Special: true})
		}
	}
	out = append(out, c.decoder...)
	return append(out, c.extra...)
}

// apply sets BOS, EOS and padding from the configuration where they are
// tokens of t, and mixes the configuration files into the hash.
func (c *hfConfig) apply(t *Tokenizer) {
	id := func(attr string) int32 {
		if a, ok := c.special[attr]; ok {
			if id, ok := t.byText[a.Content]; ok {
				return id
			}
		}
		return -1
	}
	if t.bos < 0 {
		t.bos = id("bos_token")
	}
	if e := id("eos_token"); e >= 0 {
		t.eos = e
		t.eog[e] = true
	}
	if t.pad < 0 {
		t.pad = id("pad_token")
	}
	if len(c.files) > 0 {
		var buf bytes.Buffer
		buf.WriteString(t.hash)
		for _, f := range c.files {
			data, _ := os.ReadFile(f)
			fmt.Fprintf(&buf, "\n%s %d\n", filepath.Base(f), len(data))
			buf.Write(data)
		}
		t.hash = hashBytes(buf.Bytes())
	}
}

// byteLevelFromFiles builds a byte-level BPE from vocab.json and merges.txt.
func byteLevelFromFiles(dir string, cfg *hfConfig) (*Tokenizer, error) {
	vocabPath, mergesPath := filepath.Join(dir, "vocab.json"), filepath.Join(dir, "merges.txt")
	vocabData, err := os.ReadFile(vocabPath)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %v", err)
	}
	vocab, err := parseVocab(vocabData)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", vocabPath, err)
	}
	mergesData, err := os.ReadFile(mergesPath)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %v", err)
	}
	merges, err := mergeLines(fileLines(mergesData))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", mergesPath, err)
	}
	defaults := map[string]string{"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "sep_token": "</s>",
		"pad_token": "<pad>", "cls_token": "<s>", "mask_token": "<mask>"}
	gpt2 := strings.HasPrefix(cfg.class, "GPT2")
	if gpt2 {
		defaults = map[string]string{"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>"}
	}
	added := assignAddedIDs(vocab, cfg.added(defaults))
	doc := map[string]any{
		"version":       "1.0",
		"added_tokens":  added,
		"pre_tokenizer": map[string]any{"type": "ByteLevel", "add_prefix_space": deref(cfg.prefix, false), "use_regex": true},
		"decoder":       map[string]any{"type": "ByteLevel"},
		"model":         map[string]any{"type": "BPE", "vocab": json.RawMessage(vocabData), "merges": merges},
	}
	if !gpt2 {
		find := func(attr string) []any {
			s := cfg.content(attr, defaults[attr])
			for _, a := range added {
				if a.Content == s {
					return []any{s, a.ID}
				}
			}
			return []any{s, -1}
		}
		doc["post_processor"] = map[string]any{"type": "RobertaProcessing", "sep": find("sep_token"), "cls": find("cls_token")}
	}
	return docTokenizer(doc, vocabPath, mergesPath)
}

// wordPieceFromFile builds BERT's tokenizer from vocab.txt (one token a
// line, id = line number, trailing white space trimmed).
func wordPieceFromFile(dir string, cfg *hfConfig) (*Tokenizer, error) {
	path := filepath.Join(dir, "vocab.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %v", err)
	}
	vocab := map[string]int32{}
	for i, l := range fileLines(data) {
		vocab[strings.TrimRightFunc(l, unicode.IsSpace)] = int32(i)
	}
	defaults := map[string]string{"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]",
		"mask_token": "[MASK]"}
	added := assignAddedIDs(vocab, cfg.added(defaults))
	idOf := func(attr string) int32 {
		s := cfg.content(attr, defaults[attr])
		for _, a := range added {
			if a.Content == s {
				return a.ID
			}
		}
		return -1
	}
	cls, sep := cfg.content("cls_token", "[CLS]"), cfg.content("sep_token", "[SEP]")
	doc := map[string]any{
		"version":      "1.0",
		"added_tokens": added,
		"normalizer": map[string]any{"type": "BertNormalizer", "clean_text": true,
			"handle_chinese_chars": deref(cfg.chinese, true), "strip_accents": cfg.stripAccents,
			"lowercase": deref(cfg.lower, true)},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"model": map[string]any{"type": "WordPiece", "vocab": vocab, "unk_token": cfg.content("unk_token", "[UNK]"),
			"continuing_subword_prefix": "##", "max_input_chars_per_word": 100},
		"post_processor": map[string]any{"type": "TemplateProcessing",
			"single": []any{
				map[string]any{"SpecialToken": map[string]any{"id": cls}},
				map[string]any{"Sequence": map[string]any{"id": "A"}},
				map[string]any{"SpecialToken": map[string]any{"id": sep}}},
			"special_tokens": map[string]any{
				cls: map[string]any{"id": cls, "ids": []int32{idOf("cls_token")}},
				sep: map[string]any{"id": sep, "ids": []int32{idOf("sep_token")}}}},
		"decoder": map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
	}
	return docTokenizer(doc, path)
}

// docTokenizer loads a built tokenizer.json document; errors name the
// source files.
func docTokenizer(doc map[string]any, files ...string) (*Tokenizer, error) {
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", strings.Join(files, " + "), err)
	}
	t, err := parseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", strings.Join(files, " + "), err)
	}
	return t, nil
}

// fileLines splits a text file into lines as Rust's BufRead::lines: at
// "\n", a "\r" before it removed, no empty last line after a final "\n".
func fileLines(data []byte) []string {
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}
