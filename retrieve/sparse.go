package retrieve

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
)

// Words splits text into lower-cased whitespace-separated tokens, as
// RLCoder's BM25 does with Python's str.lower().split() (whitespace as
// Python's str.isspace: Unicode spaces plus the separators 0x1c-0x1f).
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), isPySpace)
}

// isPySpace is Python's str.isspace for one character.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (0x1c <= r && r <= 0x1f)
}

// BM25 is Okapi BM25 exactly as rank_bm25's BM25Okapi (the library RLCoder
// uses): idf = ln(N - n + 0.5) - ln(n + 0.5), negative idfs replaced by
// ε·mean(idf), each query token (repeats included) adding
// idf·f·(k1+1)/(f + k1·(1 - b + b·|d|/avgdl)).
type BM25 struct {
	k1, b    float64
	rawQuery bool
	docLen   []float64
	avgdl    float64
	terms    map[string]int32 // term -> id
	idf      []float64        // by term id
	postings [][]posting      // by term id
}

type posting struct {
	doc  int32
	freq int32
}

// BM25Params are the scorer's constants; DefaultBM25 holds RLCoder's.
type BM25Params struct {
	K1, B, Epsilon float64
	// RawQuery splits the query on whitespace without lower-casing it, as
	// RLCoder's code does (documents are lower-cased either way, so
	// capitalised query words then never match); the default lower-cases
	// both sides as its description says.
	RawQuery bool
}

// DefaultBM25 is k1 = 1.5, b = 0.75, ε = 0.25 (rank_bm25's defaults).
var DefaultBM25 = BM25Params{K1: 1.5, B: 0.75, Epsilon: 0.25}

// NewBM25 indexes the documents, each tokenised with Words.
func NewBM25(docs []string, p BM25Params) *BM25 {
	s := &BM25{k1: p.K1, b: p.B, rawQuery: p.RawQuery, docLen: make([]float64, len(docs)), terms: map[string]int32{}}
	total := 0
	var ids []int32
	for d, text := range docs {
		ids = ids[:0]
		for _, w := range Words(text) {
			id, ok := s.terms[w]
			if !ok {
				id = int32(len(s.postings))
				s.terms[w] = id
				s.postings = append(s.postings, nil)
			}
			ids = append(ids, id)
		}
		s.docLen[d] = float64(len(ids))
		total += len(ids)
		slices.Sort(ids)
		for i := 0; i < len(ids); {
			j := i
			for j < len(ids) && ids[j] == ids[i] {
				j++
			}
			s.postings[ids[i]] = append(s.postings[ids[i]], posting{int32(d), int32(j - i)})
			i = j
		}
	}
	if len(docs) == 0 {
		return s
	}
	s.avgdl = float64(total) / float64(len(docs))
	n := float64(len(docs))
	s.idf = make([]float64, len(s.postings))
	var sum float64
	for id, ps := range s.postings {
		df := float64(len(ps))
		s.idf[id] = math.Log(n-df+0.5) - math.Log(df+0.5)
		sum += s.idf[id]
	}
	if len(s.idf) > 0 {
		eps := p.Epsilon * sum / float64(len(s.idf))
		for id, v := range s.idf {
			if v < 0 {
				s.idf[id] = eps
			}
		}
	}
	return s
}

// Scores returns the BM25 score of every document for the query
// (tokenised with Words, or only split when RawQuery).
func (s *BM25) Scores(query string) []float64 {
	scores := make([]float64, len(s.docLen))
	if s.avgdl == 0 {
		return scores
	}
	words := Words(query)
	if s.rawQuery {
		words = strings.FieldsFunc(query, isPySpace)
	}
	for _, w := range words {
		id, ok := s.terms[w]
		if !ok {
			continue
		}
		idf := s.idf[id]
		for _, p := range s.postings[id] {
			f := float64(p.freq)
			scores[p.doc] += idf * f * (s.k1 + 1) / (f + s.k1*(1-s.b+s.b*s.docLen[p.doc]/s.avgdl))
		}
	}
	return scores
}

// TopK returns the k best documents among those keep accepts (all when
// keep is nil), best first; ties go to the lower index, as Python's stable
// sort in RLCoder.
func (s *BM25) TopK(query string, k int, keep func(int) bool) ([]Hit, error) {
	return topOf(s.Scores(query), k, keep), nil
}

// Jaccard is RepoCoder's sparse similarity: |A∩B| / |A∪B| over the sets of
// tokens of query and document. RepoCoder uses the generator's token ids;
// any ordered token type works.
type Jaccard[T cmp.Ordered] struct {
	tokenize func(string) []T
	sets     [][]T
}

// NewJaccard indexes the documents with the tokenizer.
func NewJaccard[T cmp.Ordered](docs []string, tokenize func(string) []T) *Jaccard[T] {
	j := &Jaccard[T]{tokenize: tokenize, sets: make([][]T, len(docs))}
	for i, d := range docs {
		j.sets[i] = tokenSet(tokenize(d))
	}
	return j
}

// tokenSet returns the distinct tokens, sorted.
func tokenSet[T cmp.Ordered](toks []T) []T {
	s := slices.Clone(toks)
	slices.Sort(s)
	return slices.Compact(s)
}

// Similarity is the Jaccard index of two sorted distinct token lists (0
// when both are empty).
func Similarity[T cmp.Ordered](a, b []T) float64 {
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// TopK returns the k most similar documents among those keep accepts,
// best first, ties to the lower index.
func (j *Jaccard[T]) TopK(query string, k int, keep func(int) bool) ([]Hit, error) {
	q := tokenSet(j.tokenize(query))
	scores := make([]float64, len(j.sets))
	for i, s := range j.sets {
		scores[i] = Similarity(q, s)
	}
	return topOf(scores, k, keep), nil
}
