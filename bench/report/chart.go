package report

import (
	"fmt"
	"math"

	"actor/bench/chart"
	"actor/bench/results"
	"actor/bench/stats"
)

// Chart writes a PNG bar chart of pass@1/3/5 (in %) to path: one group per
// row (method, model and, with several benchmarks, benchmark), the values
// on the bars and 95 % bootstrap intervals over tasks as error bars.
func Chart(rows []Row, path string) error {
	if len(rows) == 0 {
		return fmt.Errorf("no results to chart")
	}
	many := len(benchmarks(rows)) > 1
	b := chart.Bars{Title: "pass@k by method (95 % bootstrap intervals over tasks)", YLabel: "pass@k (%)", Format: "%.1f"}
	for _, r := range rows {
		label := r.Label()
		if many {
			label = r.Benchmark + ": " + label
		}
		b.Groups = append(b.Groups, label)
	}
	for _, k := range results.Ks {
		s := chart.Series{Name: fmt.Sprintf("pass@%d", k)}
		for _, r := range rows {
			v, lo, hi := PassAtPct(r.Group, k)
			s.Values, s.Lo, s.Hi = append(s.Values, v), append(s.Lo, lo), append(s.Hi, hi)
		}
		b.Series = append(b.Series, s)
	}
	return b.Save(path)
}

// PassAtPct returns a group's pass@k and its 95 % bootstrap interval over
// tasks, in %; NaN when pass@k is undefined (fewer than k samples).
func PassAtPct(g results.Group, k int) (v, lo, hi float64) {
	p, ok := g.PassAt[k]
	if !ok {
		return math.NaN(), math.NaN(), math.NaN()
	}
	ci, err := stats.PassAtCI(g.Tasks, k, stats.Resamples, 1)
	if err != nil {
		return 100 * p, math.NaN(), math.NaN()
	}
	return 100 * p, 100 * ci.Lo, 100 * ci.Hi
}
