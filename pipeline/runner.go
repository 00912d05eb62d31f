package pipeline

import (
	"context"
	"fmt"
	"strings"

	"actor/dataset"
	"actor/generate"
	"actor/predictions"
	"actor/retrieve"
)

// Job is one sample of a benchmark task to generate.
type Job struct {
	Task   *dataset.Task
	Sample int
}

// Result is a generated sample and the prediction record it makes.
type Result struct {
	Prediction predictions.Prediction
	Sample     *generate.Sample
}

// Runner generates a benchmark's samples, one repository corpus in memory
// at a time. A local actor run and a queue worker both generate through
// it, so a sample is the same wherever it is made.
type Runner struct {
	p     *Pipeline
	repos string
	root  string             // the repository whose generator is loaded
	gen   generate.Generator // over root's corpus
}

// Runner returns a runner over the projects under repos (their folders,
// or test-apps/ with them).
func (p *Pipeline) Runner(repos string) *Runner { return &Runner{p: p, repos: repos} }

// Method opens the task's repository and returns the method's name as
// predictions record it (with a fallback suffix such as "+bm25") and the
// method's notes.
func (r *Runner) Method(ctx context.Context, t *dataset.Task) (string, []string, error) {
	g, err := r.generator(ctx, t)
	if err != nil {
		return "", nil, fmt.Errorf("task %s: %w", t.ID, err)
	}
	return g.Method(), g.Notes(), nil
}

// Pending lists the samples below n of the tasks that are not done, in
// task order; done holds prediction keys (predictions.Done) of method.
func (r *Runner) Pending(tasks []*dataset.Task, n int, method string, done map[string]bool) []Job {
	model := ModelLabel(r.p.ModelName)
	var jobs []Job
	for _, t := range tasks {
		for s := range n {
			p := predictions.Prediction{TaskID: t.ID, Sample: s, Method: method, Model: model}
			if !done[p.Key()] {
				jobs = append(jobs, Job{t, s})
			}
		}
	}
	return jobs
}

// Groups cuts jobs into what Run takes at once: with batch, each run of
// consecutive samples of one task; otherwise one sample each.
func Groups(jobs []Job, batch bool) [][]Job {
	var out [][]Job
	for len(jobs) > 0 {
		n := 1
		for batch && n < len(jobs) && jobs[n].Task == jobs[0].Task {
			n++
		}
		out = append(out, jobs[:n])
		jobs = jobs[n:]
	}
	return out
}

// Run generates the samples of group, which share one task (one at a time,
// or together as a batch with Method.BatchSamples).
func (r *Runner) Run(ctx context.Context, group []Job) ([]Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t := group[0].Task
	g, err := r.generator(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.ID, err)
	}
	tg, err := retrieve.TaskTarget(t, r.root)
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(group))
	for i, j := range group {
		if j.Task != t {
			return nil, fmt.Errorf("pipeline: one group holds tasks %s and %s", t.ID, j.Task.ID)
		}
		idx[i] = j.Sample
	}
	ss, err := generate.GenerateSamples(ctx, g, tg, idx, r.p.Method.BatchSamples, nil)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", t.ID, err)
	}
	model, gold := ModelLabel(r.p.ModelName), r.goldTokens(t)
	out := make([]Result, len(ss))
	for i, s := range ss {
		s.Trace.Model = model
		out[i] = Result{Sample: s, Prediction: predictions.Prediction{TaskID: t.ID, Sample: group[i].Sample, Code: s.Code,
			Method: g.Method(), Model: model, Figures: predictions.Figures{Tokens: s.Trace.Tokens, MsPerToken: s.MsPerToken(),
				Seconds: s.Elapsed.Seconds(), Triggers: s.Trace.Triggers, ContextChanges: s.Trace.ContextChanges, GoldTokens: gold}}}
	}
	return out, nil
}

// generator returns the generator over the task's repository, reading the
// repository when it differs from the previous task's.
func (r *Runner) generator(ctx context.Context, t *dataset.Task) (generate.Generator, error) {
	root, err := t.Locate(r.repos)
	if err != nil {
		return nil, err
	}
	if root != r.root || r.gen == nil {
		c, err := r.p.Corpus(ctx, root)
		if err != nil {
			return nil, err
		}
		if r.gen, err = r.p.Generator(c); err != nil {
			return nil, err
		}
		r.root = root
	}
	return r.gen, nil
}

// goldTokens is the gold body's length in the model's tokens: the gold
// function without its prompt.
func (r *Runner) goldTokens(t *dataset.Task) int {
	tok := r.p.Tok
	if body, ok := strings.CutPrefix(t.Gold, t.Prompt); ok {
		return len(tok.Encode(body, false))
	}
	return max(0, len(tok.Encode(t.Gold, false))-len(tok.Encode(t.Prompt, false)))
}
