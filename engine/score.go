package engine

import (
	"errors"
	"slices"

	"actor/engine/ggml"
)

// Scores is the teacher-forced evaluation of a target continuation after a
// prompt: for each target token i, what the model predicted at the position
// before it (the position that produces token i).
type Scores struct {
	Top1    []int32   // most likely token
	Entropy []float64 // entropy of the predicted distribution, nats
	LogProb []float64 // log-probability of the actual target token
	Hidden  [][]float32
	// Attention[j][i], for i < j, is the attention target token j pays to
	// target token i in the last layer, averaged over heads (len(Attention[j])
	// == j). Column i collects what later positions give token i.
	Attention [][]float32
}

// Influence is ACToR's attention influence of target token i: the mean of
// the k largest attentions later target tokens pay it (of all of them when
// fewer than k follow; 0 for the last token).
func (sc *Scores) Influence(i, k int) float64 {
	col := sc.AttentionTo(i)
	if len(col) == 0 || k <= 0 {
		return 0
	}
	slices.Sort(col)
	top := col[max(0, len(col)-k):]
	var s float64
	for _, v := range top {
		s += float64(v)
	}
	return s / float64(len(top))
}

// AttentionTo returns column i of Attention: the attention target tokens
// i+1, i+2, … pay to token i, in order.
func (sc *Scores) AttentionTo(i int) []float32 {
	var col []float32
	for j := i + 1; j < len(sc.Attention); j++ {
		col = append(col, sc.Attention[j][i])
	}
	return col
}

// scoreLogitBytes bounds the logits read back by one forward pass of Score.
const scoreLogitBytes = 64 << 20

// Score evaluates target after prompt in one forward pass over
// prompt+target (in chunks, so long inputs keep memory bounded). The cached
// prefix shared with prompt is reused; afterwards the session holds
// prompt+target. Results equal decoding target step by step after prompt.
func (s *Session) Score(prompt, target []int32) (*Scores, error) {
	if len(prompt) == 0 || len(target) == 0 {
		return nil, errors.New("engine: score needs a non-empty prompt and target")
	}
	seq := slices.Concat(prompt, target)
	if err := s.fits(len(seq)); err != nil {
		return nil, err
	}
	// positions first..len(seq)-1 produce outputs: first predicts target[0]
	P, T, first := len(prompt), len(target), len(prompt)-1
	s.tokens = s.tokens[:min(commonPrefix(s.tokens, seq), first)]
	for start := len(s.tokens); start < first; start += s.m.opts.BatchSize {
		end := min(start+s.m.opts.BatchSize, first)
		if _, err := s.forward(ggml.Batch{Tokens: seq[start:end], Start: start}); err != nil {
			return nil, err
		}
	}
	sc := &Scores{
		Top1: make([]int32, T), Entropy: make([]float64, T), LogProb: make([]float64, T),
		Hidden: make([][]float32, T), Attention: make([][]float32, T),
	}
	V, H := s.m.Config.Vocab, s.m.Config.Embed
	chunk := max(1, min(s.m.opts.BatchSize, scoreLogitBytes/(4*V)))
	for start := first; start < len(seq); start += chunk {
		end := min(start+chunk, len(seq))
		b := ggml.Batch{Tokens: seq[start:end], Start: start, Logits: true, Hidden: true, Attention: true}
		for r := range end - start {
			b.Outputs = append(b.Outputs, r)
		}
		out, err := s.forward(b)
		if err != nil {
			return nil, err
		}
		nTot := end
		for r := range end - start {
			pos := start + r
			if i := pos - first; i < T {
				pred := newPrediction(out.Logits[r*V:(r+1)*V], nil)
				sc.Top1[i], sc.Entropy[i], sc.LogProb[i] = pred.Top1, pred.Entropy, pred.LogProb(target[i])
				sc.Hidden[i] = slices.Clone(out.Hidden[r*H : (r+1)*H])
			}
			if j := pos - P; j >= 0 {
				row := out.Attention[r*nTot : (r+1)*nTot]
				sc.Attention[j] = slices.Clone(row[P:pos])
			}
		}
	}
	return sc, nil
}
