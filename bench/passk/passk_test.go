package passk

import (
	"math"
	"testing"
)

// TestHandWorked checks n = 5 against values worked by hand:
// pass@1 = c/5; pass@3 = 1 - C(5-c,3)/C(5,3) = 1 - {10,4,1,0,0,0}/10;
// pass@5 = 1 - C(5-c,5)/C(5,5) = 0 for c = 0, else 1.
func TestHandWorked(t *testing.T) {
	want := map[int][6]float64{
		1: {0, 0.2, 0.4, 0.6, 0.8, 1},
		3: {0, 0.6, 0.9, 1, 1, 1},
		5: {0, 1, 1, 1, 1, 1},
	}
	for k, row := range want {
		for c := 0; c <= 5; c++ {
			got, err := Estimate(5, c, k)
			if err != nil || math.Abs(got-row[c]) > 1e-12 {
				t.Errorf("pass@%d(n=5, c=%d) = %v, %v; want %v", k, c, got, err, row[c])
			}
		}
	}
}

func TestUndefined(t *testing.T) {
	for _, a := range [][3]int{{2, 0, 3}, {5, 6, 1}, {5, -1, 1}, {5, 1, 0}} {
		if _, err := Estimate(a[0], a[1], a[2]); err == nil {
			t.Errorf("Estimate%v: no error", a)
		}
	}
	if _, ok := Mean([]Count{{N: 5, C: 1}, {N: 2, C: 1}}, 3); ok {
		t.Error("Mean defined although a task has n < k")
	}
	if _, ok := Mean(nil, 1); ok {
		t.Error("Mean of nothing is defined")
	}
}

func TestMean(t *testing.T) {
	got, ok := Mean([]Count{{N: 5, C: 1}, {N: 5, C: 2}, {N: 5, C: 0}}, 3)
	if !ok || math.Abs(got-(0.6+0.9+0)/3) > 1e-12 {
		t.Fatalf("Mean = %v, %v", got, ok)
	}
}
