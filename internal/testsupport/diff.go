package testsupport

import "math"

// MaxAbsDiff returns the largest |a[i] - b[i]|, computed in float64; +Inf
// when the lengths differ.
func MaxAbsDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var m float64
	for i := range a {
		m = max(m, math.Abs(float64(a[i])-float64(b[i])))
	}
	return m
}
