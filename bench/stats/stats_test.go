package stats

import (
	"math"
	"strconv"
	"testing"

	"actor/bench/passk"
)

func TestSignTestByHand(t *testing.T) {
	for _, c := range []struct {
		b, c int
		want float64
	}{
		{1, 6, 2 * 8.0 / 128},   // P(X ≤ 1), X ~ Bin(7, ½) = (1+7)/128
		{6, 1, 2 * 8.0 / 128},   // symmetric
		{0, 5, 2 * 1.0 / 32},    // one-sided tail 1/32
		{0, 10, 2 * 1.0 / 1024}, //
		{3, 3, 1},               // 2·42/64 > 1, capped
		{0, 0, 1},               // no discordant pair
		{2, 8, 2 * 56.0 / 1024}, // (1+10+45)/1024
	} {
		if got := SignTest(c.b, c.c); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("SignTest(%d, %d) = %v, want %v", c.b, c.c, got, c.want)
		}
	}
}

func TestBootstrapByHand(t *testing.T) {
	ci, err := Bootstrap([]float64{0.3, 0.3, 0.3}, Resamples, 1)
	if err != nil || ci.Lo != 0.3 || ci.Hi != 0.3 {
		t.Errorf("constant sample: %+v %v, want zero width at 0.3", ci, err)
	}
	// Two tasks, 0 and 1: the resampled mean is 0, ½ or 1 with chances ¼,
	// ½, ¼, so the 2.5 % and 97.5 % points are 0 and 1.
	if ci, _ := Bootstrap([]float64{0, 1}, Resamples, 1); ci.Lo != 0 || ci.Hi != 1 {
		t.Errorf("{0, 1}: %+v, want [0, 1]", ci)
	}
	// 100 tasks, half passing: mean ½, standard error √(¼/100) = 0.05, so
	// about ½ ± 1.96·0.05.
	vals := make([]float64, 100)
	for i := range 50 {
		vals[i] = 1
	}
	ci, _ = Bootstrap(vals, Resamples, 7)
	if math.Abs(ci.Lo-0.402) > 0.012 || math.Abs(ci.Hi-0.598) > 0.012 {
		t.Errorf("half of 100: %+v, want about [0.402, 0.598]", ci)
	}
	if again, _ := Bootstrap(vals, Resamples, 7); again != ci {
		t.Errorf("same seed, other interval: %+v, %+v", again, ci)
	}
	if _, err := Bootstrap(nil, Resamples, 1); err == nil {
		t.Error("no values: no error")
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{1, 2, 3, 4}
	for q, want := range map[float64]float64{0: 1, 0.5: 2.5, 1: 4, 0.25: 1.75} {
		if got := quantile(xs, q); got != want {
			t.Errorf("quantile(%v) = %v, want %v", q, got, want)
		}
	}
}

func TestPassAtCI(t *testing.T) {
	// Every task passes 2 of 5: pass@1 0.4 on each, so the interval is the point.
	counts := []passk.Count{{Task: "a", N: 5, C: 2}, {Task: "b", N: 5, C: 2}}
	ci, err := PassAtCI(counts, 1, 1000, 3)
	if err != nil || math.Abs(ci.Lo-0.4) > 1e-12 || math.Abs(ci.Hi-0.4) > 1e-12 {
		t.Errorf("pass@1 CI %+v %v, want [0.4, 0.4]", ci, err)
	}
	// pass@3 of 2 of 5 is 1 - C(3,3)/C(5,3) = 0.9.
	if ci, _ := PassAtCI(counts, 3, 1000, 3); math.Abs(ci.Lo-0.9) > 1e-12 || math.Abs(ci.Hi-0.9) > 1e-12 {
		t.Errorf("pass@3 CI %+v, want [0.9, 0.9]", ci)
	}
	if _, err := PassAtCI(counts, 6, 1000, 3); err == nil {
		t.Error("pass@6 of 5 samples: no error")
	}
}

// counts returns n=1 counts for tasks 0..len(pass)-1.
func counts(pass []bool) []passk.Count {
	out := make([]passk.Count, len(pass))
	for i, p := range pass {
		out[i] = passk.Count{Task: strconv.Itoa(i), N: 1}
		if p {
			out[i].C = 1
		}
	}
	return out
}

func TestCompareIsMcNemarWithOneSample(t *testing.T) {
	// 20 tasks: A alone passes 1, B alone passes 6, both pass 3, neither 10.
	var a, b []bool
	add := func(n int, pa, pb bool) {
		for range n {
			a, b = append(a, pa), append(b, pb)
		}
	}
	add(1, true, false)
	add(6, false, true)
	add(3, true, true)
	add(10, false, false)
	p, err := Compare(counts(a), counts(b), Resamples, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Won != 1 || p.Lost != 6 || p.Tied != 13 || math.Abs(p.P-0.125) > 1e-12 || math.Abs(p.Diff-(-5.0/20)) > 1e-12 {
		t.Errorf("paired %+v: want 1 won, 6 lost, 13 tied, p 0.125, diff -0.25", p)
	}
	if !(p.DiffCI.Lo < p.Diff && p.Diff < p.DiffCI.Hi && p.DiffCI.Hi < 0.05) {
		t.Errorf("difference interval %+v around %v", p.DiffCI, p.Diff)
	}
}

func TestCompareWithSamples(t *testing.T) {
	a := []passk.Count{{Task: "x", N: 5, C: 3}, {Task: "y", N: 5, C: 1}, {Task: "z", N: 5, C: 0}}
	b := []passk.Count{{Task: "x", N: 5, C: 1}, {Task: "y", N: 5, C: 1}, {Task: "z", N: 5, C: 0}}
	p, err := Compare(a, b, 1000, 1)
	if err != nil || p.Won != 1 || p.Lost != 0 || p.Tied != 2 || p.P != 1 || math.Abs(p.Diff-0.4/3) > 1e-12 {
		t.Errorf("paired %+v %v", p, err)
	}
	if _, err := Compare(a, b[:2], 1000, 1); err == nil {
		t.Error("different task counts: no error")
	}
	b[1].Task = "w"
	if _, err := Compare(a, b, 1000, 1); err == nil {
		t.Error("different tasks: no error")
	}
}
