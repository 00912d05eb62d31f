package train

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"actor/probe"
	"actor/probe/labelstore"
	"actor/probe/mlp"
)

// Calibration records how a probe's threshold was chosen: on functions
// held out of training, over the body tokens Algorithm 1 judges (not the
// first, not white space), the unanimity threshold at which the ensemble
// flags TargetRate of them. The paper's constant threshold (0.7) judged on
// the same tokens is recorded beside it.
type Calibration struct {
	TargetRate float64     `json:"target_rate"`
	Functions  int         `json:"functions"` // held-out functions
	Judged     int         `json:"judged"`    // their judged tokens
	Threshold  float64     `json:"threshold"` // chosen
	Rate       float64     `json:"rate"`      // share flagged at Threshold
	Metrics    mlp.Metrics `json:"metrics"`   // decision at Threshold against the labels
	// PaperRate and PaperMetrics are the same at probe.DefaultThreshold.
	PaperRate    float64     `json:"paper_rate"`
	PaperMetrics mlp.Metrics `json:"paper_metrics"`
}

// holdOut returns the samples kept out of training: a share frac of them
// (at least one when frac > 0 and there are two or more), chosen by seed.
func holdOut(set *labelstore.Set, frac float64, seed uint64) map[string]bool {
	out := map[string]bool{}
	n := len(set.Samples)
	k := int(frac*float64(n) + 0.5)
	if frac > 0 && n > 1 {
		k = min(max(k, 1), n-1)
	} else {
		k = 0
	}
	idx := rand.New(rand.NewPCG(seed, 1)).Perm(n)
	for _, i := range idx[:k] {
		out[set.Samples[i].ID] = true
	}
	return out
}

// judged reports whether Algorithm 1 would judge the labelled token
// (probe.Skip; a teacher-forced body holds no end-of-generation token).
func judged(t labelstore.Token) bool { return probe.Skip(t.Pos, t.Text, false) == "" }

// calibrate chooses the threshold at which p flags rate of the judged
// tokens of the held-out samples (with rate 0 it keeps p's) and records how
// it decides there. Ties at the chosen value flag together, so the rate
// reached can fall short of the target.
func calibrate(set *labelstore.Set, p *probe.Probe, held map[string]bool, rate float64, isCritical func(labelstore.Token) bool) (Calibration, error) {
	c := Calibration{TargetRate: rate, Functions: len(held)}
	var rows []int64
	var ys []int32
	for _, t := range set.Tokens {
		if held[t.Sample] && judged(t) {
			rows = append(rows, t.Row)
			y := int32(0)
			if isCritical(t) {
				y = 1
			}
			ys = append(ys, y)
		}
	}
	c.Judged = len(rows)
	if c.Judged == 0 {
		return c, nil
	}
	// the unanimous decision is min over members of p(critical) > threshold
	mins := make([]float32, len(rows))
	d, k := p.Model.Hidden, len(p.Members)
	const chunk = 512
	x := make([]float32, chunk*d)
	probs := make([]float32, chunk*k)
	for lo := 0; lo < len(rows); lo += chunk {
		hi := min(lo+chunk, len(rows))
		n := hi - lo
		if err := set.Hidden(rows[lo:hi], x[:n*d]); err != nil {
			return c, err
		}
		p.ProbsBatch(x[:n*d], probs[:n*k])
		for i := range n {
			mins[lo+i] = slices.Min(probs[i*k : (i+1)*k])
		}
	}
	c.Threshold = p.Threshold // reported as is without a target rate
	if rate > 0 {
		sorted := slices.SortedFunc(slices.Values(mins), func(a, b float32) int { return cmp.Compare(b, a) })
		c.Threshold = 0
		if flag := int(rate*float64(len(sorted)) + 0.5); flag < len(sorted) {
			// a probability that rounds to 1 cannot be exceeded: stay below
			c.Threshold = min(float64(sorted[flag]), math.Nextafter(1, 0))
		}
	}
	decide := func(thr float64) (float64, mlp.Metrics) {
		var m mlp.Metrics
		n := 0
		for i, v := range mins {
			pred := int32(0)
			if float64(v) > thr {
				pred = 1
				n++
			}
			m.Add(pred, ys[i])
		}
		m.Finish()
		return float64(n) / float64(len(mins)), m
	}
	c.Rate, c.Metrics = decide(c.Threshold)
	c.PaperRate, c.PaperMetrics = decide(probe.DefaultThreshold)
	return c, nil
}
