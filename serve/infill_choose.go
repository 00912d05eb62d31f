package serve

import (
	"context"

	"actor/infill"
)

// contextChoice is the answer's account of a chosen completion
// (context_choice): whether the one written with the repository's context
// was answered, and both candidates.
type contextChoice struct {
	Context bool      `json:"context"`
	Without candidate `json:"without"`
	With    candidate `json:"with"`
}

// candidate is one of the two completions: its text and the mean
// log-probability of its tokens (null for a completion of no tokens,
// which loses to any other).
type candidate struct {
	Content     string   `json:"content"`
	MeanLogProb *float64 `json:"mean_logprob"`
}

// surer reports whether the model was surer of c than of d.
func (c candidate) surer(d candidate) bool {
	return c.MeanLogProb != nil && (d.MeanLogProb == nil || *c.MeanLogProb > *d.MeanLogProb)
}

// newChoice is the choice between the completion without the context
// and the one with it, each its text and its tokens' log-probabilities:
// the one with the higher mean, the one without on a tie.
func newChoice(without string, withoutLP []float64, with string, withLP []float64) *contextChoice {
	a, b := candidate{without, meanLogProb(withoutLP)}, candidate{with, meanLogProb(withLP)}
	return &contextChoice{Context: b.surer(a), Without: a, With: b}
}

// choosing reports whether a completion is written twice and the surer
// answered (chooseInfill): when its prompt shows the repository's context,
// unless the server always answers with it (--cursor-always) or ACToR
// makes the context as it writes.
func (s *Server) choosing(j *infillJob, p infill.Prompt) bool {
	if s.cfg.CursorAlways || j.actor {
		return false
	}
	for _, c := range p.Chunks {
		if c.Source != infill.SourceEditor {
			return true
		}
	}
	return false
}

// chooseInfill writes the completion twice, with llama.cpp's prompt
// (plain) and with the repository's context (with), and answers the one
// whose tokens the model gave the higher mean log-probability, the plain
// one on a tie. The repository's context makes the small models'
// answers better where they copy a name or a pattern from it and worse
// where it only distracts them, and a model is surer of its answers
// where they are right (BENCHMARKS.md, "Completion at the cursor").
// Streamed, the chosen text is sent as one piece once both are written.
// The answer's timings add both completions'; its other fields are the
// chosen one's.
func (s *Server) chooseInfill(ctx context.Context, j *infillJob, plain, with infill.Prompt, st *sse) (infillResult, infill.Prompt, error) {
	var res [2]infillResult
	for i, p := range []infill.Prompt{plain, with} {
		r, err := s.completeInfill(ctx, j, p.IDs, nil, nil)
		if err != nil {
			return infillResult{}, infill.Prompt{}, err
		}
		res[i] = r
	}
	ch := newChoice(res[0].Content, res[0].logProbs, res[1].Content, res[1].logProbs)
	out, prompt := res[0], plain
	if ch.Context {
		out, prompt = res[1], with
	}
	out.Choice = ch
	out.Timings = sumTimings(res[0].Timings, res[1].Timings)
	if st != nil && out.Content != "" {
		piece := infillResult{Content: out.Content, Tokens: out.Tokens, TokensPredicted: len(out.Tokens),
			TokensEvaluated: out.TokensEvaluated, Probs: out.Probs}
		if err := st.send(piece); err != nil {
			return infillResult{}, infill.Prompt{}, err
		}
	}
	return out, prompt, nil
}

// meanLogProb is the mean of a completion's tokens' log-probabilities,
// nil for none.
func meanLogProb(lp []float64) *float64 {
	if len(lp) == 0 {
		return nil
	}
	sum := 0.0
	for _, v := range lp {
		sum += v
	}
	return ptr(sum / float64(len(lp)))
}

// sumTimings are the timings of two completions written one after the
// other.
func sumTimings(a, b *timings) *timings {
	return withRates(&timings{CacheN: a.CacheN + b.CacheN, PromptN: a.PromptN + b.PromptN, PromptMS: a.PromptMS + b.PromptMS,
		PredictedN: a.PredictedN + b.PredictedN, PredictedMS: a.PredictedMS + b.PredictedMS})
}
