package engine

import "math"

// Prediction is the model's output at one position: the distribution of
// the next token.
type Prediction struct {
	// Logits has Config.Vocab entries (raw scores, before any sampling
	// transform). The slice is the caller's to keep.
	Logits []float32
	// Hidden is the final hidden state after the final norm (Hugging
	// Face's hidden_states[-1]) at the position that produced Logits;
	// Config.Embed entries, nil unless Session.Hidden was set.
	Hidden []float32
	// Entropy of softmax(Logits) in nats.
	Entropy float64
	// Top1 is the most likely next token (lowest id on ties).
	Top1 int32
	// LogZ is log Σ exp(Logits), so LogProb(id) = Logits[id] - LogZ.
	LogZ float64
}

// LogProb returns the natural log-probability of token id.
func (p Prediction) LogProb(id int32) float64 {
	return float64(p.Logits[id]) - p.LogZ
}

// Top returns the n likeliest tokens, the likeliest first (the lower id
// first on ties): the alternatives a client is shown beside a token.
func (p Prediction) Top(n int) []int32 {
	if n <= 0 {
		return nil
	}
	var ids []int32
	for _, c := range topK(p.Logits, min(n, len(p.Logits))) {
		ids = append(ids, c.id)
	}
	return ids
}

// newPrediction summarises one row of logits.
func newPrediction(logits, hidden []float32) Prediction {
	top1, logZ, ent := summarize(logits)
	return Prediction{Logits: logits, Hidden: hidden, Entropy: ent, Top1: top1, LogZ: logZ}
}

// summarize returns the arg-max, log-partition and entropy (nats) of
// softmax(x) in two passes, accumulating in float64.
func summarize(x []float32) (top1 int32, logZ, entropy float64) {
	mx := x[0]
	for i, v := range x {
		if v > mx {
			mx, top1 = v, int32(i)
		}
	}
	var s, t float64
	for _, v := range x {
		d := v - mx
		e := float64(exp32(d))
		s += e
		t += e * float64(d)
	}
	logS := math.Log(s)
	return top1, float64(mx) + logS, logS - t/s
}

// exp32 is e^x for x ≤ 0 in float32 (relative error below 4e-6; 0 below
// -87, -Inf included). Summarising a 150k-entry vocabulary at every step
// makes math.Exp's float64 cost noticeable.
func exp32(x float32) float32 {
	if !(x >= -87) {
		return 0
	}
	t := x * math.Log2E
	n := float32(int32(t - 0.5)) // t ≤ 0: rounds to an integer within 0.5 of t
	if t-n > 0.5 {
		n++
	}
	f := (t - n) * math.Ln2 // |f| ≤ ln2/2: the series converges fast
	p := 1 + f*(1+f*(1.0/2+f*(1.0/6+f*(1.0/24+f*(1.0/120+f*(1.0/720))))))
	return math.Float32frombits(math.Float32bits(p) + uint32(int32(n))<<23)
}

// KL is the Kullback–Leibler divergence KL(p ‖ q) in nats of the next-token
// distributions softmax(p.Logits) and softmax(q.Logits), e.g. an exact
// prediction p against an approximation q.
func KL(p, q Prediction) float64 {
	var kl float64
	for i, v := range p.Logits {
		lp := float64(v) - p.LogZ
		if lp < -80 { // contributes below e^-80
			continue
		}
		kl += math.Exp(lp) * (lp - (float64(q.Logits[i]) - q.LogZ))
	}
	return max(kl, 0)
}
