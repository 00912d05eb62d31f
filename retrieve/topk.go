package retrieve

import "sort"

// Hit is a candidate index with its score.
type Hit struct {
	Index int
	Score float64
}

// better orders hits: higher score first, then lower index, so results are
// deterministic when scores tie (as a stable sort of the candidates would).
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Index < b.Index
}

// topK keeps the k best hits pushed into it in a min-heap whose root is the
// worst kept hit.
type topK struct {
	k int
	h []Hit
}

func newTopK(k int) *topK { return &topK{k: k, h: make([]Hit, 0, k)} }

// wants reports whether a hit with this score and index would be kept,
// before paying for the caller's filter.
func (t *topK) wants(idx int, score float64) bool {
	return len(t.h) < t.k || better(Hit{idx, score}, t.h[0])
}

// push offers a hit.
func (t *topK) push(x Hit) {
	if t.k <= 0 {
		return
	}
	if len(t.h) < t.k {
		t.h = append(t.h, x)
		t.up(len(t.h) - 1)
		return
	}
	if !better(x, t.h[0]) {
		return
	}
	t.h[0] = x
	t.down(0)
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(t.h[p], t.h[i]) {
			return
		}
		t.h[p], t.h[i] = t.h[i], t.h[p]
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.h)
	for {
		worst := i
		l, r := 2*i+1, 2*i+2
		if l < n && better(t.h[worst], t.h[l]) {
			worst = l
		}
		if r < n && better(t.h[worst], t.h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		t.h[i], t.h[worst] = t.h[worst], t.h[i]
		i = worst
	}
}

// sorted returns the kept hits, best first.
func (t *topK) sorted() []Hit {
	out := append([]Hit(nil), t.h...)
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out
}

// topOf returns the k best of scores among the indices keep accepts (all
// when keep is nil).
func topOf(scores []float64, k int, keep func(int) bool) []Hit {
	t := newTopK(k)
	for i, s := range scores {
		if t.wants(i, s) && (keep == nil || keep(i)) {
			t.push(Hit{i, s})
		}
	}
	return t.sorted()
}
