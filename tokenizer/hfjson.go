package tokenizer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Loading tokenizer.json, the serialised form of a Hugging Face tokenizer.

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

// hfComponent holds the fields of every normalizer, pre-tokenizer, model,
// post-processor and decoder this package implements; "type" says which.
type hfComponent struct {
	Type string `json:"type"`
	// Sequence
	Normalizers   []json.RawMessage `json:"normalizers"`
	PreTokenizers []json.RawMessage `json:"pretokenizers"`
	Processors    []json.RawMessage `json:"processors"`
	Decoders      []json.RawMessage `json:"decoders"`
	// BertNormalizer
	CleanText          *bool `json:"clean_text"`
	HandleChineseChars *bool `json:"handle_chinese_chars"`
	StripAccents       *bool `json:"strip_accents"`
	Lowercase          *bool `json:"lowercase"`
	// Strip (normalizer)
	StripLeft  bool `json:"strip_left"`
	StripRight bool `json:"strip_right"`
	// Replace, Split
	Pattern  *hfPattern `json:"pattern"`
	Content  *string    `json:"content"`
	Behavior string     `json:"behavior"`
	Invert   bool       `json:"invert"`
	// Prepend
	Prepend *string `json:"prepend"`
	// ByteLevel
	AddPrefixSpace *bool `json:"add_prefix_space"`
	UseRegex       *bool `json:"use_regex"`
	// Digits
	IndividualDigits bool `json:"individual_digits"`
	// Metaspace
	Replacement   *string `json:"replacement"`
	PrependScheme *string `json:"prepend_scheme"`
	Split         *bool   `json:"split"`
	// CharDelimiterSplit
	Delimiter *string `json:"delimiter"`
	// models
	Vocab                   json.RawMessage `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
	UnkToken                *string         `json:"unk_token"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	FuseUnk                 bool            `json:"fuse_unk"`
	ByteFallback            bool            `json:"byte_fallback"`
	IgnoreMerges            bool            `json:"ignore_merges"`
	MaxInputCharsPerWord    *int            `json:"max_input_chars_per_word"`
	// TemplateProcessing, BertProcessing, RobertaProcessing
	Single        json.RawMessage `json:"single"`
	SpecialTokens map[string]struct {
		IDs []int32 `json:"ids"`
	} `json:"special_tokens"`
	Sep []json.RawMessage `json:"sep"`
	Cls []json.RawMessage `json:"cls"`
	// decoders: WordPiece, Strip, BPEDecoder
	Prefix  *string `json:"prefix"`
	Cleanup *bool   `json:"cleanup"`
	Start   int     `json:"start"`
	Stop    int     `json:"stop"`
	Suffix  *string `json:"suffix"`
}

