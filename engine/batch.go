package engine

import (
	"errors"
	"fmt"

	"actor/engine/ggml"
)

// Fork makes s hold the first n tokens of src (a copy of their keys and
// values, nothing recomputed); both must be sessions of one model.
func (s *Session) Fork(src *Session, n int) error {
	switch {
	case src == nil || src.m != s.m:
		return errors.New("engine: fork from a session of another model")
	case n < 0 || n > len(src.tokens):
		return fmt.Errorf("engine: fork of %d tokens: the session holds %d", n, len(src.tokens))
	}
	if err := s.fits(n); err != nil {
		return err
	}
	if err := s.cache.CopyFrom(src.cache, n); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	s.tokens = append(s.tokens[:0], src.tokens[:n]...)
	return nil
}

// Computed counts the tokens this session has run through the model
// (prefixes kept in its cache or copied by Fork are not counted).
func (s *Session) Computed() int { return s.computed }

// PrefillBatch is Prefill for several sessions at once: afterwards session
// i holds exactly seqs[i], and preds[i] predicts the token after it. The
// tokens to compute run as shared forward passes (at most
// Options.BatchSize tokens each, every sequence over its own cache), so n
// sessions stepping one token each cost about one step. A session whose
// sequence shares a longer prefix with an earlier session's sequence of the
// call than with its own cache copies that prefix from it (Fork) once it
// is computed: n samples of one prompt prefill it once. Hidden states are
// returned to sessions with Hidden set. The sessions must be distinct
// sessions of m; a sequence that does not fit its session fails the call
// before anything runs.
func (m *Model) PrefillBatch(ss []*Session, seqs [][]int32) ([]Prediction, error) {
	if len(ss) != len(seqs) || len(ss) == 0 {
		return nil, fmt.Errorf("engine: prefill of %d sequences into %d sessions", len(seqs), len(ss))
	}
	seen := make(map[*Session]bool, len(ss))
	jobs := make([]*prefillJob, len(ss))
	for i, s := range ss {
		switch {
		case s == nil || s.m != m:
			return nil, fmt.Errorf("engine: session %d is not a session of this model", i)
		case seen[s]:
			return nil, fmt.Errorf("engine: session %d appears twice in one batch", i)
		case len(seqs[i]) == 0:
			return nil, fmt.Errorf("engine: session %d: prefill of an empty sequence", i)
		}
		if err := s.fits(len(seqs[i])); err != nil {
			return nil, fmt.Errorf("session %d: %w", i, err)
		}
		seen[s] = true
		jobs[i] = newPrefillJob(s, seqs[i], jobs[:i])
	}
	var own, forked []*prefillJob
	for _, j := range jobs {
		if j.src != nil {
			forked = append(forked, j)
		} else {
			own = append(own, j)
		}
	}
	if err := m.runJobs(own); err != nil {
		return nil, err
	}
	for _, j := range forked {
		if err := j.s.Fork(j.src.s, j.from); err != nil {
			return nil, err
		}
	}
	if err := m.runJobs(forked); err != nil {
		return nil, err
	}
	preds := make([]Prediction, len(jobs))
	for i, j := range jobs {
		preds[i] = j.pred
	}
	return preds, nil
}

// prefillJob is one session's part of PrefillBatch.
type prefillJob struct {
	s    *Session
	seq  []int32
	from int         // first token to compute (the kept or copied prefix ends there)
	src  *prefillJob // the job whose session the prefix is copied from, or nil
	pred Prediction
}

// newPrefillJob plans a session's prefill: keep the prefix its cache shares
// with seq, or copy a longer one from an earlier job computing its own
// (at least the last token is computed, for its logits).
func newPrefillJob(s *Session, seq []int32, earlier []*prefillJob) *prefillJob {
	j := &prefillJob{s: s, seq: seq, from: min(commonPrefix(s.tokens, seq), len(seq)-1)}
	for _, e := range earlier {
		if n := min(commonPrefix(e.seq, seq), len(seq)-1); e.src == nil && n > j.from {
			j.from, j.src = n, e
		}
	}
	if j.src == nil {
		s.tokens = s.tokens[:j.from]
	}
	return j
}

// runJobs computes the jobs' remaining tokens in shared forward passes of
// at most BatchSize tokens, each job's last token giving its prediction.
func (m *Model) runJobs(jobs []*prefillJob) error {
	hidden := false
	for _, j := range jobs {
		hidden = hidden || j.s.Hidden
	}
	for {
		var seqs []ggml.Seq
		var in []*prefillJob
		room := m.opts.BatchSize
		for _, j := range jobs {
			at := len(j.s.tokens)
			if at == len(j.seq) || room == 0 {
				continue
			}
			end := min(len(j.seq), at+room)
			room -= end - at
			b := ggml.Batch{Tokens: j.seq[at:end], Start: at}
			if end == len(j.seq) {
				b.Outputs, b.Logits, b.Hidden = []int{end - at - 1}, true, hidden
			}
			seqs, in = append(seqs, ggml.Seq{Cache: j.s.cache, Batch: b}), append(in, j)
		}
		if len(seqs) == 0 {
			return nil
		}
		outs, err := m.net.ForwardSeqs(seqs)
		if err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		for i, j := range in {
			j.s.tokens = append(j.s.tokens, seqs[i].Batch.Tokens...)
			j.s.computed += len(seqs[i].Batch.Tokens)
			if len(j.s.tokens) == len(j.seq) {
				var h []float32
				if j.s.Hidden {
					h = outs[i].Hidden
				}
				j.pred = newPrediction(outs[i].Logits, h)
			}
		}
	}
}
