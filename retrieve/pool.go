package retrieve

import (
	"fmt"
	"math"
	"sync"
)

// Pooling turns a text's token embeddings into one unit-length vector.
type Pooling struct {
	// Weighted selects the paper's position-aware double-Gaussian weights
	// (eq. 9-11); otherwise tokens are averaged.
	Weighted bool
	// Sigma is the width of the two Gaussians as a fraction of the length
	// (σ in eq. 9); used when Weighted.
	Sigma float64
}

// MeanPooling averages the non-pad tokens (special tokens included).
var MeanPooling = Pooling{}

// DefaultSigma is σ = 0.4, suggested by the authors' weight file name.
const DefaultSigma = 0.4

// WeightedPooling is the paper's position-aware pooling with σ = sigma.
func WeightedPooling(sigma float64) Pooling { return Pooling{Weighted: true, Sigma: sigma} }

// String names the pooling for stored-vector identities ("mean",
// "weighted:0.4").
func (p Pooling) String() string {
	if p.Weighted {
		return fmt.Sprintf("weighted:%g", p.Sigma)
	}
	return "mean"
}

// Pool pools every text of the batch and L2-normalises the result (a zero
// vector stays zero).
func (p Pooling) Pool(b TokenBatch) ([][]float32, error) {
	if p.Weighted && !(p.Sigma > 0) {
		return nil, fmt.Errorf("weighted pooling needs σ > 0, got %g", p.Sigma)
	}
	if err := b.Validate(len(b.Lengths)); err != nil {
		return nil, err
	}
	out := make([][]float32, len(b.Lengths))
	acc := make([]float64, b.Dim)
	for i, L := range b.Lengths {
		clear(acc)
		var w []float64
		if p.Weighted {
			w = PositionWeights(p.Sigma, L)
		}
		for t := 0; t < L; t++ {
			a := 1 / float64(L)
			if w != nil {
				a = w[t]
			}
			for j, x := range b.Token(i, t) {
				acc[j] += a * float64(x)
			}
		}
		out[i] = normalized(acc)
	}
	return out, nil
}

// normalized returns v / |v| as float32 (v itself when |v| = 0).
func normalized(v []float64) []float32 {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	inv := 0.0
	if ss > 0 {
		inv = 1 / math.Sqrt(ss)
	}
	out := make([]float32, len(v))
	for j, x := range v {
		out[j] = float32(x * inv)
	}
	return out
}

type weightKey struct {
	sigma float64
	n     int
}

var weightCache sync.Map // weightKey -> []float64

// PositionWeights returns the pooling weights α of eq. 9-10 for a span of n
// tokens: w_i = exp(-i²/(2σ²n²)) + exp(-(i-(n-1))²/(2σ²n²)), α = softmax(w).
// They depend only on (σ, n) and are computed once per pair; the returned
// slice is shared and must not be modified.
func PositionWeights(sigma float64, n int) []float64 {
	key := weightKey{sigma, n}
	if w, ok := weightCache.Load(key); ok {
		return w.([]float64)
	}
	w := make([]float64, n)
	den := 2 * sigma * sigma * float64(n) * float64(n)
	last := float64(n - 1)
	maxW := math.Inf(-1)
	for i := range w {
		x := float64(i)
		w[i] = math.Exp(-x*x/den) + math.Exp(-(x-last)*(x-last)/den)
		maxW = math.Max(maxW, w[i])
	}
	var sum float64
	for i := range w {
		w[i] = math.Exp(w[i] - maxW)
		sum += w[i]
	}
	for i := range w {
		w[i] /= sum
	}
	actual, _ := weightCache.LoadOrStore(key, w)
	return actual.([]float64)
}
