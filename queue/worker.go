package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"actor/dataset"
	"actor/engine"
	"actor/models"
	"actor/pipeline"
	"actor/retrieve"
	"actor/runrecord"
)

// Worker serves items with its own copies of the files through
// pipeline.Runner, the code a local actor run generates with. It keeps
// one pipeline open and opens another when an item's spec differs.
type Worker struct {
	// Model is the worker's model (a pulled model's name or a GGUF path),
	// Probe its ACToR probe file ("": the model's shipped probe), Data
	// and Repos its benchmark's task files and projects.
	Model, Probe, Data, Repos string
	// Engine are the engine options; the context length is the run's.
	Engine engine.Options
	// OpenEncoder, Log and Progress are as in pipeline.Options.
	OpenEncoder func(name string) (retrieve.Encoder, error)
	Log         io.Writer
	Progress    io.Writer

	set     *dataset.Set
	sources map[string]string // SourcesHash by project root, hashed once
	spec    string            // the open pipeline's spec (specKey)
	pl      *pipeline.Pipeline
	runner  *pipeline.Runner
}

// Handle generates an item's samples; it refuses an item whose run's
// files differ from the worker's or whose method it would name otherwise.
func (w *Worker) Handle(ctx context.Context, it *Item) ([]Output, error) {
	sp := &it.Spec
	if w.set == nil || w.set.Benchmark != sp.Benchmark {
		set, err := dataset.Load(sp.Benchmark, w.Data)
		if err != nil {
			return nil, err
		}
		w.set, w.sources = set, map[string]string{}
	}
	task := w.set.Lookup(it.Task)
	if task == nil {
		return nil, fmt.Errorf("no task %q in the worker's data", it.Task)
	}
	own, err := runrecord.ProjectSources([]*dataset.Task{task}, w.Repos, w.sources)
	if err != nil {
		return nil, err
	}
	if diff := sp.Identity.SourcesDiff(own); len(diff) > 0 {
		return nil, fmt.Errorf("the worker's files differ from the run's: %s (--repos %s)", strings.Join(diff, "; "), w.Repos)
	}
	if err := w.open(ctx, sp, task); err != nil {
		return nil, err
	}
	jobs := make([]pipeline.Job, len(it.Samples))
	for i, s := range it.Samples {
		jobs[i] = pipeline.Job{Task: task, Sample: s}
	}
	res, err := w.runner.Run(ctx, jobs)
	if err != nil {
		return nil, err
	}
	outs := make([]Output, len(res))
	for i, r := range res {
		// The model's label is the run's: the worker's file hashes the same
		// whatever it is called.
		outs[i] = Output{Prediction: r.Prediction, Sample: *r.Sample}
		outs[i].Prediction.Model, outs[i].Sample.Trace.Model = sp.Model, sp.Model
		if !sp.Trace {
			outs[i].Sample.Trace.Attempts = nil
		}
	}
	return outs, nil
}

// open makes the pipeline the spec asks for, checking the worker's files
// and the method's name against the run's.
func (w *Worker) open(ctx context.Context, sp *runrecord.Spec, task *dataset.Task) error {
	key := specKey(sp)
	if key == w.spec {
		return nil
	}
	w.Close()
	m := sp.Method
	// The spec holds the method resolved by the run: its context switches
	// are complete, so no default context is added again (a spec of an
	// older coordinator would otherwise change meaning).
	m.Probe, m.NoContext = w.Probe, true
	file, err := models.Resolve(w.Model)
	if err != nil {
		return err
	}
	own, err := runrecord.Identify(file, w.Model, m, w.set.Files, nil, "")
	if err != nil {
		return err
	}
	if diff := sp.Identity.Mismatch(own); diff != "" {
		return fmt.Errorf("the worker's files differ from the run's: %s", diff)
	}
	opts := w.Engine
	opts.ContextLength = sp.ContextLength
	w.pl, err = pipeline.Open(pipeline.Options{Model: w.Model, Engine: opts, Method: m, Config: sp.Config,
		OpenEncoder: w.OpenEncoder, Log: w.Log, Progress: w.Progress})
	if err != nil {
		return err
	}
	w.runner = w.pl.Runner(w.Repos)
	name, _, err := w.runner.Method(ctx, task)
	if err != nil {
		return err
	}
	if name != sp.MethodName {
		return fmt.Errorf("the worker would record method %q, the run records %q (an encoder that failed to load on one side?)", name, sp.MethodName)
	}
	w.spec = key
	return nil
}

// specKey is what of a spec the pipeline depends on: not the sources,
// which differ between runs over other tasks and are checked per item.
func specKey(sp *runrecord.Spec) string {
	id := sp.Identity
	id.Sources = nil
	b, _ := json.Marshal([]any{sp.Method, sp.MethodName, sp.Config, sp.ContextLength, id})
	return string(b)
}

// Close closes the open pipeline.
func (w *Worker) Close() {
	if w.pl != nil {
		w.pl.Close()
	}
	w.pl, w.runner, w.spec = nil, nil, ""
}
