// Package critical holds the per-token statistics of a teacher-forced pass
// and the three rules of the ACToR paper (§III-B2) that label a target token
// critical: mismatch, uncertainty (entropy) and subsequent attention
// influence. It is pure arithmetic on plain data so that labelling, analysis
// and ablations can recompute labels from stored statistics.
package critical

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Stats is what one target token of a teacher-forced pass contributes to
// labelling. Entropy and LogProb come from the next-token distribution at the
// position that produced the token (the previous position).
type Stats struct {
	Target     int32   // ground-truth token id
	Greedy     int32   // the model's top-1 prediction at this position
	TargetText string  // decoded ground-truth token
	GreedyText string  // decoded prediction
	Entropy    float64 // entropy of the next-token distribution, nats
	LogProb    float64 // natural log of p(Target)
	Influence  float64 // see Influence
}

// SelfInfo is the token's self-information in bits, −log2 p(target) (paper
// eq. 5); balancing keeps the non-critical tokens with the highest values.
func (s Stats) SelfInfo() float64 { return -s.LogProb / math.Ln2 }

// Flags is a set of satisfied criteria.
type Flags uint8

// The three criteria of the paper, as bits of Flags.
const (
	Mismatch    Flags = 1 << iota // decoded prediction differs from decoded target
	Uncertain                     // entropy ≥ Rules.EntropyMin
	Influential                   // influence ≥ Rules.InfluenceMin
)

// AllFlags is the set of every criterion.
const AllFlags = Mismatch | Uncertain | Influential

// Has reports whether every criterion of o is in f.
func (f Flags) Has(o Flags) bool { return f&o == o }

// String names the criteria, e.g. "mismatch+uncertainty", or "none".
func (f Flags) String() string {
	if f == 0 {
		return "none"
	}
	s := ""
	for _, c := range []struct {
		f    Flags
		name string
	}{{Mismatch, "mismatch"}, {Uncertain, "uncertainty"}, {Influential, "attention"}} {
		if f.Has(c.f) {
			if s != "" {
				s += "+"
			}
			s += c.name
		}
	}
	return s
}

// Rules configures labelling: which criteria count and their thresholds.
// The zero value enables nothing; start from DefaultRules.
type Rules struct {
	Enabled      Flags   `json:"enabled"`       // criteria that make a token critical
	EntropyMin   float64 `json:"entropy_min"`   // nats; paper 0.8
	InfluenceMin float64 `json:"influence_min"` // paper 0.05
	TopK         int     `json:"top_k"`         // influence averages this many largest values; paper 5
	// Window limits influence to the next Window positions (the paper's
	// "next k positions"); 0 uses every later position (the authors' code).
	Window int `json:"window"`
}

// DefaultRules returns the paper's and the authors' code's setting: all
// three criteria, entropy ≥ 0.8 nats, influence ≥ 0.05, top 5 over all later
// positions (METHOD.md §5).
func DefaultRules() Rules {
	return Rules{Enabled: AllFlags, EntropyMin: 0.8, InfluenceMin: 0.05, TopK: 5}
}

// Validate rejects settings that cannot label anything sensibly.
func (r Rules) Validate() error {
	switch {
	case r.Enabled&AllFlags == 0:
		return errors.New("labelling rules: every criterion is switched off")
	case r.Enabled&^AllFlags != 0:
		return fmt.Errorf("labelling rules: unknown criteria bits %#x", uint8(r.Enabled&^AllFlags))
	case math.IsNaN(r.EntropyMin) || math.IsInf(r.EntropyMin, 0) || r.EntropyMin < 0:
		return fmt.Errorf("labelling rules: entropy threshold %v is not a finite number ≥ 0", r.EntropyMin)
	case math.IsNaN(r.InfluenceMin) || math.IsInf(r.InfluenceMin, 0) || r.InfluenceMin < 0:
		return fmt.Errorf("labelling rules: influence threshold %v is not a finite number ≥ 0", r.InfluenceMin)
	case r.TopK < 1:
		return fmt.Errorf("labelling rules: top-k %d must be at least 1", r.TopK)
	case r.Window < 0:
		return fmt.Errorf("labelling rules: window %d must be ≥ 0 (0 = all later positions)", r.Window)
	}
	return nil
}

// Criteria returns every criterion the token meets, enabled or not (the
// analysis counts all three; Critical uses only the enabled ones).
func (r Rules) Criteria(s Stats) Flags {
	var f Flags
	if s.GreedyText != s.TargetText {
		f |= Mismatch
	}
	if s.Entropy >= r.EntropyMin {
		f |= Uncertain
	}
	if s.Influence >= r.InfluenceMin {
		f |= Influential
	}
	return f
}

// Critical reports whether any enabled criterion holds.
func (r Rules) Critical(s Stats) bool { return r.Criteria(s)&r.Enabled != 0 }

// Influence is the subsequent attention influence of one token: the mean of
// the topK largest values of later, the attention that positions after the
// token give it (head-averaged, last layer; later[0] is the next position).
// With window > 0 only the first window entries count. No later position
// gives 0.
func Influence(later []float32, topK, window int) float64 {
	if window > 0 && len(later) > window {
		later = later[:window]
	}
	if len(later) == 0 || topK < 1 {
		return 0
	}
	k := min(topK, len(later))
	// Keep the k largest in a small sorted buffer: k is tiny (5).
	var buf [16]float32
	top := buf[:0]
	if k > len(buf) {
		top = make([]float32, 0, k)
	}
	for _, v := range later {
		if len(top) < k {
			top = append(top, v)
			slices.Sort(top)
			continue
		}
		if v > top[0] {
			top[0] = v
			slices.Sort(top)
		}
	}
	var sum float64
	for _, v := range top {
		sum += float64(v)
	}
	return sum / float64(k)
}

// Distribution computes, from one row of next-token logits, the greedy
// prediction (first index of the maximum, as torch.argmax), the entropy of
// the softmax in nats and the log-probability of target, in float64.
func Distribution(logits []float32, target int32) (greedy int32, entropy, logProb float64, err error) {
	if len(logits) == 0 {
		return 0, 0, 0, errors.New("empty logits row")
	}
	if target < 0 || int(target) >= len(logits) {
		return 0, 0, 0, fmt.Errorf("target id %d outside a vocabulary of %d", target, len(logits))
	}
	maxV := logits[0]
	for i, v := range logits {
		if math.IsNaN(float64(v)) {
			return 0, 0, 0, fmt.Errorf("logit %d is NaN", i)
		}
		if v > maxV {
			maxV, greedy = v, int32(i)
		}
	}
	// log Z = max + log Σ exp(l − max); H = log Z − Σ p·l.
	var z, pl float64
	m := float64(maxV)
	for _, v := range logits {
		e := math.Exp(float64(v) - m)
		if e == 0 { // also keeps −Inf logits (masked tokens) out of 0·∞
			continue
		}
		z += e
		pl += e * (float64(v) - m)
	}
	logZ := math.Log(z)
	entropy = logZ - pl/z
	logProb = float64(logits[target]) - m - logZ
	return greedy, entropy, logProb, nil
}
