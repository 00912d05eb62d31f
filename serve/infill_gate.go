package serve

import (
	"context"
	"time"

	"actor/infill"
)

// gateReport is the gate's account of a completion (the answer's
// "context_gate"): the draft's uncertainty, the threshold, and whether
// the repository's context was added.
type gateReport struct {
	// Entropy is the highest entropy, in nats, among the distributions
	// the tokens of the draft's first line were drawn from.
	Entropy   float64 `json:"entropy"`
	Threshold float64 `json:"threshold"`
	Context   bool    `json:"context"`
	// DraftMS is the time the draft took.
	DraftMS float64 `json:"draft_ms"`
	// Draft is the draft's content when the context replaced it.
	Draft *string `json:"draft,omitempty"`
}

// gated reports whether a job's repository context waits for the gate:
// a server with --cursor-gate, a request with the context, not ACToR's
// (whose critical tokens are judged on the context's prompt).
func (s *Server) gated(j *infillJob) bool {
	return s.cfg.Gate > 0 && j.context && !j.actor
}

// gateInfill writes the job's draft with llama.cpp's prompt (the editor's
// text and chunks, no repository context) and decides, by the model's
// uncertainty on the draft's first line, whether the repository's context
// is worth adding: most lines a person types need no name the file does
// not show, and on those an added context only moves the small models'
// answers (BENCHMARKS.md, "Completion at the cursor"); where the model is
// unsure, the context has something to give. The draft is the answer when
// the gate stays shut.
func (s *Server) gateInfill(ctx context.Context, j *infillJob) (infillResult, *gateReport, error) {
	start := time.Now()
	prompt, err := infill.Layout(s.p.Tok, j.input, j.chunks, s.infillBudget())
	if err != nil {
		return infillResult{}, nil, err
	}
	draft, err := s.completeInfill(ctx, j, prompt, nil, nil)
	if err != nil {
		return infillResult{}, nil, err
	}
	g := &gateReport{Entropy: draft.lineEntropy, Threshold: s.cfg.Gate, Context: draft.lineEntropy >= s.cfg.Gate,
		DraftMS: ms(time.Since(start))}
	if g.Context {
		g.Draft = ptr(draft.Content)
	}
	draft.Gate = g
	return draft, g, nil
}
