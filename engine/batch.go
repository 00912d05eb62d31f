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
// i holds exactly seqs[i], and preds[i] predicts the token after it, bit
// for bit as Prefill on that session alone would (a session that copies a
// prefix from another's job, below, gets the rows as that job computed
// them, in its passes: on repacked matrices a row rounds by the pass it
// was computed in, so they can differ from its own by rounding, as a
// reused prefix can from a fresh prefill). Sessions computing one
// token share forward passes (maxSharedRows to a pass, every sequence
// over its own cache), so n sessions stepping one token each cost about
// ⌈n/3⌉ steps' graph work and one step's weight reads per pass; a session
// computing several runs them in passes of its own. A session whose
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

// maxSharedRows is the most single-token rows one forward pass takes
// together. ggml multiplies a repacked quantised matrix
// (GGML_USE_CPU_REPACK: Q4_0, Q4_K, IQ4_NL) by four or more rows with its
// 4-row kernel, which rounds otherwise than the one-row kernel a session
// stepping alone takes (logits up to 0.8 apart on Qwen2.5-Coder-0.5B's
// Q4_K matrices, enough to flip a sampled token now and then). So steps
// share a pass three at a time, and a session computing several tokens
// runs them alone, in the chunks Session.Prefill makes: a session's logits
// in a batch are then those of the session alone, bit for bit.
const maxSharedRows = 3

// runJobs computes the jobs' remaining tokens: each job computing several
// tokens in passes of its own (at most BatchSize tokens each), the jobs
// computing one token maxSharedRows to a pass; each job's last token gives
// its prediction.
func (m *Model) runJobs(jobs []*prefillJob) error {
	hidden := false
	for _, j := range jobs {
		hidden = hidden || j.s.Hidden
	}
	for {
		var steps, passes [][]*prefillJob
		for _, j := range jobs {
			switch left := len(j.seq) - len(j.s.tokens); {
			case left == 1:
				if len(steps) == 0 || len(steps[len(steps)-1]) == maxSharedRows {
					steps = append(steps, nil)
				}
				steps[len(steps)-1] = append(steps[len(steps)-1], j)
			case left > 1:
				passes = append(passes, []*prefillJob{j})
			}
		}
		if len(passes)+len(steps) == 0 {
			return nil
		}
		for _, in := range append(passes, steps...) {
			if err := m.pass(in, hidden); err != nil {
				return err
			}
		}
	}
}

// pass runs one forward pass over the next chunk (at most BatchSize
// tokens) of each of the jobs.
func (m *Model) pass(in []*prefillJob, hidden bool) error {
	seqs := make([]ggml.Seq, len(in))
	for i, j := range in {
		at := len(j.s.tokens)
		end := min(len(j.seq), at+m.opts.BatchSize)
		b := ggml.Batch{Tokens: j.seq[at:end], Start: at}
		if end == len(j.seq) {
			b.Outputs, b.Logits, b.Hidden = []int{end - at - 1}, true, hidden
		}
		seqs[i] = ggml.Seq{Cache: j.s.cache, Batch: b}
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
	return nil
}
