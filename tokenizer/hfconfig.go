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
)

// The configuration files of a Hugging Face model folder:
// tokenizer_config.json, special_tokens_map.json and added_tokens.json.

// specialNames are transformers' special-token attributes, in the order it
// adds them.
var specialNames = []string{"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}

// hfConfig is what tokenizer_config.json, special_tokens_map.json and
// added_tokens.json say.
type hfConfig struct {
	class                                string
	lower, stripAccents, chinese, prefix *bool
	addBOS, addEOS                       *bool                 // add_bos_token, add_eos_token
	special                              map[string]addedToken // by attribute name ("bos_token")
	decoder                              []addedToken          // added_tokens_decoder, by id
	extra                                []addedToken          // added_tokens.json, by id
	files                                []string              // the files read, for Hash
}

// readJSONFile decodes a JSON file into v; false when there is no file.
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

// readHFConfig reads the tokenizer configuration files of dir, each
// optional.
func readHFConfig(dir string) (*hfConfig, error) {
	cfg := &hfConfig{special: map[string]addedToken{}}
	var tc struct {
		Class          string                `json:"tokenizer_class"`
		Lower          *bool                 `json:"do_lower_case"`
		StripAccents   *bool                 `json:"strip_accents"`
		Chinese        *bool                 `json:"tokenize_chinese_chars"`
		AddPrefixSpace *bool                 `json:"add_prefix_space"`
		AddBOS         *bool                 `json:"add_bos_token"`
		AddEOS         *bool                 `json:"add_eos_token"`
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
	cfg.addBOS, cfg.addEOS = tc.AddBOS, tc.AddEOS
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

// HFSpecialTokens is what the tokenizer_config.json and
// special_tokens_map.json of a Hugging Face model folder say about special
// tokens, read as FromHFDir reads them.
type HFSpecialTokens struct {
	// Text maps a configured special-token attribute ("bos_token",
	// "eos_token", "unk_token", "sep_token", "pad_token", "cls_token",
	// "mask_token") to its token's text.
	Text map[string]string
	// AddBOS and AddEOS are add_bos_token and add_eos_token, nil when unset.
	AddBOS, AddEOS *bool
}

// ReadHFSpecialTokens reads the special tokens configured in dir; both
// files are optional.
func ReadHFSpecialTokens(dir string) (HFSpecialTokens, error) {
	cfg, err := readHFConfig(dir)
	if err != nil {
		return HFSpecialTokens{}, err
	}
	out := HFSpecialTokens{Text: map[string]string{}, AddBOS: cfg.addBOS, AddEOS: cfg.addEOS}
	for attr, a := range cfg.special {
		out.Text[attr] = a.Content
	}
	return out, nil
}
