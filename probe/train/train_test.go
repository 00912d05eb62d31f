package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"actor/probe"
	"actor/probe/critical"
	"actor/probe/labelstore"
)

// Worked by hand: positives 0 and 3; negatives by self-information
// 2:5, 4:5, 5:2, 1:1 → keep the two highest, 2 and 4 (the tie keeps order).
func TestBalanceHandWorked(t *testing.T) {
	pos, neg := Balance([]bool{true, false, false, true, false, false}, []float64{9, 1, 5, 0, 5, 2})
	if !slices.Equal(pos, []int{0, 3}) || !slices.Equal(neg, []int{2, 4}) {
		t.Errorf("pos %v neg %v", pos, neg)
	}
	// Fewer negatives than positives: all negatives.
	pos, neg = Balance([]bool{true, true, false}, []float64{0, 0, 1})
	if len(pos) != 2 || !slices.Equal(neg, []int{2}) {
		t.Errorf("pos %v neg %v", pos, neg)
	}
}

func TestSplitDisjointAndSized(t *testing.T) {
	pos := make([]int, 11)
	neg := make([]int, 23)
	for i := range pos {
		pos[i] = i
	}
	for i := range neg {
		neg[i] = 100 + i
	}
	s, err := Split(pos, neg, 5, 42, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	wantPos := []int{3, 2, 2, 2, 2} // numpy.array_split(11, 5)
	wantNeg := []int{5, 5, 5, 4, 4}
	for i, m := range s {
		np, nn := len(m.TrainPos)+len(m.ValPos), len(m.TrainNeg)+len(m.ValNeg)
		if np != wantPos[i] || nn != wantNeg[i] {
			t.Errorf("member %d: %d pos %d neg", i, np, nn)
		}
		if len(m.TrainPos) != int(0.8*float64(np)) || len(m.TrainNeg) != int(0.8*float64(nn)) {
			t.Errorf("member %d: train %d/%d", i, len(m.TrainPos), len(m.TrainNeg))
		}
		for _, x := range slices.Concat(m.TrainPos, m.TrainNeg, m.ValPos, m.ValNeg) {
			if seen[x] {
				t.Fatalf("index %d in two places", x)
			}
			seen[x] = true
		}
	}
	if len(seen) != 34 {
		t.Errorf("%d indices covered", len(seen))
	}
	again, _ := Split(pos, neg, 5, 42, 0.8)
	other, _ := Split(pos, neg, 5, 43, 0.8)
	if fmt.Sprint(again) != fmt.Sprint(s) || fmt.Sprint(other) == fmt.Sprint(s) {
		t.Error("split not a function of the seed")
	}
	if _, err := Split(pos[:2], neg[:2], 5, 42, 0.8); err == nil {
		t.Error("too few tokens accepted")
	}
}

// synthetic writes a labels directory whose hidden states are two unit Gaussian
// clouds 2·sep σ apart: critical tokens (entropy ≥ 0.8) in one, the rest in
// the other. Non-critical tokens get varied self-information.
func synthetic(t *testing.T, d, samples, perSample int, sep float64) string {
	dir := filepath.Join(t.TempDir(), "labels")
	rules := critical.DefaultRules()
	h := labelstore.NewHeader(probe.ModelInfo{Arch: "llama", Hidden: d, TokenizerHash: "t"}, rules, "synthetic", 0)
	w, err := labelstore.OpenWriter(dir, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	dirv := make([]float64, d)
	for i := range dirv {
		dirv[i] = rng.NormFloat64()
	}
	norm := math.Sqrt(slices.Max([]float64{1e-9, func() float64 {
		var s float64
		for _, v := range dirv {
			s += v * v
		}
		return s
	}()}))
	for s := range samples {
		smp := labelstore.Sample{ID: fmt.Sprintf("r/%d", s), Target: "x"}
		var toks []labelstore.Token
		var hid [][]float32
		for i := range perSample {
			crit := rng.IntN(4) == 0 // 25 % critical: balancing drops most negatives
			st := critical.Stats{TargetText: "a", GreedyText: "a", Entropy: 0.1, LogProb: -rng.Float64() * 5}
			if crit {
				st.Entropy = 1.5
			}
			toks = append(toks, labelstore.NewToken(smp.ID, i, st, rules, -1, -1))
			v := make([]float32, d)
			sign := -1.0
			if crit {
				sign = 1
			}
			for k := range v {
				v[k] = float32(rng.NormFloat64() + sign*sep*dirv[k]/norm)
			}
			hid = append(hid, v)
		}
		if err := w.Add(smp, toks, hid); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// With the paper's full recipe (512 units, lr 1e-4, batch 32, ≤ 50 epochs)
// every member and the ensemble separate the synthetic set, and the same
// seed gives bit-identical weights and record with 1 or 2 goroutines and
// from a copy of the labels in another place.
func TestEnsembleSyntheticSeparable(t *testing.T) {
	const d = 24
	dir := synthetic(t, d, 40, 50, 5) // 2000 tokens, ~500 critical
	set, err := labelstore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	run := func(set *labelstore.Set, threads int) (*probe.Probe, *Report) {
		o := DefaultOptions(set.Header.Rules)
		o.Threads = threads
		o.MLP.Epochs = 25
		p, rep, err := Ensemble(set, o)
		if err != nil {
			t.Fatal(err)
		}
		return p, rep
	}
	p, rep := run(set, 1)
	t.Logf("%d tokens, %d positives, %.0f examples/s", rep.Tokens, rep.Positives, rep.ExamplesPS)
	for _, m := range rep.Members {
		t.Logf("member %d: best epoch %d/%d val acc %.4f P %.3f R %.3f (train %d+%d val %d+%d)",
			m.Member, m.BestEpoch, m.Epochs, m.Val.Accuracy, m.Val.Precision, m.Val.Recall, m.TrainPos, m.TrainNeg, m.ValPos, m.ValNeg)
		if m.Val.Accuracy <= 0.99 {
			t.Errorf("member %d validation accuracy %.4f ≤ 0.99", m.Member, m.Val.Accuracy)
		}
	}
	if rep.Ensemble.Accuracy <= 0.99 {
		t.Errorf("ensemble (unanimous > %.1f) validation accuracy %.4f ≤ 0.99", p.Threshold, rep.Ensemble.Accuracy)
	}
	moved := filepath.Join(t.TempDir(), "elsewhere", "labels")
	if err := os.CopyFS(moved, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	copied, err := labelstore.Open(moved, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	q, _ := run(copied, 2)
	for i := range p.Members {
		if !slices.Equal(p.Members[i].W1, q.Members[i].W1) || !slices.Equal(p.Members[i].W2, q.Members[i].W2) ||
			!slices.Equal(p.Members[i].B1, q.Members[i].B1) || !slices.Equal(p.Members[i].B2, q.Members[i].B2) {
			t.Fatalf("member %d differs between 1 and 2 goroutines", i)
		}
	}
	if string(p.Metrics) != string(q.Metrics) {
		t.Errorf("recorded metrics differ between runs:\n%s\n%s", p.Metrics, q.Metrics)
	}
	path := filepath.Join(t.TempDir(), "p.probe")
	if err := probe.Save(path, p); err != nil {
		t.Fatal(err)
	}
	if _, err := probe.LoadFor(path, set.Header.Model); err != nil {
		t.Fatal(err)
	}
}

func TestEnsembleNeedsBothClasses(t *testing.T) {
	dir := synthetic(t, 4, 2, 5, 5)
	set, err := labelstore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	r := set.Header.Rules
	r.EntropyMin = 100 // nothing is critical any more
	if _, _, err := Ensemble(set, DefaultOptions(r)); err == nil {
		t.Error("no positives accepted")
	}
}

// With a held-out share and a target rate, training never sees the held-out
// functions, and the stored threshold makes the ensemble flag the target
// share of their judged tokens (not the first of each function), as
// recomputed here with the saved probe's own decision.
func TestEnsembleCalibratesOnHeldOutFunctions(t *testing.T) {
	const d, samples, per = 16, 40, 50
	dir := synthetic(t, d, samples, per, 1) // overlapping clouds: probabilities spread out
	set, err := labelstore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	o := DefaultOptions(set.Header.Rules)
	o.MLP.Epochs, o.MLP.Units, o.Holdout, o.TargetRate = 5, 32, 0.25, 0.1
	p, rep, err := Ensemble(set, o)
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Calibration
	if c == nil || c.Functions != 10 || c.Judged != 10*(per-1) || rep.Samples != samples-10 || rep.Tokens != (samples-10)*per {
		t.Fatalf("held out %+v; trained on %d functions, %d tokens", c, rep.Samples, rep.Tokens)
	}
	if p.Threshold != c.Threshold || p.Threshold == probe.DefaultThreshold {
		t.Errorf("probe threshold %v, calibrated %v", p.Threshold, c.Threshold)
	}
	held := holdOut(set, o.Holdout, o.SplitSeed)
	x := make([]float32, d)
	flagged, judgedN := 0, 0
	for _, tk := range set.Tokens {
		if !held[tk.Sample] || tk.Pos == 0 {
			continue
		}
		judgedN++
		if err := set.Hidden([]int64{tk.Row}, x); err != nil {
			t.Fatal(err)
		}
		if p.Critical(x) {
			flagged++
		}
	}
	rate := float64(flagged) / float64(judgedN)
	if judgedN != c.Judged || math.Abs(rate-c.Rate) > 1e-12 || math.Abs(rate-0.1) > 1.0/float64(judgedN)+1e-9 {
		t.Errorf("the probe flags %d of %d held-out tokens (%.4f); recorded %.4f of %d, target 0.1", flagged, judgedN, rate, c.Rate, c.Judged)
	}
	o.TargetRate = 0.3
	if q, _, err := Ensemble(set, o); err != nil || q.Threshold >= p.Threshold {
		t.Errorf("a higher target rate gives threshold %v (err %v), want below %v", q.Threshold, err, p.Threshold)
	}
	o.Holdout = 0
	if _, _, err := Ensemble(set, o); err == nil {
		t.Error("a target rate without held-out functions accepted")
	}
}
