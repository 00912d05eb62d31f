package main

import (
	"slices"
	"testing"
)

func TestWordEnds(t *testing.T) {
	line := "    return sum(item.quantity for item in items)"
	got := wordEnds(line, 4)
	want := []int{4, 10, 14, 19, 28, 32, 37, 40, len(line)}
	if !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
	if q := quantile([]float64{1, 2, 3, 4}, 0.5); q != 2.5 {
		t.Errorf("median %g", q)
	}
	if q := quantile([]float64{1, 2, 3, 4}, 0.95); q < 3.8 || q > 4 {
		t.Errorf("p95 %g", q)
	}
}
