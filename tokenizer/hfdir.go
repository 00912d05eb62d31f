package tokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	data, name, err := hfDirJSON(dir, cfg)
	if err != nil {
		return nil, err
	}
	t, err := ParseJSON(data, name)
	if err != nil {
		return nil, err
	}
	cfg.apply(t)
	return t, nil
}

// HFDirJSON returns the tokenizer.json text of the tokenizer FromHFDir
// loads from dir: the folder's tokenizer.json as it is, else the document
// built from its vocabulary files. The text is checked to load; what the
// configuration files add to a tokenizer.json (BOS, EOS, padding) is not in
// it.
func HFDirJSON(dir string) ([]byte, error) {
	cfg, err := readHFConfig(dir)
	if err != nil {
		return nil, err
	}
	data, name, err := hfDirJSON(dir, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := ParseJSON(data, name); err != nil {
		return nil, err
	}
	return data, nil
}

// hfDirJSON returns the tokenizer.json text of dir and the name of the
// files it comes from, for error messages.
func hfDirJSON(dir string, cfg *hfConfig) ([]byte, string, error) {
	var doc map[string]any
	var files []string
	var err error
	switch {
	case exists(filepath.Join(dir, "tokenizer.json")):
		path := filepath.Join(dir, "tokenizer.json")
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, "", fmt.Errorf("tokenizer: %v", err)
		}
		return data, path, nil
	case exists(filepath.Join(dir, "vocab.json")) && exists(filepath.Join(dir, "merges.txt")):
		files = []string{filepath.Join(dir, "vocab.json"), filepath.Join(dir, "merges.txt")}
		doc, err = byteLevelDoc(files[0], files[1], cfg)
	case exists(filepath.Join(dir, "vocab.txt")):
		files = []string{filepath.Join(dir, "vocab.txt")}
		doc, err = wordPieceDoc(files[0], cfg)
	default:
		return nil, "", fmt.Errorf("%s: no tokenizer.json, vocab.json + merges.txt or vocab.txt", dir)
	}
	if err != nil {
		return nil, "", err
	}
	name := strings.Join(files, " + ")
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false) // token texts such as "<s>" stay readable
	if err := e.Encode(doc); err != nil {
		return nil, "", fmt.Errorf("%s: %v", name, err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), name, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// byteLevelDoc builds the tokenizer.json of a byte-level BPE from
// vocab.json and merges.txt.
func byteLevelDoc(vocabPath, mergesPath string, cfg *hfConfig) (map[string]any, error) {
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
	return doc, nil
}

// wordPieceDoc builds the tokenizer.json of BERT's tokenizer from
// vocab.txt (one token a line, id = line number, trailing white space
// trimmed).
func wordPieceDoc(path string, cfg *hfConfig) (map[string]any, error) {
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
	return doc, nil
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
