// Package stats puts honest uncertainty on benchmark scores: percentile
// bootstrap confidence intervals over tasks for pass@k, and paired
// comparisons of two methods on the same tasks and seeds (tasks won, lost
// and tied, an exact sign test, and a paired bootstrap interval on the
// difference). Tasks are the unit of resampling because they, not samples,
// are what a benchmark draws from a population; a task's samples share its
// difficulty.
package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"

	"actor/bench/passk"
)

// Resamples is the default number of bootstrap resamples.
const Resamples = 10000

// Interval is a two-sided confidence interval.
type Interval struct{ Lo, Hi float64 }

// Bootstrap returns the 95 % percentile bootstrap interval of the mean of
// values: resamples means of len(values) draws with replacement, seeded, so
// the same call gives the same interval.
func Bootstrap(values []float64, resamples int, seed uint64) (Interval, error) {
	if len(values) == 0 || resamples < 1 {
		return Interval{}, errors.New("stats: bootstrap needs values and at least one resample")
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	means := make([]float64, resamples)
	for r := range means {
		sum := 0.0
		for range values {
			sum += values[rng.IntN(len(values))]
		}
		means[r] = sum / float64(len(values))
	}
	slices.Sort(means)
	return Interval{quantile(means, 0.025), quantile(means, 0.975)}, nil
}

// quantile is the q-quantile of sorted xs, interpolated linearly between
// order statistics (R's type 7).
func quantile(xs []float64, q float64) float64 {
	h := q * float64(len(xs)-1)
	i := int(math.Floor(h))
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-float64(i))*(xs[i+1]-xs[i])
}

// PerTask returns each task's pass@k estimate; ok is false when a task has
// fewer than k samples.
func PerTask(counts []passk.Count, k int) ([]float64, bool) {
	out := make([]float64, len(counts))
	for i, c := range counts {
		v, err := passk.Estimate(c.N, c.C, k)
		if err != nil {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// PassAtCI is the 95 % bootstrap interval over tasks of the mean pass@k.
func PassAtCI(counts []passk.Count, k, resamples int, seed uint64) (Interval, error) {
	v, ok := PerTask(counts, k)
	if !ok {
		return Interval{}, errors.New("stats: pass@k undefined for a task with fewer than k samples")
	}
	return Bootstrap(v, resamples, seed)
}
