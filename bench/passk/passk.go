// Package passk computes the unbiased pass@k estimator of Chen et al. (2021)
// used by RepoExec and CoderEval: for a task with n samples of which c pass,
// pass@k = 1 - C(n-c, k) / C(n, k), and 1 when n - c < k; the benchmark score
// is its mean over tasks.
package passk

import "fmt"

// Estimate returns pass@k for one task with n samples and c passing ones.
func Estimate(n, c, k int) (float64, error) {
	if n < 0 || c < 0 || c > n || k < 1 || k > n {
		return 0, fmt.Errorf("pass@%d undefined for n=%d, c=%d", k, n, c)
	}
	if n-c < k {
		return 1, nil
	}
	// C(n-c, k)/C(n, k) = prod_{i=n-c+1..n} (1 - k/i), stable for large n.
	q := 1.0
	for i := n - c + 1; i <= n; i++ {
		q *= 1 - float64(k)/float64(i)
	}
	return 1 - q, nil
}

// Count is one task's number of samples and passing samples.
type Count struct {
	Task string
	N, C int
}

// Mean returns the mean pass@k over counts. ok is false when a task has
// fewer than k samples (the estimate is undefined) or counts is empty.
func Mean(counts []Count, k int) (mean float64, ok bool) {
	if len(counts) == 0 {
		return 0, false
	}
	sum := 0.0
	for _, c := range counts {
		p, err := Estimate(c.N, c.C, k)
		if err != nil {
			return 0, false
		}
		sum += p
	}
	return sum / float64(len(counts)), true
}
