package tokenizer

import (
	"encoding/json"
	"fmt"

	"golang.org/x/text/unicode/norm"
)

// hfNormalizerJSON is a tokenizer.json normalizer.
type hfNormalizerJSON struct {
	Type        string            `json:"type"`
	Normalizers []json.RawMessage `json:"normalizers"` // Sequence
	// BertNormalizer
	CleanText          *bool `json:"clean_text"`
	HandleChineseChars *bool `json:"handle_chinese_chars"`
	StripAccents       *bool `json:"strip_accents"`
	Lowercase          *bool `json:"lowercase"`
	// Strip
	StripLeft  bool `json:"strip_left"`
	StripRight bool `json:"strip_right"`
	hfReplaceJSON
	Prepend *string `json:"prepend"`
}

// hfReplaceJSON is the pattern and content of Replace, a normalizer and a
// decoder.
type hfReplaceJSON struct {
	Pattern *hfPattern `json:"pattern"`
	Content *string    `json:"content"`
}

// buildNormalizer builds a normalizer; nil for none.
func (b *hfBuilder) buildNormalizer(raw json.RawMessage) (normalizer, error) {
	c, ok, err := parseComponent[hfNormalizerJSON](raw)
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
		f, content, err := replaceParts(c.hfReplaceJSON)
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

// replaceParts reads Replace's pattern and content.
func replaceParts(c hfReplaceJSON) (finder, string, error) {
	if c.Pattern == nil || c.Content == nil {
		return nil, "", fmt.Errorf("Replace needs pattern and content")
	}
	f, err := newFinder(*c.Pattern)
	return f, *c.Content, err
}
