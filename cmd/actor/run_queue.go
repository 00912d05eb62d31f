package main

import (
	"context"
	"fmt"
	"io"

	"actor/dataset"
	"actor/generate"
	"actor/models"
	"actor/pipeline"
	"actor/queue"
)

// spec is how this actor run generates method's samples: its resolved
// switches, sampling configuration and the hashes of the model, probe and
// task files and of the sources of the tasks' projects. The run folder
// records it (claimRunFolder) and every queue item carries it.
func (f *runFlags) spec(set *dataset.Set, tasks []*dataset.Task, method string, cfg generate.Config) (queue.Spec, error) {
	file, err := models.Resolve(f.model)
	if err != nil {
		return queue.Spec{}, err
	}
	id, err := queue.Identify(file, f.model, f.Method, set.Files, tasks, f.repos)
	if err != nil {
		return queue.Spec{}, err
	}
	return queue.Spec{Benchmark: f.benchmark, Model: pipeline.ModelLabel(f.model), Method: f.Method.Resolved(), MethodName: method,
		Config: cfg, ContextLength: f.ctx, Trace: f.trace, Identity: id}, nil
}

// generateOnQueue is the producer of actor run --queue: each task's
// pending samples go on the queue as one item carrying the run's switches
// and the hashes of its files, and the workers' results are merged as they
// arrive. A worker generates an item's samples one after the other (or as
// a batch with --batch-samples), as a local run does: a sample's decoding
// can depend on what the decoder's cache holds from the task's previous
// sample.
func (f *runFlags) generateOnQueue(tasks []*dataset.Task, stderr io.Writer) producer {
	return func(ctx context.Context, spec queue.Spec, jobs []pipeline.Job, done map[string]bool, store func(pipeline.Result) error) error {
		ids := make([]string, len(tasks))
		for i, t := range tasks {
			ids[i] = t.ID
		}
		run := queue.RunID(spec, ids, f.Samples)
		q, err := queue.Connect(ctx, f.queue, "actor run "+run)
		if err != nil {
			return err
		}
		defer q.Close()
		fmt.Fprintf(stderr, "run %s on %s: waiting for 'actor worker --queue %s' processes (model SHA-256 %.12s)\n", run, f.queue, f.queue, spec.Identity.Model)
		return q.Coordinate(ctx, run, queue.Items(run, spec, pipeline.Groups(jobs, true)), done, func(o queue.Output) error {
			return store(pipeline.Result{Prediction: o.Prediction, Sample: &o.Sample})
		}, stderr)
	}
}
