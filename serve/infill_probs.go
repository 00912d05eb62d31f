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
	for _, t := range pred.Top(n) {
		p.Top = append(p.Top, one(t))
	}
	return p
}
