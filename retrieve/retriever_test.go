package retrieve

import (
	"hash/fnv"
	"slices"
	"strings"
	"testing"

	"actor/index"
)

func TestExclusion(t *testing.T) {
	ex := Exclusion{Path: "pkg/t.py", StartLine: 20}
	cases := []struct {
		c    index.Candidate
		want bool
	}{
		{index.Candidate{Path: "pkg/t.py", Start: 1, End: 19}, false},  // ends before the target
		{index.Candidate{Path: "pkg/t.py", Start: 10, End: 20}, true},  // reaches its first line
		{index.Candidate{Path: "pkg/t.py", Start: 25, End: 30}, true},  // after it
		{index.Candidate{Path: "other.py", Start: 20, End: 40}, false}, // another file
		{index.Candidate{Path: "t.py", Start: 20, End: 40}, false},     // same name, other folder
	}
	for _, c := range cases {
		if got := ex.Excludes(c.c); got != c.want {
			t.Errorf("Excludes(%+v) = %v", c.c, got)
		}
	}
	if (Exclusion{}).Excludes(cases[1].c) {
		t.Error("zero exclusion hides a candidate")
	}
}

func TestRetrieverAppliesExclusionBeforeRanking(t *testing.T) {
	cands := []index.Candidate{
		{Path: "t.py", Start: 1, End: 5, Text: "helper one"},
		{Path: "t.py", Start: 10, End: 14, Text: "target helper helper"}, // the target itself
		{Path: "u.py", Start: 1, End: 3, Text: "helper"},
		{Path: "v.py", Start: 1, End: 3, Text: "unrelated"},
		{Path: "w.py", Start: 1, End: 3, Text: "helper two"},
	}
	docs := make([]string, len(cands))
	for i, c := range cands {
		docs[i] = c.Text
	}
	r := New(cands, NewBM25(docs, DefaultBM25))
	r.Keep = 3
	got, err := r.Retrieve("target helper", Exclusion{Path: "t.py", StartLine: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d results", len(got))
	}
	for _, g := range got {
		if g.Path == "t.py" && g.Start == 10 {
			t.Fatal("target's own block retrieved")
		}
	}
	if got[0].Path != "u.py" || !SameBlocks(got, got) || SameBlocks(got, got[:2]) {
		t.Errorf("results %+v", got)
	}
	moved := append([]Result(nil), got...)
	moved[1].End++
	if SameBlocks(got, moved) {
		t.Error("SameBlocks ignores line changes")
	}
}

// bagEncoder embeds each whitespace word as a one-hot row (word hash mod
// dim), wrapped in two special tokens, like a toy BERT.
type bagEncoder struct{ dim int }

func (e bagEncoder) ID() string { return "bag" }
func (e bagEncoder) Dim() int   { return e.dim }
func (e bagEncoder) Encode(texts []string) (TokenBatch, error) {
	seq := 0
	toks := make([][]string, len(texts))
	for i, s := range texts {
		toks[i] = append(append([]string{"[CLS]"}, Words(s)...), "[SEP]")
		seq = max(seq, len(toks[i]))
	}
	b := TokenBatch{Seq: seq, Dim: e.dim, Data: make([]float32, len(texts)*seq*e.dim)}
	for i, ts := range toks {
		b.Lengths = append(b.Lengths, len(ts))
		for t, w := range ts {
			h := fnv.New32a()
			h.Write([]byte(w))
			b.Token(i, t)[int(h.Sum32())%e.dim] = 1
		}
	}
	return b, nil
}

func TestDenseScorer(t *testing.T) {
	texts := []string{"alpha beta", "gamma delta", "alpha alpha alpha", "epsilon"}
	cand := Embedder{Encoder: bagEncoder{64}, Pooling: MeanPooling}
	if cand.ID() != "bag|mean" || cand.Dim() != 64 {
		t.Errorf("embedder %s/%d", cand.ID(), cand.Dim())
	}
	vecs, err := cand.Embed(texts)
	if err != nil {
		t.Fatal(err)
	}
	var flat []float32
	for _, v := range vecs {
		flat = append(flat, v...)
	}
	m, err := NewMatrix(flat, 64)
	if err != nil {
		t.Fatal(err)
	}
	d := Dense{Query: Embedder{Encoder: bagEncoder{64}, Pooling: WeightedPooling(DefaultSigma)}, Matrix: m}
	hits, err := d.TopK("alpha", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if hits[0].Index != 2 || hits[1].Index != 0 {
		t.Errorf("TopK = %+v", hits)
	}
	re, err := d.Rerank("gamma delta", []Hit{{0, 9}, {1, 1}, {3, 5}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(re) != 2 || re[0].Index != 1 || re[0].Score < 0.99 {
		t.Errorf("Rerank = %+v", re)
	}
}

// endsEncoder is bagEncoder that can keep a long text's ends: it reads
// the first and the last word only.
type endsEncoder struct{ bagEncoder }

func (e endsEncoder) EncodeCut(texts []string, keepEnds bool) (TokenBatch, error) {
	if !keepEnds {
		return e.Encode(texts)
	}
	cut := make([]string, len(texts))
	for i, s := range texts {
		w := Words(s)
		cut[i] = w[0] + " " + w[len(w)-1]
	}
	return e.Encode(cut)
}

func TestKeepEnds(t *testing.T) {
	if _, err := (Embedder{Encoder: bagEncoder{64}, Pooling: MeanPooling, KeepEnds: true}).Embed([]string{"a b"}); err == nil ||
		!strings.Contains(err.Error(), "bag cannot keep the ends") {
		t.Errorf("an encoder without EncodeCut: %v", err)
	}
	e := Embedder{Encoder: endsEncoder{bagEncoder{64}}, Pooling: MeanPooling, KeepEnds: true}
	got, err := e.Embed([]string{"alpha beta gamma"})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Embedder{Encoder: bagEncoder{64}, Pooling: MeanPooling}.Embed([]string{"alpha gamma"})
	if !slices.Equal(got[0], want[0]) || e.ID() != "bag|mean|ends" {
		t.Errorf("KeepEnds did not reach the encoder (id %s)", e.ID())
	}
}

func TestACToRQuery(t *testing.T) {
	prompt := "def f(x):\n    \"\"\"Doc.\n\n    More.\"\"\"\n"
	if got := ACToRQuery(prompt, ""); got != "def f(x):\n    \"\"\"Doc.\n\n    More.\"\"\"" {
		t.Errorf("initial query %q", got)
	}
	got := ACToRQuery(prompt, "    y = 1\n\n   \n    return y")
	if want := "def f(x):\n    \"\"\"Doc.\n\n    More.\"\"\"\n    y = 1\n    return y"; got != want {
		t.Errorf("query %q, want %q", got, want)
	}
}
