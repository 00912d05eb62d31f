package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// hfModelJSON is a tokenizer.json model: BPE or WordPiece.
type hfModelJSON struct {
	Type                    string          `json:"type"`
	Vocab                   json.RawMessage `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
	UnkToken                *string         `json:"unk_token"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	FuseUnk                 bool            `json:"fuse_unk"`
	ByteFallback            bool            `json:"byte_fallback"`
	IgnoreMerges            bool            `json:"ignore_merges"`
	MaxInputCharsPerWord    *int            `json:"max_input_chars_per_word"`
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

// buildModel builds the model and keeps its vocabulary in b.
func (b *hfBuilder) buildModel(c hfModelJSON) (wordModel, error) {
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
