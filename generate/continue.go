package generate

import (
	"errors"

	"actor/engine"
	"actor/tokenizer"
)

// Step is one token of a plain continuation.
type Step struct {
	// ID is the sampled token, Pred the distribution it was drawn from.
	ID   int32
	Pred *engine.Prediction
	// Text is the text the token completed (empty while a character is
	// split over tokens; the rest comes with the next tokens or the end).
	Text string
}

// TokenSampler draws the next token from a row of logits
// (*engine.Sampler is one).
type TokenSampler interface {
	Sample(logits []float32) int32
}

// Continue prefills ids into s (the longest prefix the session already
// holds is kept) and decodes after it (Decode). It is the plain
// completion of actor generate --prompt-file and of the server's
// /v1/completions: no retrieval, no stop rule.
func Continue(s *engine.Session, tok *tokenizer.Tokenizer, ids []int32, smp TokenSampler, maxTokens int, each func(Step) error) (stop string, err error) {
	if len(ids) == 0 {
		return "", errors.New("generate: the prompt is empty")
	}
	pred, err := s.Prefill(ids)
	if err != nil {
		return "", err
	}
	return Decode(s, tok, pred, smp, maxTokens, each)
}

// Decode samples up to maxTokens tokens with smp after pred, the
// prediction of the prefill that left s as it is, calling each for every
// token. It stops at an end-of-generation token ("eog"), the token limit
// ("max"), a full context ("context") or an error of each, which it
// returns. Text held back at the end (an unfinished character) comes in a
// last call with ID -1.
func Decode(s *engine.Session, tok *tokenizer.Tokenizer, pred engine.Prediction, smp TokenSampler, maxTokens int, each func(Step) error) (stop string, err error) {
	return DecodeJudged(s, tok, pred, smp, maxTokens, nil, each)
}

// Judge sees the n-th token sampled (id) and the prediction it was drawn
// from before the token is taken. It returns nil to keep the token, or
// the prediction to draw it again from (ACToR: the session was prefilled
// with another context and the tokens before it).
type Judge func(n int, id int32, pred *engine.Prediction) (*engine.Prediction, error)

// DecodeJudged is Decode with judge (nil: none) seeing every token
// before it is taken; a token judge redraws is drawn once more from the
// prediction it returns, and that one is taken.
func DecodeJudged(s *engine.Session, tok *tokenizer.Tokenizer, pred engine.Prediction, smp TokenSampler, maxTokens int, judge Judge, each func(Step) error) (stop string, err error) {
	stream := tok.NewStreamDecoder()
	stop = "max"
	for n := 0; n < maxTokens; n++ {
		id := smp.Sample(pred.Logits)
		if judge != nil {
			again, err := judge(n, id, &pred)
			if err != nil {
				return "", err
			}
			if again != nil {
				pred = *again
				id = smp.Sample(pred.Logits)
			}
		}
		if tok.EOG(id) {
			if err := each(Step{ID: id, Pred: &pred}); err != nil {
				return "", err
			}
			stop = "eog"
			break
		}
		if err := each(Step{ID: id, Pred: &pred, Text: stream.Add(id)}); err != nil {
			return "", err
		}
		if n+1 == maxTokens {
			break
		}
		if pred, err = s.Step(id); err != nil {
			if !errors.Is(err, engine.ErrContextFull) {
				return "", err
			}
			stop = "context"
			break
		}
	}
	if rest := stream.Flush(); rest != "" {
		if err := each(Step{ID: -1, Text: rest}); err != nil {
			return "", err
		}
	}
	return stop, nil
}
