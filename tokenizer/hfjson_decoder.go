package tokenizer

import (
	"encoding/json"
	"fmt"
)

// hfDecoderJSON is a tokenizer.json decoder.
type hfDecoderJSON struct {
	Type          string            `json:"type"`
	Decoders      []json.RawMessage `json:"decoders"` // Sequence
	hfReplaceJSON                   // Replace; Strip's content
	hfMetaspaceJSON
	// WordPiece
	Prefix  *string `json:"prefix"`
	Cleanup *bool   `json:"cleanup"`
	// Strip
	Start int `json:"start"`
	Stop  int `json:"stop"`
	// BPEDecoder
	Suffix *string `json:"suffix"`
}

// buildDecoder builds a decoder; nil for none.
func (b *hfBuilder) buildDecoder(raw json.RawMessage) (decoder, error) {
	c, ok, err := parseComponent[hfDecoderJSON](raw)
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
		repl, scheme, err := c.metaspace()
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
		f, content, err := replaceParts(c.hfReplaceJSON)
		if err != nil {
			return nil, err
		}
		return replaceDec{f, content}, nil
	case "BPEDecoder":
		return bpeSuffixDec{deref(c.Suffix, "</w>")}, nil
	}
	return nil, fmt.Errorf("unsupported decoder type %q", c.Type)
}
