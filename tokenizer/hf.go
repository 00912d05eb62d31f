package tokenizer

import "strings"

// hfPipeline is how a Hugging Face tokenizer (tokenizer.json, or the
// vocabulary files it is built from) encodes: added tokens are cut out of
// the raw text, the rest is normalised, cut again at normalised added
// tokens, pre-tokenised, and each pre-token goes through the model.
type hfPipeline struct {
	raw, normed *addedMatcher // added tokens matched in raw / normalised text
	norm        normalizer    // nil: none
	pre         []preStep
	model       wordModel
	dec         decoder // nil: tokens joined by spaces
}

// encodeHF returns the ids of text without post-processing; special says
// whether special added tokens are matched.
func (t *Tokenizer) encodeHF(text string, special bool) []int32 {
	h := t.hf
	out := make([]int32, 0, len(text)/3+4)
	for _, f := range h.raw.split(text, 0, special, nil) {
		if f.token >= 0 {
			out = append(out, f.token)
			continue
		}
		s := text[f.start:f.end]
		if h.norm != nil {
			s = h.norm.normalize(s)
		}
		for _, g := range h.normed.split(s, 0, special, nil) {
			switch {
			case g.token >= 0:
				out = append(out, g.token)
				continue
			case g.start == g.end: // normalised away
				continue
			}
			pretokenize(h.pre, s[g.start:g.end], f.start == 0 && g.start == 0, func(word string) {
				out = t.encodeWord(word, out)
			})
		}
	}
	return out
}

// encodeWord appends the model's ids of one pre-token, through the cache.
func (t *Tokenizer) encodeWord(word string, out []int32) []int32 {
	if ids, ok := t.cache.get(word); ok {
		return append(out, ids...)
	}
	n := len(out)
	out = t.hf.model.encodeWord(word, out)
	t.cache.put(word, out[n:])
	return out
}

// decodeHF runs the decoder chain over the token texts of ids.
func (t *Tokenizer) decodeHF(ids []int32, special bool) string {
	toks := make([]string, 0, len(ids))
	for _, id := range ids {
		if t.valid(id) && (special || !t.IsSpecial(id)) {
			toks = append(toks, t.texts[id])
		}
	}
	return t.hf.decodeTexts(toks, false)
}

// decodeTexts decodes token texts; mid says they continue a text.
func (h *hfPipeline) decodeTexts(toks []string, mid bool) string {
	if h.dec == nil {
		s := strings.Join(toks, " ")
		if mid && len(toks) > 0 {
			s = " " + s
		}
		return s
	}
	out, _ := h.dec.decode(toks, decodeState{mid: mid})
	return strings.Join(out, "")
}
