package stats

import (
	"fmt"
	"math"

	"actor/bench/passk"
)

// Paired compares method A with method B on the same tasks by each task's
// pass@1 estimate (c/n): tasks where A scores higher are Won, lower Lost,
// equal Tied. P is the exact two-sided sign test on Won against Lost (ties
// dropped): with one sample per task it is exactly McNemar's exact test (A
// passes and B fails, against the reverse); with n samples per task it tests
// whether A beats B on more tasks than chance, without assuming the tasks'
// estimates are normal. Diff is the mean pass@1 of A minus B, and DiffCI its
// 95 % paired bootstrap interval (tasks resampled jointly for both).
type Paired struct {
	Won, Lost, Tied int
	P               float64
	Diff            float64
	DiffCI          Interval
}

// Compare pairs a and b task by task; both must list the same tasks in the
// same order.
func Compare(a, b []passk.Count, resamples int, seed uint64) (Paired, error) {
	if len(a) != len(b) || len(a) == 0 {
		return Paired{}, fmt.Errorf("stats: paired comparison of %d and %d tasks", len(a), len(b))
	}
	pa, okA := PerTask(a, 1)
	pb, okB := PerTask(b, 1)
	if !okA || !okB {
		return Paired{}, fmt.Errorf("stats: paired comparison needs a sample of every task")
	}
	var out Paired
	diffs := make([]float64, len(a))
	for i := range a {
		if a[i].Task != b[i].Task {
			return Paired{}, fmt.Errorf("stats: task %s paired with task %s", a[i].Task, b[i].Task)
		}
		diffs[i] = pa[i] - pb[i]
		out.Diff += diffs[i] / float64(len(a))
		switch {
		case diffs[i] > 0:
			out.Won++
		case diffs[i] < 0:
			out.Lost++
		default:
			out.Tied++
		}
	}
	out.P = SignTest(out.Won, out.Lost)
	var err error
	out.DiffCI, err = Bootstrap(diffs, resamples, seed)
	return out, err
}

// SignTest is the exact two-sided binomial test of b successes against c
// failures under p = ½: min(1, 2·P(X ≤ min(b, c))) for X ~ Bin(b+c, ½).
// With b and c the discordant pairs it is McNemar's exact test. No
// discordant pair gives 1.
func SignTest(b, c int) float64 {
	n, k := b+c, min(b, c)
	if n == 0 {
		return 1
	}
	// Sum C(n, i)/2^n for i ≤ k in logs, stable for large n.
	tail := 0.0
	for i := 0; i <= k; i++ {
		tail += math.Exp(logChoose(n, i) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*tail)
}

// logChoose is log C(n, k).
func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
