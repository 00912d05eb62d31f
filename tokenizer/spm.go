package tokenizer

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// spmCand is a candidate merge of adjacent symbols whose joined text is the
// vocabulary token with the given score; size is the joined length in bytes,
// which tells whether the candidate is still current.
type spmCand struct {
	score       float32
	left, right int32
	size        int32
}

// spmLess orders candidates as llama.cpp does: highest score first, then
// the leftmost.
func spmLess(a, b spmCand) bool {
	return a.score > b.score || (a.score == b.score && a.left < b.left)
}

type spmSym struct {
	start, n   int32 // bytes [start, start+n) of the text; n == 0: merged away
	prev, next int32
}

type spmScratch struct {
	syms []spmSym
	heap []spmCand
}

var spmPool = sync.Pool{New: func() any { return new(spmScratch) }}

func (s *spmScratch) push(c spmCand) {
	q := append(s.heap, c)
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !spmLess(q[i], q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
	s.heap = q
}

func (s *spmScratch) pop() spmCand {
	q := s.heap
	top := q[0]
	q[0] = q[len(q)-1]
	q = q[:len(q)-1]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(q) && spmLess(q[l], q[m]) {
			m = l
		}
		if r < len(q) && spmLess(q[r], q[m]) {
			m = r
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	s.heap = q
	return top
}

// spmBytes finds the byte-fallback token of every byte: "<0xXX>", else the
// one-byte text itself, else the unknown token (-1 if none).
func spmBytes(byText map[string]int32, unk int32) [256]int32 {
	var out [256]int32
	for b := range 256 {
		id, ok := byText[fmt.Sprintf("<0x%02X>", b)]
		if !ok {
			id, ok = byText[string([]byte{byte(b)})]
		}
		if !ok {
			id = unk
		}
		out[b] = id
	}
	return out
}

// encodeSPM appends the tokens of one text fragment with SentencePiece-style
// BPE after turning spaces into "▁". When the vocabulary allows (see
// spmChunkable) the text is cut before each run of "▁" and every chunk is
// merged on its own, through the word cache: no token can span such a cut,
// so the result is the same as merging the whole text at once.
func (t *Tokenizer) encodeSPM(frag string, prefixSpace bool, out []int32) []int32 {
	if prefixSpace {
		frag = " " + frag
	}
	text := strings.ReplaceAll(frag, " ", "▁")
	if !t.spmChunks {
		return t.mergeSPM(text, out)
	}
	for start := 0; start < len(text); {
		end := start
		for strings.HasPrefix(text[end:], "▁") {
			end += len("▁")
		}
		if k := strings.Index(text[end:], "▁"); k >= 0 {
			end += k
		} else {
			end = len(text)
		}
		chunk := text[start:end]
		start = end
		if ids, ok := t.cache.get(chunk); ok {
			out = append(out, ids...)
			continue
		}
		n := len(out)
		out = t.mergeSPM(chunk, out)
		t.cache.put(chunk, out[n:])
	}
	return out
}

// spmChunkable reports whether no token has "▁" after another character,
// so that no token can span the start of a run of "▁".
func spmChunkable(texts []string) bool {
	for _, s := range texts {
		if strings.Contains(strings.TrimLeft(s, "▁"), "▁") {
			return false
		}
	}
	return true
}

// mergeSPM appends the tokens of escaped text: each UTF-8 character (each
// byte of invalid UTF-8, where llama.cpp would swallow the following bytes
// and garble the text) starts as one symbol, and the adjacent pair whose joined text is the
// highest-scored vocabulary token is merged until none is left. Symbols
// that are not tokens are emitted as byte tokens.
func (t *Tokenizer) mergeSPM(text string, out []int32) []int32 {
	if text == "" {
		return out
	}
	s := spmPool.Get().(*spmScratch)
	defer spmPool.Put(s)
	syms, n := s.syms[:0], int32(0)
	for off := 0; off < len(text); {
		_, l := utf8.DecodeRuneInString(text[off:])
		syms = append(syms, spmSym{start: int32(off), n: int32(l), prev: n - 1, next: n + 1})
		off += l
		n++
	}
	syms[n-1].next = -1
	s.syms, s.heap = syms, s.heap[:0]
	add := func(l, r int32) {
		if l < 0 || r < 0 {
			return
		}
		a, b := syms[l].start, syms[r].start+syms[r].n
		if id, ok := t.byText[text[a:b]]; ok {
			s.push(spmCand{t.score(id), l, r, b - a})
		}
	}
	for i := int32(1); i < n; i++ {
		add(i-1, i)
	}
	for len(s.heap) > 0 {
		c := s.pop()
		L, R := &syms[c.left], &syms[c.right]
		if L.n == 0 || R.n == 0 || L.n+R.n != c.size {
			continue
		}
		L.n += R.n
		R.n = 0
		L.next = R.next
		if R.next >= 0 {
			syms[R.next].prev = c.left
		}
		add(L.prev, c.left)
		add(c.left, L.next)
	}
	for i := int32(0); i >= 0; i = syms[i].next {
		piece := text[syms[i].start : syms[i].start+syms[i].n]
		if id, ok := t.byText[piece]; ok {
			out = append(out, id)
			continue
		}
		for j := 0; j < len(piece); j++ {
			if id := t.spmByte[piece[j]]; id >= 0 {
				out = append(out, id)
			}
		}
	}
	return out
}

func (t *Tokenizer) score(id int32) float32 {
	if t.scores == nil {
		return 0
	}
	return t.scores[id]
}
