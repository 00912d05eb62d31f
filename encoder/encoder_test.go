package encoder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"actor/convert"
	"actor/internal/testsupport"
	"actor/tokenizer"
)

// reference is a fixture written by scripts/fixtures/encoders/make_hf_fixtures.py:
// transformers' ids and last_hidden_state for a padded batch of texts.
type reference struct {
	Texts []string
	Cases []struct {
		Layout string
		IDs    [][]int32
		Hidden [][]float32
	}
}

func readReference(t *testing.T, name string) reference {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var r reference
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// convertFixture converts a testdata checkpoint folder to a temporary GGUF.
func convertFixture(t testing.TB, dir string, typ convert.Type) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(dir)+".gguf")
	if _, err := convert.Convert(filepath.Join("testdata", dir), out, convert.Options{Type: typ}); err != nil {
		t.Fatal(err)
	}
	return out
}

func open(t testing.TB, path string, o Options) *Encoder {
	t.Helper()
	e, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// maxDiff is the largest |got - want| over the real tokens of every text.
func maxDiff(t *testing.T, got [][]float32, want [][]float32) float64 {
	t.Helper()
	worst := 0.0
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("text %d: %d values, want %d", i, len(got[i]), len(want[i]))
		}
		worst = max(worst, testsupport.MaxAbsDiff(got[i], want[i]))
	}
	return worst
}

// realTokens cuts each text's real tokens out of a batch.
func realTokens(e *Encoder, seqs [][]int32) ([][]float32, error) {
	b, err := e.EncodeIDs(seqs)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(seqs))
	for i, n := range b.Lengths {
		out[i] = b.Data[i*b.Seq*b.Dim:][:n*b.Dim]
	}
	return out, nil
}

// TestTinyNumerics converts the tiny random BERT and RoBERTa checkpoints,
// checks that our tokenizer gives transformers' ids for every layout, and
// that the last hidden layer matches transformers within 1e-4 (F32) on a
// batch of texts of different lengths (padding masked).
func TestTinyNumerics(t *testing.T) {
	cases := []struct {
		dir, ref string
		typ      convert.Type
		tol      float64
	}{
		{"tiny_bert", "tiny_bert.json", convert.F32, 1e-4},
		{"tiny_bert_json", "tiny_bert.json", convert.F32, 1e-4},
		{"tiny_roberta", "tiny_roberta.json", convert.F32, 1e-4},
		{"tiny_bert", "tiny_bert.json", convert.F16, 3e-2},
		{"tiny_roberta", "tiny_roberta.json", convert.Q8_0, 1e-1},
	}
	for _, c := range cases {
		t.Run(c.dir+"/"+string(c.typ), func(t *testing.T) {
			ref := readReference(t, c.ref)
			path := convertFixture(t, c.dir, c.typ)
			for _, rc := range ref.Cases {
				layout, err := ParseLayout(rc.Layout)
				if err != nil {
					t.Fatal(err)
				}
				e := open(t, path, Options{Layout: layout, Threads: 2})
				for i, text := range ref.Texts {
					if got := e.Tokens(text); !slices.Equal(got, rc.IDs[i]) {
						t.Errorf("%s text %d: ids %v, transformers %v", rc.Layout, i, got, rc.IDs[i])
					}
				}
				got, err := realTokens(e, rc.IDs)
				if err != nil {
					t.Fatal(err)
				}
				d := maxDiff(t, got, rc.Hidden)
				t.Logf("%s %s: max abs error %.2e", rc.Layout, c.typ, d)
				if d > c.tol {
					t.Errorf("%s: max abs error %.3g > %g", rc.Layout, d, c.tol)
				}
			}
		})
	}
}

