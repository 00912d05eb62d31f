package labeler

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"actor/probe"
	"actor/probe/critical"
	"actor/probe/labelstore"
	"actor/probe/trainset"
)

// byteTok is a toy tokenizer: one token per byte (id = byte value), id 300
// also spells "d", id 1000 is BOS (no bytes).
type byteTok struct{}

func (byteTok) Encode(text string, addSpecial bool) []int32 {
	var ids []int32
	if addSpecial {
		ids = append(ids, 1000)
	}
	for i := 0; i < len(text); i++ {
		ids = append(ids, int32(text[i]))
	}
	return ids
}

func (byteTok) Piece(id int32) string {
	switch {
	case id == 300:
		return "d"
	case id < 256:
		return string([]byte{byte(id)})
	}
	return ""
}

// handScorer returns the hand-made pass below for the body "ab\ncd",
// truncated to the target it is given; it records the prompts it saw.
type handScorer struct {
	prompts [][]int32
	broken  bool
}

var (
	handAttn = [][]float32{{}, {0.04}, {0.02, 0.03}, {0.01, 0.02, 0.06}, {0.04, 0.01, 0.05, 0.3}}
	handEnt  = []float64{0.1, 1.2, 0.3, 0.2, 0.79}
)

func (h *handScorer) Score(prompt, target []int32) (*Scored, error) {
	h.prompts = append(h.prompts, prompt)
	T := len(target)
	sc := &Scored{Top1: append([]int32(nil), target...), Entropy: handEnt[:T], Attention: handAttn[:T]}
	if T > 1 {
		sc.Top1[1] = 'x' // mismatch
	}
	if T > 4 {
		sc.Top1[4] = 300 // another id that also spells "d": no mismatch
	}
	for i := range T {
		sc.LogProb = append(sc.LogProb, -float64(i+1))
		sc.Hidden = append(sc.Hidden, []float32{float32(i), -float32(i)})
	}
	if h.broken {
		sc.Attention = sc.Attention[:T-1]
	}
	return sc, nil
}

func header() labelstore.Header {
	return labelstore.NewHeader(probe.ModelInfo{Arch: "toy", Hidden: 2, TokenizerHash: "bytes"}, critical.DefaultRules(), "no retrieval", 0)
}

