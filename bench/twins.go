package bench

import (
	"context"
	"fmt"
	"path/filepath"

	"actor/bench/results"
)

// Identical code is tested once. A sample whose code equals, byte for byte,
// that of a sample of the same task already tested (in this results folder
// or in a Config.Reuse folder tested under the same conditions) takes that
// sample's outcome, recorded with Record.Twin naming where it was tested.
// Configurations of one experiment write the same code often (an ACToR
// sample whose context never changed is RawRAG's), and the benchmark's
// tests are deterministic given the code (PYTHONHASHSEED=0, one
// environment per project). Only passed and failed outcomes stand for a
// twin; a timeout or harness error is tested again.

// twinKey is a task and the SHA-256 of a sample's code.
type twinKey struct{ task, code string }

// twinBook maps code to the outcome that stands for it.
type twinBook map[twinKey]results.Record

// add files rec (tested at where, "" for this folder) if its outcome can
// stand for a twin and no outcome is filed for its code yet.
func (b twinBook) add(rec results.Record, where string) {
	if rec.Status != results.StatusPassed && rec.Status != results.StatusFailed {
		return
	}
	k := twinKey{rec.TaskID, rec.CodeSHA}
	if _, ok := b[k]; ok {
		return
	}
	if rec.Twin == "" {
		rec.Twin = fmt.Sprintf("%ssample %d (%s)", where, rec.Sample, rec.Method)
	} else if where != "" {
		rec.Twin = where + rec.Twin
	}
	b[k] = rec
}

// copyFor is the outcome of twin given to the sample of job.
func copyFor(twin results.Record, j job) results.Record {
	p := j.pred
	return results.Record{TaskID: p.TaskID, Sample: p.Sample, Method: p.Method, Model: p.Model,
		Passed: twin.Passed, Status: twin.Status, Reason: twin.Reason, Exit: twin.Exit,
		CodeSHA: twin.CodeSHA, Mode: twin.Mode, Figures: p.Figures, Output: twin.Output, Twin: twin.Twin}
}

// reuseBook files the outcomes of the Config.Reuse folders; a folder tested
// under other conditions (benchmark, data, sandbox, time limit) is skipped
// with a warning on the log.
func (r *runner) reuseBook(meta results.Meta) (twinBook, error) {
	book := twinBook{}
	for _, dir := range r.cfg.Reuse {
		m, err := results.ReadMeta(dir)
		if err != nil {
			return nil, fmt.Errorf("--reuse %s: not a results folder: %v", dir, err)
		}
		if why := sameConditions(m, meta); why != "" {
			fmt.Fprintf(r.cfg.Log, "warning: --reuse %s: not used, %s\n", dir, why)
			continue
		}
		recs, err := results.Read(filepath.Join(dir, results.SamplesFile))
		if err != nil {
			return nil, err
		}
		where := dir
		if rel, err := filepath.Rel(r.cfg.Out, dir); err == nil {
			where = rel
		}
		for _, rec := range recs {
			book.add(rec, filepath.ToSlash(where)+" ")
		}
	}
	return book, nil
}

// sameConditions says how a results folder's conditions differ from this
// run's ("" when they do not).
func sameConditions(m, run results.Meta) string {
	switch {
	case m.Benchmark != run.Benchmark:
		return "another benchmark (" + m.Benchmark + ")"
	case filepath.Base(m.Data) != filepath.Base(run.Data):
		return "other data (" + m.Data + ")"
	case m.Isolation != run.Isolation:
		return "another sandbox (" + m.Isolation + ")"
	case m.Timeout != run.Timeout:
		return fmt.Sprintf("another time limit (%gs)", m.Timeout)
	}
	return ""
}

// evaluateWithTwins tests todo, testing each code once: samples with a
// twin in book or this folder take its outcome, the first sample of each
// other code is tested, then its twins take the outcome (or are tested when
// it did not pass or fail). It returns how many samples were tested and
// how many took a twin's outcome.
func (r *runner) evaluateWithTwins(ctx context.Context, todo []job, book twinBook) (tested, copied int, err error) {
	for _, rec := range r.store.Records() {
		book.add(rec, "")
	}
	var first, waiting []job
	queued := map[twinKey]bool{}
	for _, j := range todo {
		k := twinKey{j.task.ID, codeSHA(j.pred.Code)}
		switch {
		case r.cfg.TestTwins:
			first = append(first, j)
		case book[k].Status != "" || queued[k]:
			waiting = append(waiting, j)
		default:
			queued[k] = true
			first = append(first, j)
		}
	}
	if tested, err = r.evaluateAll(ctx, first); err != nil {
		return tested, 0, err
	}
	for _, rec := range r.store.Records() {
		book.add(rec, "")
	}
	var again []job
	for _, j := range waiting {
		twin, ok := book[twinKey{j.task.ID, codeSHA(j.pred.Code)}]
		if !ok {
			again = append(again, j)
			continue
		}
		if err := r.store.Add(copyFor(twin, j)); err != nil {
			return tested, copied, err
		}
		copied++
	}
	if copied > 0 {
		fmt.Fprintf(r.cfg.Log, "%d samples had the code of a sample already tested and took its outcome (--test-twins tests each)\n", copied)
	}
	n, err := r.evaluateAll(ctx, again)
	return tested + n, copied, err
}
