package infillclient

import (
	"math"
	"testing"
)

// TestEditSimilarity: hand-worked distances, over runes.
func TestEditSimilarity(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"", "", 1}, {"abc", "abc", 1}, {"abc", "", 0}, {"kitten", "sitting", 1 - 3.0/7}, {"é", "e", 0},
	} {
		if got := EditSimilarity(c.a, c.b); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("EditSimilarity(%q, %q) = %g, want %g", c.a, c.b, got, c.want)
		}
	}
}