// parseComponent decodes one component; ok is false for JSON null.
func parseComponent(raw json.RawMessage) (c hfComponent, ok bool, err error) {
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
	mc, ok, err := parseComponent(f.Model)
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

// parseVocab reads a model vocabulary: an object token → id (BPE,
// WordPiece, vocab.json).
func parseVocab(raw json.RawMessage) (map[string]int32, error) {
	var vocab map[string]int32
	if err := json.Unmarshal(raw, &vocab); err != nil {
		return nil, fmt.Errorf("vocab: %v", err)
	}
	if len(vocab) == 0 {
		return nil, fmt.Errorf("vocab is empty")
	}
	// ids index dense tables: a few holes are fine, a sparse vocabulary is not
	limit := 2*int64(len(vocab)) + 256
	for s, id := range vocab {
		if id < 0 || int64(id) >= limit {
			return nil, fmt.Errorf("vocab: token %q has id %d, out of range for %d tokens", s, id, len(vocab))
		}
	}
	return vocab, nil
}

// hfBuilder carries what the components of one file share.
type hfBuilder struct {
	vocab map[string]int32
	model wordModel
}

func (b *hfBuilder) buildModel(c hfComponent) (wordModel, error) {
	typ := c.Type
	if typ == "" { // untagged, as old files are
		switch {
		case c.Merges != nil:
			typ = "BPE"
		case c.MaxInputCharsPerWord != nil:
			typ = "WordPiece"
		}
	}
	if typ != "BPE" && typ != "WordPiece" {
		return nil, fmt.Errorf("unsupported model type %q (want BPE or WordPiece)", c.Type)
	}
	var err error
	if b.vocab, err = parseVocab(c.Vocab); err != nil {
		return nil, err
	}
	switch typ {
	case "BPE":
		merges, err := parseMerges(c.Merges)
		if err != nil {
			return nil, err
		}
		prefix := deref(c.ContinuingSubwordPrefix, "")
		h, err := newHFBPE(b.vocab, len(b.vocab), merges, prefix)
		if err != nil {
			return nil, err
		}
		h.suffix = deref(c.EndOfWordSuffix, "")
		h.fuseUnk, h.byteFallback, h.ignoreMerges = c.FuseUnk, c.ByteFallback, c.IgnoreMerges
		if c.UnkToken != nil {
			id, ok := b.vocab[*c.UnkToken]
			if !ok {
				return nil, fmt.Errorf("unk_token %q is not in the vocabulary", *c.UnkToken)
			}
			h.unk = id
		}
		return h, nil
	default: // WordPiece
		unk := deref(c.UnkToken, "[UNK]")
		id, ok := b.vocab[unk]
		if !ok {
			return nil, fmt.Errorf("unk_token %q is not in the vocabulary", unk)
		}
		maxChars := 100
		if c.MaxInputCharsPerWord != nil {
			maxChars = *c.MaxInputCharsPerWord
		}
		return &wordPiece{vocab: b.vocab, prefix: deref(c.ContinuingSubwordPrefix, "##"), maxChars: maxChars, unk: id}, nil
	}
}

// parseMerges reads BPE merges: ["a b", ...] or [["a", "b"], ...].
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	var pairs [][2]string
	if err := json.Unmarshal(raw, &pairs); err == nil {
		return pairs, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return nil, fmt.Errorf("merges: want strings or pairs of strings")
	}
	return mergeLines(lines)
}

