package infill

import (
	"strings"

	"actor/engine"
	"actor/tokenizer"
)

// Sampler draws completion tokens as llama.cpp's sampler chain for infill
// does: the engine sampler's filters (temperature, top-k, top-p), then,
// with Infill, llama.cpp's infill rule (Reweigh).
type Sampler struct {
	*engine.Sampler
	Tok    *tokenizer.Tokenizer
	Infill bool
}

// Sample returns the next token for a row of logits.
func (s *Sampler) Sample(logits []float32) int32 {
	if !s.Infill {
		return s.Sampler.Sample(logits)
	}
	return s.Pick(Reweigh(s.Tok, s.Candidates(logits)))
}

// Reweigh is llama.cpp's infill rule over the filtered candidates: when
// the end-of-generation tokens weigh more than a third of the text tokens
// per candidate, only they are kept; otherwise a token whose text starts
// another's takes the other's probability (the more likely of the two
// keeps the sum), and text tokens under 0.2, then under 1/(n+1) of what
// is left (n text tokens), are dropped. With no text token left the text
// ends (an end-of-generation token alone).
func Reweigh(tok *tokenizer.Tokenizer, cand []engine.Candidate) []engine.Candidate {
	var pText, pEOG float64
	for _, c := range cand {
		if tok.EOG(c.ID) {
			pEOG += c.P
		} else {
			pText += c.P
		}
	}
	if 3*pEOG*float64(len(cand)) > pText {
		var out []engine.Candidate
		for _, c := range cand {
			if tok.EOG(c.ID) {
				out = append(out, c)
			}
		}
		return out
	}
	c := make([]engine.Candidate, len(cand))
	copy(c, cand)
	for i := range c {
		for j := range c {
			if c[i].P == 0 {
				break
			}
			if i == j || c[j].P == 0 {
				continue
			}
			pi, pj := tok.Piece(c[i].ID), tok.Piece(c[j].ID)
			if pi == "" || pj == "" || !strings.HasPrefix(pj, pi) {
				continue
			}
			if c[i].P > c[j].P {
				c[i].P, c[j].P = c[i].P+c[j].P, 0
			} else {
				c[j].P, c[i].P = c[j].P+c[i].P, 0
			}
		}
	}
	c, n := keepAbove(tok, c, 0.2)
	if n == 0 {
		return []engine.Candidate{{ID: endOfText(tok, cand), P: 1}}
	}
	c, _ = keepAbove(tok, c, 1/float64(n+1))
	return c
}

// keepAbove keeps the end-of-generation candidates and the text ones of
// at least th (of the candidates' total), and counts the text ones kept.
func keepAbove(tok *tokenizer.Tokenizer, c []engine.Candidate, th float64) ([]engine.Candidate, int) {
	var total float64
	for _, x := range c {
		total += x.P
	}
	var out []engine.Candidate
	n := 0
	for _, x := range c {
		eog := tok.EOG(x.ID)
		if x.P == 0 || (!eog && x.P < th*total) {
			continue
		}
		if !eog {
			n++
		}
		out = append(out, x)
	}
	return out, n
}

// endOfText is the token that ends a completion: an end-of-generation
// candidate, else the model's end of sequence.
func endOfText(tok *tokenizer.Tokenizer, cand []engine.Candidate) int32 {
	for _, c := range cand {
		if tok.EOG(c.ID) {
			return c.ID
		}
	}
	return tok.EOS()
}
