package tokenizer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"unicode/utf8"
)

// Loading tokenizer.json, the serialised form of a Hugging Face tokenizer.
// Each kind of component has its struct and builder in a file of its own:
// hfjson_model.go, hfjson_norm.go, hfjson_pretok.go, hfjson_post.go and
// hfjson_decoder.go; hfjson_added.go builds the token tables.

// hfFile is the top level of tokenizer.json.
type hfFile struct {
	Version       string          `json:"version"`
	AddedTokens   []addedToken    `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	Model         json.RawMessage `json:"model"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Decoder       json.RawMessage `json:"decoder"`
	Padding       *struct {
		PadID    *int32 `json:"pad_id"`
		PadToken string `json:"pad_token"`
	} `json:"padding"`
}

// parseComponent decodes one component into the struct of its kind
// (hfModelJSON, hfNormalizerJSON, ...); ok is false for JSON null.
func parseComponent[T any](raw json.RawMessage) (c T, ok bool, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return c, false, nil
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return c, false, err
	}
	return c, true, nil
}

// FromJSON loads a tokenizer.json file. Supported are the BPE (byte
// fallback, ignore_merges, continuation prefix and end-of-word suffix) and
// WordPiece models; the normalizers BertNormalizer, NFC, NFD, NFKC, NFKD,
// Lowercase, Strip, StripAccents, Replace, Prepend and Sequence; the
// pre-tokenizers ByteLevel, Split, Digits, Metaspace, BertPreTokenizer,
// Whitespace, WhitespaceSplit, Punctuation, CharDelimiterSplit and
// Sequence; the post-processors TemplateProcessing, BertProcessing,
// RobertaProcessing, ByteLevel and Sequence; the decoders ByteLevel,
// WordPiece, Metaspace, ByteFallback, Fuse, Strip, Replace, BPEDecoder and
// Sequence; and added tokens with their single_word, lstrip, rstrip and
// normalized flags. Anything else is an error naming the file.
func FromJSON(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %v", err)
	}
	return ParseJSON(data, path)
}

// ParseJSON builds a tokenizer from the contents of a tokenizer.json; name
// (the file's path) is used in error messages.
func ParseJSON(data []byte, name string) (*Tokenizer, error) {
	t, err := parseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return t, nil
}

func parseJSON(data []byte) (*Tokenizer, error) {
	var f hfFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json: %v", err)
	}
	if f.Version != "" && f.Version != "1.0" {
		return nil, fmt.Errorf("unknown tokenizer.json version %q", f.Version)
	}
	mc, ok, err := parseComponent[hfModelJSON](f.Model)
	if err != nil || !ok {
		return nil, fmt.Errorf("model: missing or malformed (%v)", err)
	}
	b := &hfBuilder{}
	if b.model, err = b.buildModel(mc); err != nil {
		return nil, fmt.Errorf("model: %v", err)
	}
	p := &hfPipeline{model: b.model}
	if p.norm, err = b.buildNormalizer(f.Normalizer); err != nil {
		return nil, fmt.Errorf("normalizer: %v", err)
	}
	if p.pre, err = b.buildPreTokenizer(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("pre_tokenizer: %v", err)
	}
	p.pre = finishByteLevel(p.pre, b.model)
	if p.dec, err = b.buildDecoder(f.Decoder); err != nil {
		return nil, fmt.Errorf("decoder: %v", err)
	}
	t, err := b.newTokenizer(p, f.AddedTokens)
	if err != nil {
		return nil, err
	}
	if t.post, err = b.buildPost(f.PostProcessor, t); err != nil {
		return nil, fmt.Errorf("post_processor: %v", err)
	}
	if f.Padding != nil {
		if f.Padding.PadID != nil && t.valid(*f.Padding.PadID) {
			t.pad = *f.Padding.PadID
		} else if id, ok := t.byText[f.Padding.PadToken]; ok {
			t.pad = id
		}
	}
	t.bos, t.addBOS = -1, false
	if len(t.post) > 0 && !t.post[0].seq && len(t.post[0].ids) > 0 {
		t.bos, t.addBOS = t.post[0].ids[0], true
	}
	if n := len(t.post); n > 0 && !t.post[n-1].seq && len(t.post[n-1].ids) > 0 {
		t.eos, t.addEOS = t.post[n-1].ids[0], true
	}
	t.hash = hashBytes(append([]byte("actor-tokenizer-hf-v1\n"), data...))
	return t, nil
}

// hashBytes returns the hex sha256 of b.
func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// oneRune returns the single character of s.
func oneRune(s *string, def rune, what string) (rune, error) {
	if s == nil {
		return def, nil
	}
	r, n := utf8.DecodeRuneInString(*s)
	if n == 0 || n != len(*s) {
		return 0, fmt.Errorf("%s %q is not one character", what, *s)
	}
	return r, nil
}
