// Package probe is ACToR's critical-token trigger: an ensemble of small MLPs
// that reads the decoder's final-norm hidden state of a generated token and
// says whether the token is critical (all members give p(critical) above a
// threshold). This package holds the trained artefact: its file format, the
// model it belongs to, and inference. Labelling, training and analysis live
// in the sub-packages.
package probe

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sync"

	"actor/probe/critical"
	"actor/probe/internal/vec"
)

// ModelInfo names the decoder a probe's hidden states come from. A probe is
// meaningless for any other model, so files record it and loading checks it.
type ModelInfo struct {
	Arch          string `json:"arch"`           // architecture, e.g. "llama", "qwen2"
	Hidden        int    `json:"hidden"`         // hidden size d
	TokenizerHash string `json:"tokenizer_hash"` // fingerprint of the vocabulary
	Name          string `json:"name,omitempty"` // informative only, not checked
}

// String formats the checked fields for error messages.
func (m ModelInfo) String() string {
	h := m.TokenizerHash
	if len(h) > 16 {
		h = h[:16] + "…"
	}
	return fmt.Sprintf("%s (hidden %d, tokenizer %s)", m.Arch, m.Hidden, h)
}

// Check returns an error when other is not the model m describes.
func (m ModelInfo) Check(other ModelInfo) error {
	if m.Arch != other.Arch || m.Hidden != other.Hidden || m.TokenizerHash != other.TokenizerHash {
		return fmt.Errorf("trained for %s, not %s", m, other)
	}
	return nil
}

// Classes is the output width of every member: index 0 non-critical,
// index 1 critical (as the authors' classifier).
const Classes = 2

// DefaultThreshold is the unanimity threshold of METHOD.md §4: critical
// iff every member gives p(critical) > 0.7.
const DefaultThreshold = 0.7

// Member is one MLP: Linear(d→Units) → ReLU → (dropout in training) →
// Linear(Units→2), weights in PyTorch's row-major (out × in) layout.
type Member struct {
	W1 []float32 // Units × d
	B1 []float32 // Units
	W2 []float32 // 2 × Units
	B2 []float32 // 2
}

// Probe is a trained ensemble and the facts needed to use it correctly.
type Probe struct {
	Model     ModelInfo
	Units     int            // hidden units per member (512)
	Threshold float64        // unanimity threshold on p(critical)
	Rules     critical.Rules // labelling rules its training data used
	Members   []Member
	Metrics   json.RawMessage // validation metrics, JSON, as written by training
}

// Validate checks that shapes agree with Model.Hidden and Units.
func (p *Probe) Validate() error {
	d, u := p.Model.Hidden, p.Units
	switch {
	case d < 1 || u < 1:
		return fmt.Errorf("probe: hidden size %d and units %d must be positive", d, u)
	case len(p.Members) == 0:
		return fmt.Errorf("probe: no members")
	case math.IsNaN(p.Threshold) || p.Threshold < 0 || p.Threshold >= 1:
		return fmt.Errorf("probe: threshold %v outside [0, 1)", p.Threshold)
	}
	for i, m := range p.Members {
		if len(m.W1) != u*d || len(m.B1) != u || len(m.W2) != Classes*u || len(m.B2) != Classes {
			return fmt.Errorf("probe: member %d has shapes W1 %d B1 %d W2 %d B2 %d, want %d %d %d %d",
				i, len(m.W1), len(m.B1), len(m.W2), len(m.B2), u*d, u, Classes*u, Classes)
		}
	}
	return nil
}

// logitGap returns logit(critical) − logit(non-critical) of one member,
// folding the second layer into the first so that no buffer is needed.
func (m *Member) logitGap(h []float32, d, units int) float32 {
	l0, l1 := m.B2[0], m.B2[1]
	w2a, w2b := m.W2[:units], m.W2[units:]
	for j := range units {
		a := m.B1[j] + vec.Dot(m.W1[j*d:(j+1)*d], h)
		if a > 0 {
			l0 += w2a[j] * a
			l1 += w2b[j] * a
		}
	}
	return l1 - l0
}

// sigmoid of the logit gap is the two-class softmax's p(critical).
func sigmoid(x float32) float32 { return float32(1 / (1 + math.Exp(-float64(x)))) }

// Prob returns member i's p(critical) for one hidden state h of length d.
// It allocates nothing and is safe for concurrent use.
func (p *Probe) Prob(i int, h []float32) float32 {
	return sigmoid(p.Members[i].logitGap(h[:p.Model.Hidden], p.Model.Hidden, p.Units))
}

// Probs writes every member's p(critical) for h into out (len ≥ members).
func (p *Probe) Probs(h []float32, out []float32) {
	for i := range p.Members {
		out[i] = p.Prob(i, h)
	}
}

// Critical is the ensemble's decision for one hidden state: every member
// gives p(critical) > Threshold. It stops at the first member that does not.
func (p *Probe) Critical(h []float32) bool {
	for i := range p.Members {
		if float64(p.Prob(i, h)) <= p.Threshold {
			return false
		}
	}
	return true
}

// ProbsBatch scores n = len(hs)/d hidden states stored row after row,
// writing out[r*members+i] = member i's p(critical) for row r, on up to
// GOMAXPROCS goroutines.
func (p *Probe) ProbsBatch(hs []float32, out []float32) {
	d, k := p.Model.Hidden, len(p.Members)
	n := len(hs) / d
	parallelRows(n, func(r int) { p.Probs(hs[r*d:(r+1)*d], out[r*k:(r+1)*k]) })
}

// CriticalBatch decides n = len(hs)/d hidden states, out[r] for row r.
func (p *Probe) CriticalBatch(hs []float32, out []bool) {
	d := p.Model.Hidden
	parallelRows(len(hs)/d, func(r int) { out[r] = p.Critical(hs[r*d : (r+1)*d]) })
}

// parallelRows runs f(0..n-1) over contiguous ranges on several goroutines.
func parallelRows(n int, f func(r int)) {
	w := min(runtime.GOMAXPROCS(0), n)
	if w <= 1 {
		for r := range n {
			f(r)
		}
		return
	}
	var wg sync.WaitGroup
	for g := range w {
		lo, hi := g*n/w, (g+1)*n/w
		wg.Go(func() {
			for r := lo; r < hi; r++ {
				f(r)
			}
		})
	}
	wg.Wait()
}
