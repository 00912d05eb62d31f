package retrieve

import (
	"math"
	"testing"
)

// Reference values computed in float64 with Python's math module from
// eq. 9-10 (see the formula in PositionWeights).
func TestPositionWeights(t *testing.T) {
	cases := []struct {
		sigma float64
		n     int
		want  []float64
	}{
		{0.5, 3, []float64{0.3115567571821942, 0.37688648563561156, 0.3115567571821942}},
		{0.4, 7, []float64{0.1392854479701753, 0.1450538281465315, 0.1441914207574015, 0.14293860625178342, 0.1441914207574015, 0.1450538281465315, 0.1392854479701753}},
		{0.1, 10, []float64{0.1763109958445658, 0.1189591452869604, 0.07426091281297699, 0.06558575147965877, 0.06488319457583804, 0.06488319457583804, 0.06558575147965877, 0.07426091281297699, 0.1189591452869604, 0.1763109958445658}},
		{0.4, 1, []float64{1}},
	}
	for _, c := range cases {
		got := PositionWeights(c.sigma, c.n)
		if len(got) != len(c.want) {
			t.Fatalf("σ=%g n=%d: %d weights", c.sigma, c.n, len(got))
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-15 {
				t.Errorf("σ=%g n=%d α[%d] = %.17g, want %.17g", c.sigma, c.n, i, got[i], c.want[i])
			}
		}
		if again := PositionWeights(c.sigma, c.n); &again[0] != &got[0] {
			t.Errorf("σ=%g n=%d: weights not cached", c.sigma, c.n)
		}
	}
}

// batch builds a TokenBatch from per-text token rows, padding with huge
// values that pooling must never read.
func batch(dim, seq int, texts ...[][]float32) TokenBatch {
	b := TokenBatch{Seq: seq, Dim: dim}
	for _, toks := range texts {
		b.Lengths = append(b.Lengths, len(toks))
		for t := 0; t < seq; t++ {
			if t < len(toks) {
				b.Data = append(b.Data, toks[t]...)
				continue
			}
			for j := 0; j < dim; j++ {
				b.Data = append(b.Data, 1e30)
			}
		}
	}
	return b
}

func TestMeanPooling(t *testing.T) {
	b := batch(2, 4,
		[][]float32{{1, 0}, {0, 1}},
		[][]float32{{2, 0}, {0, 0}, {0, 0}, {0, 6}},
		[][]float32{{0, 0}},
	)
	got, err := MeanPooling.Pool(b)
	if err != nil {
		t.Fatal(err)
	}
	// Means (0.5, 0.5) -> (1/√2, 1/√2); (0.5, 1.5) -> (1, 3)/√10; zero stays zero.
	want := [][]float32{{float32(1 / math.Sqrt2), float32(1 / math.Sqrt2)}, {float32(1 / math.Sqrt(10)), float32(3 / math.Sqrt(10))}, {0, 0}}
	for i := range want {
		for j := range want[i] {
			if math.Abs(float64(got[i][j]-want[i][j])) > 1e-7 {
				t.Errorf("text %d: got %v, want %v", i, got[i], want[i])
			}
		}
	}
}

func TestWeightedPooling(t *testing.T) {
	// Tokens e_i = (i, 1, -i²), L = 4, σ = 0.4; reference from Python.
	b := batch(3, 6, [][]float32{{0, 1, 0}, {1, 1, -1}, {2, 1, -4}, {3, 1, -9}})
	got, err := WeightedPooling(0.4).Pool(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.3856906032210007, 0.25712706881400044, -0.886074731086572}
	for j := range want {
		if math.Abs(float64(got[0][j])-want[j]) > 1e-7 {
			t.Fatalf("got %v, want %v", got[0], want)
		}
	}
}

func TestPoolRejectsBadBatches(t *testing.T) {
	good := batch(2, 2, [][]float32{{1, 2}})
	bad := []TokenBatch{
		{Data: good.Data, Seq: 2, Dim: 2, Lengths: []int{0}},
		{Data: good.Data, Seq: 2, Dim: 2, Lengths: []int{3}},
		{Data: good.Data[:3], Seq: 2, Dim: 2, Lengths: []int{1}},
		{Data: good.Data, Seq: 2, Dim: 0, Lengths: []int{1}},
	}
	for i, b := range bad {
		if _, err := MeanPooling.Pool(b); err == nil {
			t.Errorf("bad batch %d accepted", i)
		}
	}
	if _, err := WeightedPooling(0).Pool(good); err == nil {
		t.Error("σ = 0 accepted")
	}
	if MeanPooling.String() != "mean" || WeightedPooling(0.4).String() != "weighted:0.4" {
		t.Error("pooling names changed: stored vector identities depend on them")
	}
}
