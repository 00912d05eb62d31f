package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

func logs(p ...float64) []float32 {
	out := make([]float32, len(p))
	for i, v := range p {
		out[i] = float32(math.Log(v))
	}
	return out
}

// freqs draws n tokens and returns their relative frequencies.
func freqs(s *Sampler, logits []float32, n int) []float64 {
	f := make([]float64, len(logits))
	for range n {
		f[s.Sample(logits)]++
	}
	for i := range f {
		f[i] /= float64(n)
	}
	return f
}

func TestSamplerDistributions(t *testing.T) {
	lg := logs(0.2, 0.5, 0.3)
	cases := []struct {
		name string
		cfg  SamplerConfig
		want []float64
	}{
		{"greedy", SamplerConfig{}, []float64{0, 1, 0}},
		{"T=1", SamplerConfig{Temperature: 1}, []float64{0.2, 0.5, 0.3}},
		// T=0.5 squares the probabilities: .04 .25 .09 over .38
		{"T=0.5", SamplerConfig{Temperature: 0.5}, []float64{0.04 / 0.38, 0.25 / 0.38, 0.09 / 0.38}},
		{"top-k 2", SamplerConfig{Temperature: 1, TopK: 2}, []float64{0, 0.5 / 0.8, 0.3 / 0.8}},
		{"top-k 1", SamplerConfig{Temperature: 1, TopK: 1}, []float64{0, 1, 0}},
		// worked as in HF's TopPLogitsWarper: sorted ascending .2 .3 .5,
		// cumulative .2 .5 1; tokens with cumulative <= 1-p are removed
		{"top-p 0.6", SamplerConfig{Temperature: 1, TopP: 0.6}, []float64{0, 0.5 / 0.8, 0.3 / 0.8}},
		{"top-p 0.5", SamplerConfig{Temperature: 1, TopP: 0.5}, []float64{0, 1, 0}},
		{"top-p 0.85", SamplerConfig{Temperature: 1, TopP: 0.85}, []float64{0.2, 0.5, 0.3}},
	}
	for _, c := range cases {
		c.cfg.Seed = 7
		got := freqs(NewSampler(c.cfg), lg, 40000)
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 0.01 {
				t.Errorf("%s: frequencies %.3f, want %.3f", c.name, got, c.want)
				break
			}
		}
	}
}

func TestSamplerSeeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lg := make([]float32, 5000)
	for i := range lg {
		lg[i] = float32(rng.NormFloat64() * 3)
	}
	draw := func(seed uint64) []int32 {
		s := NewSampler(SamplerConfig{Temperature: 0.7, TopP: 0.95, TopK: 100, Seed: seed})
		var out []int32
		for range 50 {
			out = append(out, s.Sample(lg))
		}
		return out
	}
	if a, b := draw(3), draw(3); !slices.Equal(a, b) {
		t.Fatal("same seed, different tokens")
	}
	if a, b := draw(3), draw(4); slices.Equal(a, b) {
		t.Fatal("different seeds, same 50 tokens")
	}
}

// TestNucleusMatchesFullSort checks the windowed nucleus against sorting
// the whole vocabulary, on flat and peaked distributions.
func TestNucleusMatchesFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, spread := range []float64{0.1, 1, 5} {
		lg := make([]float32, 3000)
		for i := range lg {
			lg[i] = float32(rng.NormFloat64() * spread)
		}
		for _, p := range []float64{0.3, 0.9, 0.99} {
			s := NewSampler(SamplerConfig{Temperature: 0.8, TopP: p})
			got := s.candidates(lg)
			// brute force
			idx := make([]int, len(lg))
			for i := range idx {
				idx[i] = i
			}
			sort.SliceStable(idx, func(a, b int) bool { return lg[idx[a]] > lg[idx[b]] })
			var total float64
			for _, v := range lg {
				total += math.Exp(float64(v) / 0.8)
			}
			var cum float64
			want := 0
			for _, i := range idx {
				if want > 0 && cum >= p*total {
					break
				}
				cum += math.Exp(float64(lg[i]) / 0.8)
				want++
			}
			if len(got) != want {
				t.Errorf("spread %g p %g: nucleus of %d tokens, want %d", spread, p, len(got), want)
			}
		}
	}
}

// KL of two three-token distributions, worked by hand: p = softmax(0, 0,
// ln 2) = (1/4, 1/4, 1/2), q = uniform: Σ p log(p/q) = ½ log(3/4) +
// ½ log(3/2) = ½ log(9/8).
func TestKL(t *testing.T) {
	p := newPrediction([]float32{0, 0, float32(math.Ln2)}, nil)
	q := newPrediction([]float32{5, 5, 5}, nil)
	if got, want := KL(p, q), 0.5*math.Log(9.0/8); math.Abs(got-want) > 1e-6 {
		t.Errorf("KL = %g, want %g", got, want)
	}
	if got := KL(p, p); got != 0 {
		t.Errorf("KL(p, p) = %g", got)
	}
}

// TestCandidatesAndPick: the kept tokens' probabilities are the ones
// Sample draws from, and Pick draws in proportion to reweighed ones.
func TestCandidatesAndPick(t *testing.T) {
	lg := logs(0.2, 0.5, 0.3)
	s := NewSampler(SamplerConfig{Temperature: 1, TopK: 2, Seed: 3})
	c := s.Candidates(lg)
	if len(c) != 2 || c[0].ID != 1 || c[1].ID != 2 || math.Abs(c[0].P-0.625) > 1e-6 || math.Abs(c[1].P-0.375) > 1e-6 {
		t.Errorf("candidates %+v", c)
	}
	if g := NewSampler(SamplerConfig{}).Candidates(lg); len(g) != 1 || g[0] != (Candidate{1, 1}) {
		t.Errorf("greedy candidates %+v", g)
	}
	n := map[int32]int{}
	for range 20000 {
		n[s.Pick([]Candidate{{0, 3}, {1, 0}, {2, 1}})]++
	}
	if n[1] != 0 || math.Abs(float64(n[0])/20000-0.75) > 0.015 {
		t.Errorf("picks %v, want 3:1 between 0 and 2 and never 1", n)
	}
	if id := s.Pick([]Candidate{{5, 0}, {6, 0}}); id != 5 {
		t.Errorf("all zero: picked %d, want the first", id)
	}
}