// Worked by hand for "ab\ncd" (tokens a b \n c d), default rules:
// influence = mean of top 5 of the attention column from later tokens:
//
//	a: 0.04 0.02 0.01 0.04 → 0.0275    b: 0.03 0.02 0.01 → 0.02
//	\n: 0.06 0.05 → 0.055 (≥ 0.05)     c: 0.3 → 0.3     d: none → 0
//
// entropy ≥ 0.8 only for b; b is predicted as "x" (mismatch); d is
// predicted as id 300, which also spells "d" (no mismatch).
func TestLabelHandWorked(t *testing.T) {
	s := trainset.Sample{ID: "r/0", Repo: "r", Path: "m.py", Prompt: "def f():\n", Body: "ab\ncd"}
	target := byteTok{}.Encode(s.Body, false)
	sc, _ := (&handScorer{}).Score(nil, target)
	smp, toks, hid, err := Label(s, 7, target, sc, byteTok{}, critical.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	wantInf := []float64{0.0275, 0.02, 0.055, 0.3, 0}
	wantCrit := []bool{false, true, true, true, false}
	for i, tk := range toks {
		if math.Abs(tk.Influence-wantInf[i]) > 1e-7 || tk.Critical != wantCrit[i] {
			t.Errorf("token %d %q: influence %v critical %v, want %v %v", i, tk.Text, tk.Influence, tk.Critical, wantInf[i], wantCrit[i])
		}
		if tk.Start != i || tk.End != i+1 || tk.Pos != i {
			t.Errorf("token %d span %d..%d", i, tk.Start, tk.End)
		}
		if hid[i][0] != float32(i) {
			t.Errorf("hidden %d", i)
		}
	}
	if !toks[1].Mismatch || !toks[1].Uncertain || toks[1].Influential || toks[4].Mismatch || toks[4].GreedyText != "d" {
		t.Errorf("flags: b %+v d %+v", toks[1], toks[4])
	}
	if !toks[2].Influential || toks[2].Mismatch || toks[2].Uncertain {
		t.Errorf("newline flags %+v", toks[2])
	}
	if math.Abs(toks[2].SelfInfo-3/math.Ln2) > 1e-12 {
		t.Errorf("self-information %v", toks[2].SelfInfo)
	}
	if smp.Target != "ab\ncd" || smp.Prefix != "def f():\n" || smp.PromptTokens != 7 {
		t.Errorf("sample %+v", smp)
	}
	bad, _ := (&handScorer{broken: true}).Score(nil, target)
	if _, _, _, err := Label(s, 7, target, bad, byteTok{}, critical.DefaultRules()); err == nil {
		t.Error("short attention accepted")
	}
}

func TestRunResumeAndLimits(t *testing.T) {
	samples := []trainset.Sample{
		{ID: "r/0", Path: "m.py", Prompt: "def f():\n", Body: "ab\ncd"},
		{ID: "r/1", Path: "m.py", Prompt: "def g():\n", Body: "ab\ncd"},
		{ID: "r/2", Path: strings.Repeat("long/", 20), Prompt: "def h():\n", Body: "ab"},
	}
	dir := filepath.Join(t.TempDir(), "lab")
	w, err := labelstore.OpenWriter(dir, header(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := &handScorer{}
	var warnings []string
	o := Options{Rules: critical.DefaultRules(), MaxTarget: 4, AddBOS: true,
		Warn: func(s string) { warnings = append(warnings, s) }}
	// Only the first sample this time, without a context limit.
	sum, err := Run(context.Background(), samples[:1], byteTok{}, sc, w, o)
	if err != nil || sum.Labelled != 1 || sum.Tokens != 4 {
		t.Fatalf("first run %+v %v", sum, err)
	}
	w.Close()
	w, err = labelstore.OpenWriter(dir, header(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var progress []int
	o.Context = 30
	o.Progress = func(done, total int) { progress = append(progress, done) }
	sum, err = Run(context.Background(), samples, byteTok{}, sc, w, o)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	// r/0 done before; r/1 prompt 1+len("# file path: m.py\n\ndef g():\n")=29 → room 1
	// token; r/2's prompt does not fit.
	if sum.Done != 1 || sum.Labelled != 1 || sum.Skipped != 1 || sum.Tokens != 1 || len(warnings) != 1 ||
		!strings.Contains(warnings[0], "r/2") || len(progress) != 3 || progress[2] != 3 {
		t.Errorf("second run %+v, warnings %q, progress %v", sum, warnings, progress)
	}
	if p := sc.prompts[0]; p[0] != 1000 || string(bytesOf(p[1:])) != "# file path: m.py\n\ndef f():\n" {
		t.Errorf("prompt %v", p)
	}
	set, err := labelstore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if len(set.Samples) != 2 || set.Samples[0].Target != "ab\nc" || set.Samples[1].Target != "a" || len(set.Tokens) != 5 {
		t.Errorf("stored %+v", set.Samples)
	}
	// A cancelled context stops before the next function.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w, _ = labelstore.OpenWriter(filepath.Join(t.TempDir(), "c"), header(), nil)
	if sum, err := Run(ctx, samples, byteTok{}, sc, w, o); !errors.Is(err, context.Canceled) || sum.Labelled != 0 {
		t.Errorf("cancelled: %+v %v", sum, err)
	}
	w.Close()
	// A failing scorer stops the run with the sample's id.
	w, _ = labelstore.OpenWriter(filepath.Join(t.TempDir(), "x"), header(), nil)
	defer w.Close()
	if _, err := Run(context.Background(), samples, byteTok{}, failScorer{}, w, Options{Rules: critical.DefaultRules()}); err == nil || !strings.Contains(err.Error(), "sample r/0: boom") {
		t.Errorf("scorer error: %v", err)
	}
}

type failScorer struct{}

func (failScorer) Score(_, _ []int32) (*Scored, error) { return nil, errors.New("boom") }

func bytesOf(ids []int32) []byte {
	b := make([]byte, len(ids))
	for i, id := range ids {
		b[i] = byte(id)
	}
	return b
}
