package serve

import (
	"actor/engine"
	"actor/tokenizer"
)

// tokenProb is a written token with its log-probability and the most
// likely tokens in its place: an entry of llama.cpp's
// completion_probabilities for a request with n_probs (the softmax of the
// model's logits, before any sampler, as llama.cpp's default
// post_sampling_probs false). A client reads how sure the model was of a
// completion from it (an editor may hide an unsure one; the line
// benchmark measures whether the repository's context helps the unsure
// lines more).
type tokenProb struct {
	tokenLogProb
	Top []tokenLogProb `json:"top_logprobs"`
}

// tokenLogProb is a token, its text and bytes, and its log-probability.
type tokenLogProb struct {
	ID      int32   `json:"id"`
	Token   string  `json:"token"`
	Bytes   []int   `json:"bytes"`
	LogProb float64 `json:"logprob"`
}

// maxProbs bounds n_probs (llama.cpp accepts any number; a vocabulary's
// worth would be megabytes a token).
const maxProbs = 100

// newTokenProb describes token id drawn from pred with its n likeliest
// alternatives, the likeliest first (the lower id first on ties).
func newTokenProb(tok *tokenizer.Tokenizer, pred *engine.Prediction, id int32, n int) tokenProb {
	one := func(id int32) tokenLogProb {
		text := tok.DecodeSpecial([]int32{id})
		b := make([]int, len(text))
		for i := range len(text) {
			b[i] = int(text[i])
		}
		return tokenLogProb{ID: id, Token: text, Bytes: b, LogProb: pred.LogProb(id)}
	}
	p := tokenProb{tokenLogProb: one(id), Top: []tokenLogProb{}}
	for _, t := range topIDs(pred.Logits, n) {
		p.Top = append(p.Top, one(t))
	}
	return p
}

// topIDs are the ids of the n largest logits, the largest first, the
// lower id first on ties.
func topIDs(logits []float32, n int) []int32 {
	var top []int32
	for i, l := range logits {
		if len(top) == n && l <= logits[top[n-1]] {
			continue
		}
		at := len(top)
		for at > 0 && logits[top[at-1]] < l {
			at--
		}
		if len(top) < n {
			top = append(top, 0)
		}
		copy(top[at+1:], top[at:len(top)-1])
		top[at] = int32(i)
	}
	return top
}
