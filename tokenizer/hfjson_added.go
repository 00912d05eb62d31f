package tokenizer

import "fmt"

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