// TestBatchInvariance: a text's embeddings do not depend on the other
// texts of its call (grouping, padding) beyond float rounding.
func TestBatchInvariance(t *testing.T) {
	ref := readReference(t, "tiny_roberta.json")
	e := open(t, convertFixture(t, "tiny_roberta", convert.F32), Options{Threads: 1})
	all, err := realTokens(e, ref.Cases[1].IDs)
	if err != nil {
		t.Fatal(err)
	}
	for i, ids := range ref.Cases[1].IDs {
		one, err := realTokens(e, [][]int32{ids})
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(t, one, all[i:i+1]); d > 1e-5 {
			t.Errorf("text %d alone differs from the batch by %.3g", i, d)
		}
	}
}

// TestPasses checks the cut into forward passes on hand-worked cases.
func TestPasses(t *testing.T) {
	cases := []struct {
		lens   []int
		budget int
		want   [][]int
	}{
		{[]int{5, 3, 4}, 100, [][]int{{1, 2, 0}}},
		// sorted 3, 4, 5, 9: 3+4 fit 8, 5 starts a pass, 9 alone
		{[]int{5, 3, 9, 4}, 8, [][]int{{1, 3}, {0}, {2}}},
		{nil, 10, nil},
	}
	for _, c := range cases {
		if got := passes(c.lens, c.budget); !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("passes(%v, %d) = %v, want %v", c.lens, c.budget, got, c.want)
		}
	}
}

// TestRepeatedQuery checks the one-entry memo of Encode: texts whose cut
// input is the same get the same embedding without a forward pass, other
// texts are computed, and callers get their own copy.
func TestRepeatedQuery(t *testing.T) {
	e := open(t, convertFixture(t, "tiny_bert", convert.F32), Options{Threads: 1, MaxTokens: 8})
	long := strings.Repeat("hello world ", 20)
	first, err := e.Encode([]string{long})
	if err != nil {
		t.Fatal(err)
	}
	net := e.net
	e.net = nil // a forward pass now would panic
	again, err := e.Encode([]string{long + "more text past the cut"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(first.Data, again.Data) || !slices.Equal(first.Lengths, again.Lengths) {
		t.Fatal("same cut input, different embedding")
	}
	again.Data[0]++
	if third, _ := e.Encode([]string{long}); third.Data[0] != first.Data[0] {
		t.Fatal("the memo shares its data with a caller")
	}
	e.net = net
	other, err := e.Encode([]string{"world"})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := e.EncodeIDs([][]int32{e.Tokens("world")})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(other.Data, fresh.Data) {
		t.Fatal("a new text did not get its own embedding")
	}
}

// TestKeepEnds: with keepEnds a text over MaxTokens keeps its first and
// its last tokens, so a query that grows at its end still changes its
// embedding; cut at its end, it does not.
func TestKeepEnds(t *testing.T) {
	e := open(t, convertFixture(t, "tiny_bert", convert.F32), Options{Threads: 1, MaxTokens: 8})
	long := strings.Repeat("hello world ", 20)
	ids := e.tok.EncodeSpecial(long+"alpha", false)
	want := append(append(append([]int32{e.tok.EncodeForModel("", 0)[0]}, ids[:3]...), ids[len(ids)-3:]...), e.tok.EncodeForModel("", 0)[1])
	if got := e.tokens(long+"alpha", tokenizer.CutEnds); !slices.Equal(got, want) {
		t.Fatalf("tokens %v, want %v (3 from the start, 3 from the end)", got, want)
	}
	a, err := e.EncodeCut([]string{long + "alpha"}, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.EncodeCut([]string{long + "beta"}, true)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := e.EncodeIDs([][]int32{want})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a.Data, b.Data) || !slices.Equal(a.Data, fresh.Data) {
		t.Error("keepEnds: the end of a long text does not reach the embedding")
	}
	c, _ := e.Encode([]string{long + "alpha"})
	d, _ := e.Encode([]string{long + "beta"})
	if !slices.Equal(c.Data, d.Data) {
		t.Error("cut at the end, the two texts should read the same tokens")
	}
}
