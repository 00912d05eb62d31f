package serve

import "testing"

// TestCandidateSurer works the choice's rule by hand: the higher mean
// log-probability wins, a tie keeps the other (the plain completion), and
// a completion of no tokens loses to any with tokens.
func TestCandidateSurer(t *testing.T) {
	if m := meanLogProb(nil); m != nil {
		t.Errorf("mean of no tokens %v, want nil", *m)
	}
	if m := meanLogProb([]float64{-1, -3}); m == nil || *m != -2 {
		t.Errorf("mean of -1 and -3: %v, want -2", m)
	}
	c := func(lp ...float64) candidate { return candidate{MeanLogProb: meanLogProb(lp)} }
	for _, tc := range []struct {
		name string
		a, b candidate
		want bool
	}{
		{"higher", c(-1), c(-2), true},
		{"lower", c(-2, -2), c(-1, -1, -1), false},
		{"tie", c(-1, -3), c(-2), false},
		{"no tokens against some", c(), c(-9), false},
		{"some against no tokens", c(-9), c(), true},
		{"neither has tokens", c(), c(), false},
	} {
		if got := tc.a.surer(tc.b); got != tc.want {
			t.Errorf("%s: surer %v, want %v", tc.name, got, tc.want)
		}
	}
}
