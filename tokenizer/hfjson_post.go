package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// hfPostJSON is a tokenizer.json post-processor.
type hfPostJSON struct {
	Type       string            `json:"type"`
	Processors []json.RawMessage `json:"processors"` // Sequence
	// TemplateProcessing
	Single        json.RawMessage `json:"single"`
	SpecialTokens map[string]struct {
		IDs []int32 `json:"ids"`
	} `json:"special_tokens"`
	// BertProcessing, RobertaProcessing
	Sep []json.RawMessage `json:"sep"`
	Cls []json.RawMessage `json:"cls"`
}

// buildPost reads the post-processor into a single-sequence template.
func (b *hfBuilder) buildPost(raw json.RawMessage, t *Tokenizer) ([]tmplPiece, error) {
	seq := []tmplPiece{{seq: true}}
	c, ok, err := parseComponent[hfPostJSON](raw)
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
func templateSingle(c hfPostJSON, t *Tokenizer) ([]tmplPiece, error) {
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
