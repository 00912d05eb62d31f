package tokenizer

import (
	"fmt"
	"unicode/utf8"
)

// hfBPE is the BPE model of a tokenizer.json (or vocab.json + merges.txt):
// every character of a word starts as a symbol (with the continuation
// prefix after the first and the end-of-word suffix on the last), the
// symbols merge by rank as in llama.cpp, and characters outside the
// vocabulary become byte tokens (<0xXX>, byte_fallback) or the unknown
// token (fused when fuse_unk). dropout is ignored: encoding is
// deterministic.
type hfBPE struct {
	m            *bpeModel
	vocab        map[string]int32
	unk          int32 // -1: unknown characters are dropped
	fuseUnk      bool
	byteFallback bool
	byteIDs      [256]int32 // <0xXX> tokens, -1 where absent
	ignoreMerges bool       // a word that is a token is emitted whole
	prefix       string     // continuing_subword_prefix
	suffix       string     // end_of_word_suffix
	byteLevel    bool       // words arrive as raw bytes, to be mapped to byte-level characters
}

// newHFBPE builds the merge table; every merge's parts and result must be
// vocabulary tokens, as tokenizers requires. Later duplicates of a pair
// override earlier ones, as in tokenizers.
func newHFBPE(vocab map[string]int32, nVocab int, merges [][2]string, prefix string) (*hfBPE, error) {
	h := &hfBPE{m: &bpeModel{nVocab: int32(nVocab), pairs: make(map[uint64]merge, len(merges))}, vocab: vocab,
		unk: -1, prefix: prefix}
	for rank, mg := range merges {
		a, b := mg[0], mg[1]
		l, ok := vocab[a]
		if !ok {
			return nil, fmt.Errorf("merge %d (%q %q): %q is not in the vocabulary", rank, a, b, a)
		}
		r, ok := vocab[b]
		if !ok {
			return nil, fmt.Errorf("merge %d (%q %q): %q is not in the vocabulary", rank, a, b, b)
		}
		if len(b) < len(prefix) {
			return nil, fmt.Errorf("merge %d (%q %q): %q is shorter than the prefix %q", rank, a, b, b, prefix)
		}
		joined := a + b[len(prefix):]
		res, ok := vocab[joined]
		if !ok {
			return nil, fmt.Errorf("merge %d (%q %q): %q is not in the vocabulary", rank, a, b, joined)
		}
		h.m.addMerge(rank, l, r, res, true)
	}
	for b := range 256 {
		h.byteIDs[b] = -1
		if id, ok := vocab[fmt.Sprintf("<0x%02X>", b)]; ok {
			h.byteIDs[b] = id
		}
	}
	return h, nil
}

func (h *hfBPE) encodeWord(word string, out []int32) []int32 {
	if word == "" {
		return out
	}
	if h.byteLevel {
		word = byteLevel(word)
	}
	if h.ignoreMerges {
		if id, ok := h.vocab[word]; ok {
			return append(out, id)
		}
	}
	s := bpePool.Get().(*bpeScratch)
	defer bpePool.Put(s)
	s.reset()
	unk, unkPending := int32(-1), false
	var buf []byte
	for i := 0; i < len(word); {
		_, n := utf8.DecodeRuneInString(word[i:])
		ch := word[i : i+n]
		first, last := i == 0, i+n == len(word)
		i += n
		key := ch
		if (!first && h.prefix != "") || (last && h.suffix != "") {
			buf = buf[:0]
			if !first {
				buf = append(buf, h.prefix...)
			}
			buf = append(buf, ch...)
			if last {
				buf = append(buf, h.suffix...)
			}
			key = string(buf)
		}
		if id, ok := h.vocab[key]; ok {
			if unkPending {
				s.add(unk)
				unkPending = false
			}
			s.add(id)
			continue
		}
		if h.byteFallback && h.addBytes(s, key) {
			continue
		}
		if h.unk >= 0 {
			if unkPending && !h.fuseUnk {
				s.add(unk)
			}
			unk, unkPending = h.unk, true
		}
	}
	if unkPending {
		s.add(unk)
	}
	if len(s.id) == 0 {
		return out
	}
	h.m.mergeAll(s)
	for i := int32(0); i >= 0; i = s.next[i] {
		out = append(out, s.id[i])
	}
	return out
}

// addBytes adds the byte tokens of key if all of them exist.
func (h *hfBPE) addBytes(s *bpeScratch, key string) bool {
	for j := 0; j < len(key); j++ {
		if h.byteIDs[key[j]] < 0 {
			return false
		}
	}
	for j := 0; j < len(key); j++ {
		s.add(h.byteIDs[key[j]])
	}
	return true
}
