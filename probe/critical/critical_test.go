package critical

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// Worked by hand: later attention 0.10 0.02 0.30 0.01 0.05 0.20 0.04.
// Top 5 = 0.30 0.20 0.10 0.05 0.04 → mean 0.69/5 = 0.138.
// Window 3 → values 0.10 0.02 0.30, fewer than 5 → mean 0.42/3 = 0.14.
// Top 1 → 0.30. No later position → 0.
func TestInfluenceHandWorked(t *testing.T) {
	later := []float32{0.10, 0.02, 0.30, 0.01, 0.05, 0.20, 0.04}
	cases := []struct {
		name         string
		topK, window int
		want         float64
		in           []float32
	}{
		{"top5 all", 5, 0, (0.30 + 0.20 + 0.10 + 0.05 + 0.04) / 5, later},
		{"window 3", 5, 3, (0.10 + 0.02 + 0.30) / 3, later},
		{"top1", 1, 0, 0.30, later},
		{"window larger than list", 5, 100, (0.30 + 0.20 + 0.10 + 0.05 + 0.04) / 5, later},
		{"last token", 5, 0, 0, nil},
		{"top 20 > 16 buffer", 20, 0, (0.10 + 0.02 + 0.30 + 0.01 + 0.05 + 0.20 + 0.04) / 7, later},
	}
	for _, c := range cases {
		got := Influence(c.in, c.topK, c.window)
		// inputs are float32: compare at float32 precision.
		if math.Abs(got-c.want) > 1e-7 {
			t.Errorf("%s: influence %v, want %v", c.name, got, c.want)
		}
	}
}

// Logits [2, 1, 0, ln(0)=-Inf]: p = e^2,e^1,e^0 over Z = e^2+e+1 = 11.107337927389695.
// p = 0.665240955774822, 0.244728471054798, 0.090030573170380, 0.
// H = −Σ p ln p = 0.832395581839939 nats (Σ over the three p above).
// log p(target=1) = 1 − ln Z = −1.407605964444380.
func TestDistributionHandWorked(t *testing.T) {
	g, h, lp, err := Distribution([]float32{2, 1, 0, float32(math.Inf(-1))}, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := []float64{0.665240955774822, 0.244728471054798, 0.090030573170380}
	var want float64
	for _, q := range p {
		want -= q * math.Log(q)
	}
	if g != 0 || math.Abs(h-want) > 1e-12 || math.Abs(h-0.832395581839939) > 1e-12 {
		t.Errorf("greedy %d entropy %.15f, want 0 and %.15f", g, h, want)
	}
	if math.Abs(lp-(-1.407605964444380)) > 1e-12 {
		t.Errorf("log p %.15f, want −1.407605964444380", lp)
	}
	// Ties: first maximum wins (torch.argmax).
	if g, _, _, _ := Distribution([]float32{0, 3, 3}, 0); g != 1 {
		t.Errorf("tie greedy %d, want 1", g)
	}
	// Uniform over 4: entropy ln 4.
	if _, h, lp, _ := Distribution([]float32{7, 7, 7, 7}, 2); !near(h, math.Log(4)) || !near(lp, -math.Log(4)) {
		t.Errorf("uniform: H %v logp %v", h, lp)
	}
	for _, bad := range []struct {
		l []float32
		t int32
	}{{nil, 0}, {[]float32{1}, 1}, {[]float32{1}, -1}, {[]float32{float32(math.NaN()), 1}, 0}} {
		if _, _, _, err := Distribution(bad.l, bad.t); err == nil {
			t.Errorf("Distribution(%v, %d): no error", bad.l, bad.t)
		}
	}
}

// Four tokens worked by hand against the default rules (0.8 nats, 0.05).
func TestRulesHandWorked(t *testing.T) {
	r := DefaultRules()
	toks := []struct {
		s        Stats
		criteria Flags
	}{
		// " return" predicted as " return": confident, little attention → none.
		{Stats{Target: 5, Greedy: 5, TargetText: " return", GreedyText: " return", Entropy: 0.1, Influence: 0.01}, 0},
		// different ids, same text (e.g. two encodings of "("): no mismatch by text.
		{Stats{Target: 7, Greedy: 9, TargetText: "(", GreedyText: "(", Entropy: 0.79999, Influence: 0.04999}, 0},
		// mismatch + entropy exactly at threshold (≥).
		{Stats{Target: 1, Greedy: 2, TargetText: " self", GreedyText: " next", Entropy: 0.8, Influence: 0}, Mismatch | Uncertain},
		// attention only, exactly at threshold.
		{Stats{Target: 3, Greedy: 3, TargetText: ",", GreedyText: ",", Entropy: 0.2, Influence: 0.05}, Influential},
		// all three.
		{Stats{Target: 3, Greedy: 4, TargetText: "x", GreedyText: "y", Entropy: 2.5, Influence: 0.3}, AllFlags},
	}
	for i, tc := range toks {
		if got := r.Criteria(tc.s); got != tc.criteria {
			t.Errorf("token %d: criteria %v, want %v", i, got, tc.criteria)
		}
		if got := r.Critical(tc.s); got != (tc.criteria != 0) {
			t.Errorf("token %d: critical %v", i, got)
		}
	}
	// Ablation: without mismatch, token 2 is still critical (uncertain); a
	// mismatch-only token is not.
	noMis := r
	noMis.Enabled = Uncertain | Influential
	if !noMis.Critical(toks[2].s) {
		t.Error("w/o mismatch: uncertain token not critical")
	}
	mOnly := Stats{TargetText: "a", GreedyText: "b", Entropy: 0.1}
	if noMis.Critical(mOnly) || !r.Critical(mOnly) {
		t.Error("mismatch-only token: wrong label under ablation")
	}
	noAttn := r
	noAttn.Enabled = Mismatch | Uncertain
	if noAttn.Critical(toks[3].s) {
		t.Error("w/o attention: attention-only token still critical")
	}
	noEnt := r
	noEnt.Enabled = Mismatch | Influential
	if noEnt.Critical(Stats{Entropy: 5}) {
		t.Error("w/o uncertainty: uncertain-only token still critical")
	}
}

func TestSelfInfoBits(t *testing.T) {
	if got := (Stats{LogProb: math.Log(0.25)}).SelfInfo(); !near(got, 2) {
		t.Errorf("self-information of p=1/4: %v bits, want 2", got)
	}
}

func TestValidateAndString(t *testing.T) {
	if err := DefaultRules().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []Rules{{}, {Enabled: 8 | Mismatch, TopK: 5}, {Enabled: Mismatch, EntropyMin: math.NaN(), TopK: 5},
		{Enabled: Mismatch, InfluenceMin: -1, TopK: 5}, {Enabled: Mismatch}, {Enabled: Mismatch, TopK: 5, Window: -1}}
	for _, r := range bad {
		if r.Validate() == nil {
			t.Errorf("%+v: no error", r)
		}
	}
	if s := (Mismatch | Influential).String(); s != "mismatch+attention" {
		t.Errorf("flags string %q", s)
	}
	if Flags(0).String() != "none" {
		t.Error("zero flags string")
	}
}
