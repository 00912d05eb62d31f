package serve

import (
	"slices"
	"time"

	"actor/engine"
	"actor/infill"
	"actor/probe"
)

// cursorACToR is ACToR's loop for a completion at the cursor (request
// field "actor"), Algorithm 1 with the repository's cursor context in the
// retriever's place: the probe judges every generated token from the
// hidden state that produced it (not the first, not white space); at a
// critical token the repository's context is made again with the text
// written so far (infill.Repository.Requery), and when its chunks differ
// the prompt is laid out with them, prefilled after the tokens generated
// before (the cache keeps what did not change, and with --cache-reuse
// moves what follows chunks only removed) and the token drawn again; the
// new context is kept.
type cursorACToR struct {
	s      *Server
	probe  *probe.Probe
	cc     *cursorContext
	sess   *engine.Session
	chunks []infill.Chunk // the repository's chunks of the current prompt
	prompt infill.Prompt  // the current prompt
	// generated are the tokens taken so far (the loop appends them).
	generated []int32
	stats     actorStats
}

// actorStats is what ACToR did for a completion (the answer's "actor").
type actorStats struct {
	Judged      int     `json:"judged"`
	Triggers    int     `json:"triggers"`
	Changes     int     `json:"context_changes"`
	RequeryMS   float64 `json:"requery_ms"`
	ReprefillMS float64 `json:"reprefill_ms"`
	// ReprefillTokens are the prompt tokens the re-prefills computed (the
	// others were kept or moved from the cache).
	ReprefillTokens int `json:"reprefill_tokens"`
}

// judge is the loop's generate.Judge.
func (a *cursorACToR) judge(n int, id int32, pred *engine.Prediction) (*engine.Prediction, error) {
	tok := a.s.p.Tok
	if probe.Skip(n, tok.Piece(id), tok.EOG(id)) != "" || pred.Hidden == nil {
		return nil, nil
	}
	a.stats.Judged++
	if !a.probe.Critical(pred.Hidden) {
		return nil, nil
	}
	a.stats.Triggers++
	start := time.Now()
	written := a.cc.in.Middle + tok.Decode(a.generated) + tok.Piece(id)
	more, err := a.cc.rp.cursorRepository(a.s).Requery(tok, a.cc.cur, written, a.s.cfg.Context)
	if err != nil {
		return nil, err
	}
	a.stats.RequeryMS += ms(time.Since(start))
	if slices.Equal(more, a.chunks) {
		return nil, nil
	}
	next, err := a.s.layoutCursor(a.cc, more)
	if err != nil {
		return nil, err
	}
	if len(next.IDs)+len(a.generated)+1 >= a.sess.Capacity() {
		return nil, nil // the new context does not fit beside what was written
	}
	start = time.Now()
	seq := append(slices.Clone(next.IDs), a.generated...)
	again, reuse, err := a.sess.PrefillReusing(seq, a.s.caches.reuse)
	if err != nil {
		return nil, err
	}
	a.stats.ReprefillMS += ms(time.Since(start))
	a.stats.ReprefillTokens += len(seq) - reuse.Cached()
	a.stats.Changes++
	a.chunks, a.prompt = more, next
	return &again, nil
}