// mergeLines splits merges written "a b" (tokenizer.json, merges.txt):
// exactly one space; lines starting "#version" are skipped.
func mergeLines(lines []string) ([][2]string, error) {
	pairs := make([][2]string, 0, len(lines))
	for _, l := range lines {
		if strings.HasPrefix(l, "#version") {
			continue
		}
		a, b, ok := strings.Cut(l, " ")
		if !ok || strings.Contains(b, " ") {
			return nil, fmt.Errorf("merge %d (%q) is not two tokens separated by one space", len(pairs)+1, l)
		}
		pairs = append(pairs, [2]string{a, b})
	}
	return pairs, nil
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

func (b *hfBuilder) buildNormalizer(raw json.RawMessage) (normalizer, error) {
	c, ok, err := parseComponent(raw)
	if err != nil || !ok {
		return nil, err
	}
	switch c.Type {
	case "Sequence":
		var seq normSeq
		for _, r := range c.Normalizers {
			n, err := b.buildNormalizer(r)
			if err != nil {
				return nil, err
			}
			if n != nil {
				seq = append(seq, n)
			}
		}
		return seq, nil
	case "BertNormalizer":
		lower := deref(c.Lowercase, true)
		return bertNorm{clean: deref(c.CleanText, true), chinese: deref(c.HandleChineseChars, true),
			strip: deref(c.StripAccents, lower), lower: lower}, nil
	case "NFC":
		return unicodeNorm{norm.NFC}, nil
	case "NFD":
		return unicodeNorm{norm.NFD}, nil
	case "NFKC":
		return unicodeNorm{norm.NFKC}, nil
	case "NFKD":
		return unicodeNorm{norm.NFKD}, nil
	case "Lowercase":
		return lowercaseNorm{}, nil
	case "Strip":
		return stripNorm{c.StripLeft, c.StripRight}, nil
	case "StripAccents":
		return stripAccentsNorm{}, nil
	case "Replace":
		f, content, err := replaceParts(c)
		if err != nil {
			return nil, err
		}
		return replaceNorm{f, content}, nil
	case "Prepend":
		if c.Prepend == nil {
			return nil, fmt.Errorf("Prepend without prepend")
		}
		return prependNorm(*c.Prepend), nil
	}
	return nil, fmt.Errorf("unsupported normalizer type %q", c.Type)
}

func replaceParts(c hfComponent) (finder, string, error) {
	if c.Pattern == nil || c.Content == nil {
		return nil, "", fmt.Errorf("Replace needs pattern and content")
	}
	f, err := newFinder(*c.Pattern)
	return f, *c.Content, err
}

func (b *hfBuilder) buildPreTokenizer(raw json.RawMessage) ([]preStep, error) {
	steps, err := b.preSteps(raw)
	if err != nil {
		return nil, err
	}
	// consecutive hand-written matchers share one pass
	var out []preStep
	for _, s := range steps {
		if m, ok := s.(matcherStep); ok && len(out) > 0 {
			if prev, ok := out[len(out)-1].(matcherStep); ok {
				out[len(out)-1] = matcherStep{&pretokenizer{steps: append(prev.p.steps[:len(prev.p.steps):len(prev.p.steps)], m.p.steps...)}}
				continue
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// finishByteLevel leaves the byte-level mapping of a final ByteLevel step
// to a BPE model, which then caches words by their raw bytes, and drops the
// step when nothing else is left of it; other ByteLevel steps map their
// pieces themselves.
func finishByteLevel(steps []preStep, m wordModel) []preStep {
	for i, s := range steps {
		if bl, ok := s.(byteLevelStep); ok {
			bl.mapBytes = true
			steps[i] = bl
		}
	}
	h, ok := m.(*hfBPE)
	if !ok || len(steps) == 0 {
		return steps
	}
	bl, ok := steps[len(steps)-1].(byteLevelStep)
	if !ok {
		return steps
	}
	h.byteLevel = true
	bl.mapBytes = false
	if !bl.prefixSpace && bl.regex == nil {
		return steps[:len(steps)-1]
	}
	steps[len(steps)-1] = bl
	return steps
}

func matchers(ms ...matcher) matcherStep { return matcherStep{&pretokenizer{steps: ms}} }

func (b *hfBuilder) preSteps(raw json.RawMessage) ([]preStep, error) {
	c, ok, err := parseComponent(raw)
	if err != nil || !ok {
		return nil, err
	}
	switch c.Type {
	case "Sequence":
		var out []preStep
		for _, r := range c.PreTokenizers {
			s, err := b.preSteps(r)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		}
		return out, nil
	case "ByteLevel":
		st := byteLevelStep{prefixSpace: deref(c.AddPrefixSpace, true)}
		if deref(c.UseRegex, true) {
			st.regex = &pretokenizer{steps: []matcher{matchGPT2}}
		}
		if !st.prefixSpace && st.regex != nil {
			// the same split as a plain matcher, bytes mapped by the model
			return []preStep{matchers(matchGPT2), byteLevelStep{}}, nil
		}
		return []preStep{st}, nil
	case "Split":
		if c.Pattern == nil {
			return nil, fmt.Errorf("Split without pattern")
		}
		beh, ok := behaviors[c.Behavior]
		if !ok {
			return nil, fmt.Errorf("Split: unknown behavior %q", c.Behavior)
		}
		if c.Pattern.Regex != nil && beh == behIsolated && !c.Invert {
			if k, ok := knownSplits[*c.Pattern.Regex]; ok {
				return []preStep{matchers(k.match)}, nil
			}
		}
		f, err := newFinder(*c.Pattern)
		if err != nil {
			return nil, fmt.Errorf("Split: %v", err)
		}
		return []preStep{patternStep{f, beh, c.Invert}}, nil
	case "Digits":
		if c.IndividualDigits {
			return []preStep{matchers(matchEach(isNumber))}, nil
		}
		return []preStep{matchers(matchRuns(isNumber, false))}, nil
	case "Metaspace":
		repl, err := oneRune(c.Replacement, '▁', "replacement")
		if err != nil {
			return nil, err
		}
		scheme, err := prependScheme(c)
		if err != nil {
			return nil, err
		}
		return []preStep{metaspaceStep{string(repl), scheme, deref(c.Split, true)}}, nil
	case "BertPreTokenizer":
		return []preStep{patternStep{classFinder(isSpace), behRemoved, false}, matchers(matchEach(isBertPunct))}, nil
	case "Whitespace":
		return []preStep{patternStep{classFinder(isSpace), behRemoved, false}, matchers(matchWordRuns)}, nil
	case "WhitespaceSplit":
		return []preStep{patternStep{classFinder(isSpace), behRemoved, false}}, nil
	case "Punctuation":
		beh := behIsolated
		if c.Behavior != "" {
			if beh, ok = behaviors[c.Behavior]; !ok {
				return nil, fmt.Errorf("Punctuation: unknown behavior %q", c.Behavior)
			}
		}
		return []preStep{patternStep{classFinder(isBertPunct), beh, false}}, nil
	case "CharDelimiterSplit":
		d, err := oneRune(c.Delimiter, 0, "delimiter")
		if err != nil || c.Delimiter == nil {
			return nil, fmt.Errorf("CharDelimiterSplit needs a one-character delimiter")
		}
		return []preStep{patternStep{classFinder(func(r rune) bool { return r == d }), behRemoved, false}}, nil
	}
	return nil, fmt.Errorf("unsupported pre_tokenizer type %q", c.Type)
}

// prependScheme reads Metaspace's prepend_scheme (default "always"), or the
// older add_prefix_space.
func prependScheme(c hfComponent) (int, error) {
	if c.AddPrefixSpace != nil && !*c.AddPrefixSpace {
		return prependNever, nil
	}
	switch deref(c.PrependScheme, "always") {
	case "always":
		return prependAlways, nil
	case "first":
		return prependFirst, nil
	case "never":
		return prependNever, nil
	}
	return 0, fmt.Errorf("Metaspace: unknown prepend_scheme %q", *c.PrependScheme)
}

func (b *hfBuilder) buildDecoder(raw json.RawMessage) (decoder, error) {
	c, ok, err := parseComponent(raw)
	if err != nil || !ok {
		return nil, err
	}
	switch c.Type {
	case "Sequence":
		var seq decSeq
		for _, r := range c.Decoders {
			d, err := b.buildDecoder(r)
			if err != nil {
				return nil, err
			}
			if d != nil {
				seq = append(seq, d)
			}
		}
		return seq, nil
	case "ByteLevel":
		return byteLevelDec{}, nil
	case "WordPiece":
		return wordPieceDec{prefix: deref(c.Prefix, "##"), cleanup: deref(c.Cleanup, true)}, nil
	case "Metaspace":
		repl, err := oneRune(c.Replacement, '▁', "replacement")
		if err != nil {
			return nil, err
		}
		scheme, err := prependScheme(c)
		if err != nil {
			return nil, err
		}
		return metaspaceDec{repl, scheme != prependNever}, nil
	case "ByteFallback":
		return byteFallbackDec{}, nil
	case "Fuse":
		return fuseDec{}, nil
	case "Strip":
		r, err := oneRune(c.Content, ' ', "content")
		if err != nil {
			return nil, err
		}
		if c.Start < 0 || c.Stop < 0 {
			return nil, fmt.Errorf("Strip: negative start or stop")
		}
		return stripDec{r, c.Start, c.Stop}, nil
	case "Replace":
		f, content, err := replaceParts(c)
		if err != nil {
			return nil, err
		}
		return replaceDec{f, content}, nil
	case "BPEDecoder":
		return bpeSuffixDec{deref(c.Suffix, "</w>")}, nil
	}
	return nil, fmt.Errorf("unsupported decoder type %q", c.Type)
}

// buildPost reads the post-processor into a single-sequence template.
func (b *hfBuilder) buildPost(raw json.RawMessage, t *Tokenizer) ([]tmplPiece, error) {
	seq := []tmplPiece{{seq: true}}
	c, ok, err := parseComponent(raw)
	if err != nil || !ok {
		return seq, err
	}
	switch c.Type {
	case "Sequence":
		out := seq
		for _, r := range c.Processors {
			inner, err := b.buildPost(r, t)
			if err != nil {
				return nil, err
			}
			out = nest(inner, out)
		}
		return out, nil
	case "ByteLevel":
		return seq, nil
	case "BertProcessing", "RobertaProcessing":
		cls, err := tokenPair(c.Cls, t)
		if err != nil {
			return nil, fmt.Errorf("%s: cls: %v", c.Type, err)
		}
		sep, err := tokenPair(c.Sep, t)
		if err != nil {
			return nil, fmt.Errorf("%s: sep: %v", c.Type, err)
		}
		return []tmplPiece{{ids: []int32{cls}}, {seq: true}, {ids: []int32{sep}}}, nil
	case "TemplateProcessing":
		return templateSingle(c, t)
	}
	return nil, fmt.Errorf("unsupported post_processor type %q", c.Type)
}

// nest applies template outer around the result of inner.
func nest(outer, inner []tmplPiece) []tmplPiece {
	var out []tmplPiece
	for _, p := range outer {
		if p.seq {
			out = append(out, inner...)
		} else {
			out = append(out, p)
		}
	}
	return out
}

// tokenPair reads ["[CLS]", 101]; the id must be valid.
func tokenPair(raw []json.RawMessage, t *Tokenizer) (int32, error) {
	var id int32
	if len(raw) != 2 || json.Unmarshal(raw[1], &id) != nil || !t.valid(id) {
		return 0, fmt.Errorf("want [token, id] with a valid id")
	}
	return id, nil
}

// templateSingle reads TemplateProcessing's single template: a list of
// {"SpecialToken": {"id": name}} and {"Sequence": {"id": "A"}}, or the
// string form "[CLS] $A [SEP]".
func templateSingle(c hfComponent, t *Tokenizer) ([]tmplPiece, error) {
	type item struct {
		SpecialToken *struct {
			ID string `json:"id"`
		} `json:"SpecialToken"`
		Sequence *struct {
			ID string `json:"id"`
		} `json:"Sequence"`
	}
	var items []item
	if err := json.Unmarshal(c.Single, &items); err != nil {
		var s string
		if json.Unmarshal(c.Single, &s) != nil {
			return nil, fmt.Errorf("single: want a list of pieces or a template string")
		}
		for _, f := range strings.Fields(s) {
			name, _, _ := strings.Cut(f, ":")
			var it item
			if strings.HasPrefix(name, "$") {
				it.Sequence = &struct {
					ID string `json:"id"`
				}{name}
			} else {
				it.SpecialToken = &struct {
					ID string `json:"id"`
				}{name}
			}
			items = append(items, it)
		}
	}
	var out []tmplPiece
	for _, it := range items {
		switch {
		case it.Sequence != nil:
			out = append(out, tmplPiece{seq: true})
		case it.SpecialToken != nil:
			st, ok := c.SpecialTokens[it.SpecialToken.ID]
			if !ok {
				return nil, fmt.Errorf("special token %q is not in special_tokens", it.SpecialToken.ID)
			}
			for _, id := range st.IDs {
				if !t.valid(id) {
					return nil, fmt.Errorf("special token %q has invalid id %d", it.SpecialToken.ID, id)
				}
			}
			out = append(out, tmplPiece{ids: st.IDs})
		default:
			return nil, fmt.Errorf("single: a piece is neither SpecialToken nor Sequence")
		}
	}
	return out, nil
}

// newTokenizer assigns the added tokens their ids as tokenizers does (a
// content already in the vocabulary keeps that id, others get ids from the
// vocabulary size on; the ids written in the file are not used) and builds
// the token tables.
func (b *hfBuilder) newTokenizer(p *hfPipeline, added []addedToken) (*Tokenizer, error) {
	n := int32(0)
	for _, id := range b.vocab {
		n = max(n, id+1)
	}
	toks := assignAddedIDs(b.vocab, added)
	for _, a := range toks {
		if a.ID >= 1<<30 {
			return nil, fmt.Errorf("too many added tokens")
		}
		n = max(n, a.ID+1)
	}
	t := &Tokenizer{hf: p, texts: make([]string, n), attrs: make([]uint8, n), byText: make(map[string]int32, n),
		bos: -1, eos: -1, unk: -1, pad: -1}
	for s, id := range b.vocab {
		t.texts[id] = s
		t.attrs[id] = attrNormal
	}
	// a normalised added token is matched, and decoded, in its normalised
	// form, as tokenizers does
	pats := make([]string, len(toks))
	for i, a := range toks {
		pats[i] = a.Content
		if a.Normalized && p.norm != nil {
			pats[i] = p.norm.normalize(a.Content)
		}
		t.texts[a.ID] = pats[i]
		t.attrs[a.ID] = attrUserDefined
		if a.Special {
			t.attrs[a.ID] = attrControl
		}
	}
	for id, a := range t.attrs {
		if a == 0 {
			t.attrs[id] = attrUnused
		} else {
			t.byText[t.texts[id]] = int32(id)
		}
	}
	for s, id := range b.vocab { // a text's model id wins over a duplicate's
		if t.attrs[id] == attrNormal {
			t.byText[s] = id
		}
	}
	for _, a := range toks { // and an added token's over both
		t.byText[a.Content] = a.ID
	}
	var raw, normed []addedToken
	var rawPat, normedPat []string
	for i, a := range toks {
		if a.Normalized {
			normed, normedPat = append(normed, a), append(normedPat, pats[i])
		} else {
			raw, rawPat = append(raw, a), append(rawPat, pats[i])
		}
	}
	p.raw, p.normed = newAddedMatcher(raw, rawPat), newAddedMatcher(normed, normedPat)
	eog := t.detectSpecials(-1, -1, false)
	t.eog = make([]bool, n)
	for id := range eog {
		t.eog[id] = true
	}
	t.pieces = make([]string, n)
	for id := range t.texts {
		if t.attrs[id] != attrUnused {
			t.pieces[id] = p.decodeTexts([]string{t.texts[id]}, true)
		}
	}
	return t, nil
}

// assignAddedIDs gives added tokens their ids as tokenizers does: a content
// already in the vocabulary keeps its id, a new one gets the next id from
// the vocabulary size on, and a repeated content replaces the earlier
// entry's flags (the ids written in a tokenizer.json are not used).
func assignAddedIDs(vocab map[string]int32, added []addedToken) []addedToken {
	byContent := map[string]int{}
	var toks []addedToken
	next := int32(len(vocab))
	for _, a := range added {
		if a.Content == "" {
			continue
		}
		if i, ok := byContent[a.Content]; ok {
			a.ID = toks[i].ID
			toks[i] = a
			continue
		}
		if id, ok := vocab[a.Content]; ok {
			a.ID = id
		} else {
			a.ID = next
			next++
		}
		byContent[a.Content] = len(toks)
		toks = append(toks, a)
	}
	return toks
}
