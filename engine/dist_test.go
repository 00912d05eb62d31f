package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestExp32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 200000 {
		x := -rng.Float32() * 87
		want := math.Exp(float64(x))
		if got := float64(exp32(x)); math.Abs(got-want) > 4e-6*want {
			t.Fatalf("exp32(%v) = %v, want %v", x, got, want)
		}
	}
	for _, x := range []float32{0, -1e-9, float32(math.Inf(-1)), -88, -1000} {
		want := math.Exp(float64(x))
		if got := float64(exp32(x)); math.Abs(got-want) > 4e-6*want+1e-38 {
			t.Errorf("exp32(%v) = %v, want %v", x, got, want)
		}
	}
}

// TestSummarize compares with a float64 computation, including a -Inf
// logit and a worked two-token case.
func TestSummarize(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	x := make([]float32, 50000)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 4)
	}
	x[123] = 30
	x[7] = float32(math.Inf(-1))
	var mx float64 = 30
	var s, h float64
	for _, v := range x {
		s += math.Exp(float64(v) - mx)
	}
	logZ := mx + math.Log(s)
	for _, v := range x {
		if p := math.Exp(float64(v) - logZ); p > 0 {
			h -= p * (float64(v) - logZ)
		}
	}
	top, gotZ, gotH := summarize(x)
	if top != 123 || math.Abs(gotZ-logZ) > 1e-5 || math.Abs(gotH-h) > 1e-5 {
		t.Errorf("summarize = %d %.7f %.7f, want 123 %.7f %.7f", top, gotZ, gotH, logZ, h)
	}
	// p = (1/3, 2/3): H = ln3 - (2/3)ln2
	top, _, gotH = summarize([]float32{0, float32(math.Ln2)})
	if want := math.Log(3) - 2.0/3*math.Ln2; top != 1 || math.Abs(gotH-want) > 1e-6 {
		t.Errorf("two tokens: top %d entropy %v, want 1 %v", top, gotH, want)
	}
}

// TestTop picks the largest logits, the lower id first on ties.
func TestTop(t *testing.T) {
	got := Prediction{Logits: []float32{0.5, 2, -1, 2, 3, 0.5}}.Top(4)
	if fmt.Sprint(got) != "[4 1 3 0]" {
		t.Errorf("top 4: %v", got)
	}
	if got := (Prediction{Logits: []float32{1, 2}}).Top(5); fmt.Sprint(got) != "[1 0]" {
		t.Errorf("more asked than there are: %v", got)
	}
	if got := (Prediction{Logits: []float32{1, 2}}).Top(0); got != nil {
		t.Errorf("none asked: %v", got)
	}
}
