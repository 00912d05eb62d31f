package engine

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// SamplerConfig chooses how the next token is drawn from the logits.
type SamplerConfig struct {
	// Temperature divides the logits; 0 (or less) means greedy decoding.
	Temperature float64
	// TopK keeps the K most likely tokens; 0 keeps all.
	TopK int
	// TopP keeps the smallest set of most likely tokens whose probability
	// reaches TopP (nucleus sampling); 0 or ≥ 1 keeps all.
	TopP float64
	// Seed makes sampling reproducible: the same seed, logits and calls
	// give the same tokens.
	Seed uint64
}

// Sampler draws tokens from logits. Filters apply in Hugging Face's
// order: temperature, then top-k, then top-p on the renormalised
// distribution. A Sampler is not safe for concurrent use.
type Sampler struct {
	cfg SamplerConfig
	rng *rand.Rand
}

// NewSampler returns a sampler seeded with cfg.Seed.
func NewSampler(cfg SamplerConfig) *Sampler {
	return &Sampler{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))}
}

// Config returns the sampler's configuration.
func (s *Sampler) Config() SamplerConfig { return s.cfg }

// Greedy reports whether the sampler always takes the most likely token.
func (s *Sampler) Greedy() bool { return s.cfg.Temperature <= 0 || s.cfg.TopK == 1 }

// Sample returns the next token for a row of logits.
func (s *Sampler) Sample(logits []float32) int32 {
	if s.Greedy() {
		return argmax(logits)
	}
	cand := s.candidates(logits)
	u := s.rng.Float64() * cand[len(cand)-1].cum
	i, _ := slices.BinarySearchFunc(cand, u, func(c candidate, u float64) int { return cmp.Compare(c.cum, u) })
	// BinarySearch finds the first cum >= u; u < total so i is in range
	return cand[min(i, len(cand)-1)].id
}

// Candidate is a token the sampler's filters keep, with its probability
// among the kept tokens.
type Candidate struct {
	ID int32
	P  float64
}

// Candidates returns the tokens temperature, top-k and top-p keep, with
// probabilities that sum to 1, most likely first when a filter sorted
// them; greedy, the most likely token alone. A rule of one's own (the
// infill sampler) reweighs them and draws with Pick.
func (s *Sampler) Candidates(logits []float32) []Candidate {
	if s.Greedy() {
		return []Candidate{{ID: argmax(logits), P: 1}}
	}
	cand := s.candidates(logits)
	total := cand[len(cand)-1].cum
	out := make([]Candidate, len(cand))
	prev := 0.0
	for i, c := range cand {
		out[i] = Candidate{ID: c.id, P: (c.cum - prev) / total}
		prev = c.cum
	}
	return out
}

// Pick draws one of the candidates in proportion to their P (which need
// not sum to 1), with the sampler's random source; the first when all P
// are zero.
func (s *Sampler) Pick(cand []Candidate) int32 {
	var total float64
	for _, c := range cand {
		total += c.P
	}
	u := s.rng.Float64() * total
	pick := cand[0].ID
	for _, c := range cand {
		if c.P <= 0 {
			continue
		}
		if pick = c.ID; u < c.P {
			break
		}
		u -= c.P
	}
	return pick
}

// candidate is a token that survived the filters, with the cumulative
// (unnormalised) probability of it and all candidates before it.
type candidate struct {
	id    int32
	logit float32
	cum   float64
}

// candidates applies temperature, top-k and top-p and returns the kept
// tokens with cumulative weights. Candidates are ordered by descending
// probability when a filter needs it (ties by id), by id otherwise.
func (s *Sampler) candidates(logits []float32) []candidate {
	k := s.cfg.TopK
	if k <= 0 || k > len(logits) {
		k = len(logits)
	}
	nucleus := s.cfg.TopP > 0 && s.cfg.TopP < 1
	var cand []candidate
	var total float64 // mass top-p is relative to; 0: that of cand
	switch {
	case k < len(logits):
		cand = topK(logits, k)
	case nucleus:
		cand, total = nucleusCandidates(logits, s.cfg.Temperature, s.cfg.TopP)
	default:
		cand = make([]candidate, len(logits))
		for i, v := range logits {
			cand[i] = candidate{id: int32(i), logit: v}
		}
	}
	weigh(cand, s.cfg.Temperature)
	if nucleus {
		if total == 0 {
			total = cand[len(cand)-1].cum
		}
		for i := range cand {
			// keep a token while the mass before it is below TopP
			if i > 0 && cand[i-1].cum >= s.cfg.TopP*total {
				cand = cand[:i]
				break
			}
		}
	}
	return cand
}

// weigh fills the cumulative weights exp((logit-max)/T).
func weigh(cand []candidate, temp float64) {
	mx := cand[0].logit
	for _, c := range cand {
		mx = max(mx, c.logit)
	}
	var cum float64
	for i := range cand {
		cum += math.Exp(float64(cand[i].logit-mx) / temp)
		cand[i].cum = cum
	}
}

// topK returns the k highest logits in descending order (ties: lower id
// first), in O(V log k).
func topK(logits []float32, k int) []candidate {
	better := func(a, b candidate) bool { return a.logit > b.logit || (a.logit == b.logit && a.id < b.id) }
	h := make([]candidate, 0, k) // min-heap by "better": h[0] is the worst kept
	down := func(i int) {
		for {
			l, w := 2*i+1, i
			if l < len(h) && better(h[w], h[l]) {
				w = l
			}
			if r := l + 1; r < len(h) && better(h[w], h[r]) {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for i, v := range logits {
		c := candidate{id: int32(i), logit: v}
		if len(h) < k {
			h = append(h, c)
			for j := len(h) - 1; j > 0 && better(h[(j-1)/2], h[j]); j = (j - 1) / 2 {
				h[j], h[(j-1)/2] = h[(j-1)/2], h[j]
			}
		} else if better(c, h[0]) {
			h[0] = c
			down(0)
		}
	}
	slices.SortFunc(h, func(a, b candidate) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	return h
}

// nucleusCandidates returns a prefix of the tokens sorted by descending
// logit that surely contains the top-p nucleus, and the total mass of all
// tokens (weights exp((logit-max)/temp)): it grows a top-k window until the
// window holds at least p of the total mass.
func nucleusCandidates(logits []float32, temp, p float64) ([]candidate, float64) {
	mx := logits[argmax(logits)]
	var total float64
	for _, v := range logits {
		total += math.Exp(float64(v-mx) / temp)
	}
	for k := 64; ; k *= 4 {
		if k >= len(logits) {
			return topK(logits, len(logits)), total
		}
		cand := topK(logits, k)
		var mass float64
		for _, c := range cand {
			mass += math.Exp(float64(c.logit-mx) / temp)
		}
		if mass >= p*total {
			return cand, total
		}
	}
}

// argmax returns the index of the largest value (the lowest on ties).
func argmax(x []float32) int32 {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return int32(best)
}
