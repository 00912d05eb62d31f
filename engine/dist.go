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
	m := float64(mx)
	var s, t float64
	for _, v := range x {
		d := float64(v) - m
		if e := math.Exp(d); e > 0 { // e == 0 for -Inf logits
			s += e
			t += e * d
		}
	}
	logS := math.Log(s)
	return top1, m + logS, logS - t/s
}
