package retrieve

import (
	"encoding/json"
	"math"
	"os"
	"reflect"
	"testing"
)

func TestWords(t *testing.T) {
	got := Words("def F(x):\n\treturn X\x1cY\u2003z  ")
	want := []string{"def", "f(x):", "return", "x", "y", "z"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
}

// The reference scores come from rank_bm25's BM25Okapi, written by
// testdata/bm25_ref.py.
func TestBM25MatchesRankBM25(t *testing.T) {
	data, err := os.ReadFile("testdata/bm25_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Docs    []string
		Queries []string
		Scores  [][]float64
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	s := NewBM25(ref.Docs, DefaultBM25)
	for qi, q := range ref.Queries {
		got := s.Scores(q)
		for d, want := range ref.Scores[qi] {
			if math.Abs(got[d]-want) > 1e-12*(1+math.Abs(want)) {
				t.Errorf("query %q doc %d: %.17g, want %.17g", q, d, got[d], want)
			}
		}
	}
}

// A hand-worked case: 3 documents, one query word in one document.
func TestBM25HandWorked(t *testing.T) {
	docs := []string{"a b", "c", "c c c"}
	s := NewBM25(docs, DefaultBM25)
	// N=3, avgdl=2; "a": n=1, idf = ln(2.5) - ln(1.5); doc 0 has f=1, |d|=2:
	// idf * 1 * 2.5 / (1 + 1.5 * (0.25 + 0.75)) = idf.
	want := math.Log(2.5) - math.Log(1.5)
	got := s.Scores("A")
	if math.Abs(got[0]-want) > 1e-15 || got[1] != 0 || got[2] != 0 {
		t.Errorf("scores %v, want [%v 0 0]", got, want)
	}
	// "c": n=2, idf = ln(1.5) - ln(2.5) < 0, replaced by 0.25 * mean idf,
	// mean over {a, b, c} = (2·ln(2.5/1.5) + ln(1.5/2.5)) / 3.
	eps := 0.25 * (math.Log(2.5/1.5) / 3)
	got = s.Scores("c")
	want1 := eps * 2.5 / (1 + 1.5*(0.25+0.75*0.5))
	want2 := eps * 3 * 2.5 / (3 + 1.5*(0.25+0.75*1.5))
	if math.Abs(got[1]-want1) > 1e-15 || math.Abs(got[2]-want2) > 1e-15 {
		t.Errorf("scores %v, want [0 %v %v]", got, want1, want2)
	}
	hits, _ := s.TopK("c", 5, func(i int) bool { return i != 2 })
	if len(hits) != 2 || hits[0] != (Hit{1, want1}) || hits[1] != (Hit{0, 0}) {
		t.Errorf("TopK = %+v", hits)
	}
}

func TestBM25RawQuery(t *testing.T) {
	docs := []string{"Alpha beta", "gamma", "delta"}
	raw := NewBM25(docs, BM25Params{K1: 1.5, B: 0.75, Epsilon: 0.25, RawQuery: true})
	low := NewBM25(docs, DefaultBM25)
	if s := raw.Scores("Alpha"); s[0] != 0 {
		t.Errorf("raw query matched a lower-cased document: %v", s)
	}
	if a, b := raw.Scores("alpha"), low.Scores("ALPHA"); a[0] == 0 || a[0] != b[0] {
		t.Errorf("raw %v, lower-cased %v", a, b)
	}
}

func TestBM25Empty(t *testing.T) {
	if got := NewBM25(nil, DefaultBM25).Scores("x"); len(got) != 0 {
		t.Errorf("empty corpus scores %v", got)
	}
	if got := NewBM25([]string{"", " "}, DefaultBM25).Scores("x"); got[0] != 0 || got[1] != 0 {
		t.Errorf("blank corpus scores %v", got)
	}
}

func TestJaccard(t *testing.T) {
	docs := []string{"a b c", "a a d", "", "x y"}
	j := NewJaccard(docs, Words)
	// Query {a, b, d}: doc0 {a,b,c} 2/4, doc1 {a,d} 2/3, doc2 {} 0, doc3 0.
	hits, err := j.TopK("a b d b", 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Hit{{1, 2.0 / 3}, {0, 0.5}, {2, 0}}
	if !reflect.DeepEqual(hits, want) {
		t.Errorf("TopK = %+v, want %+v", hits, want)
	}
	ids := NewJaccard([]string{"ab"}, func(s string) []int { return []int{int(s[0]), int(s[1]), int(s[0])} })
	if h, _ := ids.TopK("ba", 1, nil); h[0].Score != 1 {
		t.Errorf("token-id Jaccard = %+v", h)
	}
	if Similarity([]int{}, []int{}) != 0 {
		t.Error("empty sets")
	}
}
