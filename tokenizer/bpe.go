package tokenizer

import (
	"strings"
	"sync"
)

// byteToRune is GPT-2's reversible map from bytes to printable code points
// (bytes_to_unicode): printable Latin-1 bytes map to themselves, the others
// to U+0100 onwards in byte order. runeToByte is its inverse.
var byteToRune, runeToByte = func() ([256]rune, map[rune]byte) {
	var fwd [256]rune
	inv := map[rune]byte{}
	n := rune(0)
	for b := 0; b < 256; b++ {
		if (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			fwd[b] = rune(b)
		} else {
			fwd[b] = 256 + n
			n++
		}
		inv[fwd[b]] = byte(b)
	}
	return fwd, inv
}()

// byteLevel returns the byte-level text of raw bytes (one code point per
// byte), the form in which a BPE vocabulary stores its tokens.
func byteLevel(raw string) string {
	var sb strings.Builder
	sb.Grow(2 * len(raw))
	for i := 0; i < len(raw); i++ {
		sb.WriteRune(byteToRune[raw[i]])
	}
	return sb.String()
}

// merge is the rank of a BPE merge and the symbol it produces.
type merge struct{ rank, result int32 }

// bpeModel holds the merges over interned symbols. Every text that can
// occur as a symbol (a byte, a vocabulary token, either side or the result
// of a merge) has an id: its token id when the vocabulary has it, else an id
// past the vocabulary whose text is in extra.
type bpeModel struct {
	nVocab  int32
	byteSym [256]int32
	pairs   map[uint64]merge
	extra   []string
}

func pairKey(l, r int32) uint64 { return uint64(uint32(l))<<32 | uint64(uint32(r)) }

func newBPEModel(byText map[string]int32, nVocab int, merges []string) *bpeModel {
	m := &bpeModel{nVocab: int32(nVocab), pairs: make(map[uint64]merge, len(merges))}
	extraIDs := map[string]int32{}
	intern := func(s string) int32 {
		if id, ok := byText[s]; ok {
			return id
		}
		if id, ok := extraIDs[s]; ok {
			return id
		}
		id := m.nVocab + int32(len(m.extra))
		m.extra = append(m.extra, s)
		extraIDs[s] = id
		return id
	}
	for b := range 256 {
		m.byteSym[b] = intern(string(byteToRune[b]))
	}
	for rank, s := range merges {
		// llama.cpp splits at the first space after the first byte.
		sp := -1
		if len(s) > 1 {
			sp = strings.IndexByte(s[1:], ' ')
		}
		if sp < 0 {
			continue
		}
		left, right := s[:sp+1], s[sp+2:]
		m.addMerge(rank, intern(left), intern(right), intern(left+right), false)
	}
	return m
}

// addMerge records that the symbols l and r merge into res with the given
// rank. Of duplicate pairs the first wins (llama.cpp), or the last when
// overwrite is set (Hugging Face tokenizers).
func (m *bpeModel) addMerge(rank int, l, r, res int32, overwrite bool) {
	k := pairKey(l, r)
	if _, dup := m.pairs[k]; dup && !overwrite {
		return
	}
	m.pairs[k] = merge{int32(rank), res}
}

// bpeCand is a candidate merge of the adjacent symbols left and right,
// valid while they still hold the ids l and r.
type bpeCand struct {
	rank, left, right, l, r int32
}

// bpeScratch holds reusable buffers for encoding one word.
type bpeScratch struct {
	id, next, prev []int32
	heap           []bpeCand
}

var bpePool = sync.Pool{New: func() any { return new(bpeScratch) }}

func (h *bpeScratch) push(c bpeCand) {
	q := append(h.heap, c)
	i := len(q) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !candLess(q[i], q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
	h.heap = q
}

func (h *bpeScratch) pop() bpeCand {
	q := h.heap
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(q) && candLess(q[l], q[m]) {
			m = l
		}
		if r < len(q) && candLess(q[r], q[m]) {
			m = r
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	h.heap = q
	return top
}

// candLess orders merges as llama.cpp does: lowest rank first, then the
// leftmost.
func candLess(a, b bpeCand) bool {
	return a.rank < b.rank || (a.rank == b.rank && a.left < b.left)
}

func (m *bpeModel) addCand(s *bpeScratch, left, right int32) {
	if left < 0 || right < 0 {
		return
	}
	l, r := s.id[left], s.id[right]
	if mg, ok := m.pairs[pairKey(l, r)]; ok {
		s.push(bpeCand{mg.rank, left, right, l, r})
	}
}

// reset empties the scratch for a new word.
func (s *bpeScratch) reset() {
	s.id, s.next, s.prev, s.heap = s.id[:0], s.next[:0], s.prev[:0], s.heap[:0]
}

// add appends a symbol to the word being built.
func (s *bpeScratch) add(id int32) {
	n := int32(len(s.id))
	if n > 0 {
		s.next[n-1] = n
	}
	s.id = append(s.id, id)
	s.prev = append(s.prev, n-1)
	s.next = append(s.next, -1)
}

// mergeAll merges the best-ranked adjacent pair of s's symbols until no
// merge applies; the remaining symbols are linked from index 0 by next.
func (m *bpeModel) mergeAll(s *bpeScratch) {
	for i := 0; i+1 < len(s.id); i++ {
		m.addCand(s, int32(i), int32(i+1))
	}
	for len(s.heap) > 0 {
		c := s.pop()
		if s.id[c.left] != c.l || s.id[c.right] != c.r || s.next[c.left] != c.right {
			continue // stale: one side has changed since
		}
		res := m.pairs[pairKey(c.l, c.r)].result
		s.id[c.left] = res
		s.id[c.right] = -1
		nx := s.next[c.right]
		s.next[c.left] = nx
		if nx >= 0 {
			s.prev[nx] = c.left
		}
		m.addCand(s, s.prev[c.left], c.left)
		m.addCand(s, c.left, nx)
	}
}

// encode appends the token ids of one pre-token given as raw bytes: each
// byte starts as one symbol, then the best-ranked adjacent pair is merged
// until no merge applies. A final symbol that is not a vocabulary token
// falls back to the tokens of its single bytes (those that exist), as in
// llama.cpp.
func (m *bpeModel) encode(word string, byText map[string]int32, out []int32) []int32 {
	if word == "" {
		return out
	}
	s := bpePool.Get().(*bpeScratch)
	defer bpePool.Put(s)
	s.reset()
	for i := 0; i < len(word); i++ {
		s.add(m.byteSym[word[i]])
	}
	m.mergeAll(s)
	for i := int32(0); i >= 0; i = s.next[i] {
		id := s.id[i]
		if id < m.nVocab {
			out = append(out, id)
			continue
		}
		text := m.extra[id-m.nVocab]
		for j := 0; j < len(text); j++ {
			if t, ok := byText[text[j:j+1]]; ok {
				out = append(out, t)
			}
		}
	}
	return out
}
