package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"actor/bench"
	"actor/bench/results"
	"actor/dataset"
	"actor/generate"
	"actor/pipeline"
	"actor/predictions"
	"actor/runrecord"
)

// runFlags are the options of actor run.
type runFlags struct {
	methodFlags
	modelFlags
	benchmark, data, repos, out string
	temperature, topP           float64
	topK, maxTokens             int
	seed                        uint64
	limit                       int
	tasks                       []string
	noEval                      bool
	trace                       bool
	workers                     int
	python, envs                string
	queue                       string
}

// newRunCmd builds actor run: every task of a benchmark generated, then
// evaluated.
func newRunCmd(g *globalFlags) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run --benchmark repoexec|codereval --data DIR --repos DIR --method M [-n N] [--out DIR]",
		Short: "Generate every task of a benchmark with a method, then test the samples (resumable)",
		Long: `For every task (--limit caps them, --task picks some) and sample index below -n,
locate the target function in its repository under --repos, generate its body
with --method and append the sample to OUT/predictions.jsonl (the predictions
format 'actor bench run' reads), with its tokens, ms per token, seconds,
retrieval triggers and context changes. Samples already in the file are
skipped, and sampling is seeded by task and sample index, so an interrupted
run continues where it stopped with the same results. OUT/run.json records
each method name's settings (switches, sampling, the model's, probe's and
tasks' SHA-256, and per project the SHA-256 of the sources retrieval
reads); continuing with other settings under the same name is refused.
With --trace, each sample's trace goes to OUT/traces.jsonl.

Then the harness tests the predictions (as 'actor bench run' does) into
OUT/eval: pass@1/3/5 and the time table in OUT/eval/summary.md. --no-eval
stops after generating.

With --queue nats://HOST:4222, the samples are put on that NATS JetStream
server's work queue instead, and 'actor worker' processes on any machines
generate them; this command merges their results into the same files as
they arrive (each sample once) and then tests them. Killed and started
again, it merges what the workers published meanwhile and queues only the
samples still missing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}

	fs := cmd.Flags()
	f.methodFlags.register(fs)
	f.modelFlags.register(fs, g, modelFlagSet{verbose: true})
	fs.StringVar(&f.benchmark, "benchmark", "", "repoexec or codereval")
	fs.StringVar(&f.data, "data", "", "task file or folder (as for actor bench run)")
	fs.StringVar(&f.repos, "repos", "", "folder holding the projects (their folders, or test-apps/ with them)")
	fs.StringVar(&f.out, "out", "", "run folder: predictions.jsonl, traces.jsonl, eval/ (default runs/BENCHMARK-METHOD-MODEL)")
	fs.Float64Var(&f.temperature, "temperature", generate.DefaultConfig.Temperature, "sampling temperature; 0 is greedy")
	fs.IntVar(&f.topK, "top-k", 0, "keep the K most likely tokens (0: all)")
	fs.Float64Var(&f.topP, "top-p", 1, "nucleus sampling mass (1: off)")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed; each task and sample derives its own")
	fs.IntVar(&f.maxTokens, "max-tokens", generate.DefaultConfig.MaxNewTokens, "most new tokens per attempt")
	fs.IntVar(&f.limit, "limit", 0, "only the first N tasks (0: all)")
	fs.StringSliceVar(&f.tasks, "task", nil, "only these task ids (repeatable, comma-separated)")
	fs.BoolVar(&f.noEval, "no-eval", false, "generate only; do not run the tests")
	fs.BoolVar(&f.trace, "trace", false, "append every sample's trace to OUT/traces.jsonl")
	fs.IntVar(&f.workers, "workers", 0, "tests run at once (default: number of CPUs)")
	registerEnvs(fs, &f.python, &f.envs)
	fs.StringVar(&f.queue, "queue", "", "NATS JetStream server (nats://HOST:4222): put the samples on its work queue for 'actor worker' processes and merge their results")
	return cmd
}

// run generates and tests the benchmark's samples.
func (f *runFlags) run(cmd *cobra.Command, stdout, stderr io.Writer) error {
	if f.benchmark == "" || f.data == "" || f.repos == "" {
		return errors.New("run: --benchmark, --data and --repos are required")
	}
	f.startLogs(stderr)
	set, err := dataset.Load(f.benchmark, f.data)
	if err != nil {
		return err
	}
	for _, e := range set.Errors {
		fmt.Fprintf(stderr, "warning: %v\n", e)
	}
	tasks, err := pickTasks(set, f.tasks, f.limit)
	if err != nil {
		return err
	}
	cfg := generate.DefaultConfig
	cfg.Temperature, cfg.TopK, cfg.TopP, cfg.Seed, cfg.MaxNewTokens = f.temperature, f.topK, f.topP, f.seed, f.maxTokens
	pl, err := f.openPipeline(f.Method, cfg, stderr)
	if err != nil {
		return err
	}
	defer pl.Close()
	out := f.out
	if out == "" {
		out = filepath.Join("runs", f.benchmark+"-"+f.Method.Method+"-"+pipeline.ModelLabel(f.model))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	predFile := filepath.Join(out, "predictions.jsonl")
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r := pl.Runner(f.repos)
	produce := generateHere(r, f.BatchSamples)
	if f.queue != "" {
		produce = f.generateOnQueue(tasks, stderr)
	}
	if err := f.generateAll(ctx, r, set, tasks, cfg, predFile, out, stderr, produce); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: finished samples are saved in %s; run the same command to continue", predFile)
		}
		return err
	}
	if f.noEval {
		fmt.Fprintf(stdout, "predictions: %s\n", predFile)
		return nil
	}
	return f.evaluate(ctx, stdout, stderr, predFile, out, envsFlag(cmd.Flags(), f.envs), tasks)
}

// pickTasks applies --task and --limit.
func pickTasks(set *dataset.Set, ids []string, limit int) ([]*dataset.Task, error) {
	var out []*dataset.Task
	if len(ids) > 0 {
		for _, id := range ids {
			t := set.Lookup(id)
			if t == nil {
				return nil, fmt.Errorf("run: no task %q in %s", id, strings.Join(set.Files, ", "))
			}
			out = append(out, t)
		}
	} else {
		for i := range set.Tasks {
			out = append(out, &set.Tasks[i])
		}
	}
	if limit > 0 && limit < len(out) {
		out = out[:limit]
	}
	if len(out) == 0 {
		return nil, errors.New("run: no tasks")
	}
	return out, nil
}

// generateAll generates the samples of the tasks not yet in predFile with
// produce, appending each to it (and its trace to OUT/traces.jsonl with
// --trace) as it is done. The run's spec must match the one out records
// for the method (runrecord.Claim).
func (f *runFlags) generateAll(ctx context.Context, r *pipeline.Runner, set *dataset.Set, tasks []*dataset.Task, cfg generate.Config,
	predFile, out string, stderr io.Writer, produce producer) error {
	done, err := predictions.Done(predFile)
	if err != nil {
		return err
	}
	// The method's name (with a fallback suffix) keys the samples already
	// done; the first task's generator says it.
	method, notes, err := r.Method(ctx, tasks[0])
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "actor: note: %s\n", n)
	}
	spec, err := f.spec(set, tasks, method, cfg)
	if err != nil {
		return err
	}
	if err := runrecord.Claim(out, spec, len(done) > 0, stderr); err != nil {
		return err
	}
	n := f.Samples
	jobs := r.Pending(tasks, n, method, done)
	fmt.Fprintf(stderr, "%d tasks × %d samples: %d to generate, %d already in %s\n", len(tasks), n, len(jobs), len(tasks)*n-len(jobs), predFile)
	if len(jobs) == 0 {
		return nil
	}
	w, err := predictions.Create(predFile)
	if err != nil {
		return err
	}
	defer w.Close()
	var trace *generate.TraceWriter
	if f.trace {
		tf, err := os.OpenFile(filepath.Join(out, generate.TracesName), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer tf.Close()
		trace = generate.NewTraceWriter(tf)
	}
	prog := newGenProgress(stderr, isTerminal(os.Stderr), len(jobs))
	defer prog.finish()
	store := func(x pipeline.Result) error {
		if err := w.Write(x.Prediction); err != nil {
			return err
		}
		if trace != nil {
			if err := trace.Write(&x.Sample.Trace); err != nil {
				return err
			}
		}
		prog.done(x.Sample)
		return nil
	}
	return produce(ctx, spec, jobs, done, store)
}

// A producer generates the jobs of a run (spec says how), here or on
// workers, and passes each sample to store once, as it is done; done holds
// the prediction keys already stored.
type producer func(ctx context.Context, spec runrecord.Spec, jobs []pipeline.Job, done map[string]bool, store func(pipeline.Result) error) error

// generateHere is the local producer: the runner generates the jobs in
// turn, a task's samples together as a batch when batch is set
// (--batch-samples).
func generateHere(r *pipeline.Runner, batch bool) producer {
	return func(ctx context.Context, _ runrecord.Spec, jobs []pipeline.Job, _ map[string]bool, store func(pipeline.Result) error) error {
		for _, group := range pipeline.Groups(jobs, batch) {
			res, err := r.Run(ctx, group)
			if err != nil {
				return err
			}
			for _, x := range res {
				if err := store(x); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// evaluate runs the harness on the predictions, each task with its
// project's environment under envsDir ("": --python for every task).
func (f *runFlags) evaluate(ctx context.Context, stdout, stderr io.Writer, predFile, out, envsDir string, tasks []*dataset.Task) error {
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	cfg := bench.Config{Benchmark: f.benchmark, Data: f.data, Repos: f.repos, Predictions: predFile,
		Out: filepath.Join(out, "eval"), Workers: f.workers, Python: f.python, Envs: envsDir, Tasks: ids,
		Command: "actor " + strings.Join(os.Args[1:], " "), Log: stderr, Bar: isTerminal(os.Stderr)}
	res, err := bench.Run(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted while testing: run the same command to continue")
		}
		return err
	}
	for _, g := range res.Groups {
		fmt.Fprintf(stdout, "%s %s: %d/%d samples passed on %d tasks; pass@1 %s pass@3 %s pass@5 %s\n", g.Method, g.Model,
			g.Passed, g.Samples, len(g.Tasks), pct(g, 1), pct(g, 3), pct(g, 5))
	}
	fmt.Fprintf(stdout, "predictions: %s\nsummary: %s\n", predFile, filepath.Join(cfg.Out, results.SummaryMD))
	return nil
}

// genProgress shows generation progress: a bar with rate and ETA on a
// terminal, else a line every 5% of the samples.
type genProgress struct {
	w      io.Writer
	bar    *progressbar.ProgressBar
	total  int
	n      int
	tokens int
	start  time.Time
	next   int
	// decoding time and ACToR's share of it, in ms
	decode, probe, retrieve, reprefill float64
	triggers, changes                  int
}

// newGenProgress reports on w the progress of total samples, as a bar when
// bar is set.
func newGenProgress(w io.Writer, bar bool, total int) *genProgress {
	p := &genProgress{w: w, total: total, start: time.Now()}
	if bar {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("generating"),
			progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("samples"),
			progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionFullWidth())
	}
	return p
}

// done counts a generated sample.
func (p *genProgress) done(s *generate.Sample) {
	p.n++
	p.tokens += s.Trace.Generated
	p.decode += float64(s.Decode.Microseconds()) / 1000
	p.probe, p.retrieve, p.reprefill = p.probe+s.Trace.ProbeMs, p.retrieve+s.Trace.RetrieveMs, p.reprefill+s.Trace.ReprefillMs
	p.triggers, p.changes = p.triggers+s.Trace.Triggers, p.changes+s.Trace.ContextChanges
	if p.bar != nil {
		p.bar.Add(1)
		return
	}
	if p.n >= p.next || p.n == p.total {
		el := time.Since(p.start)
		eta := time.Duration(float64(el) / float64(p.n) * float64(p.total-p.n))
		fmt.Fprintf(p.w, "%d/%d samples generated (%d tokens, %.1f tokens/s), elapsed %s, ETA %s\n", p.n, p.total,
			p.tokens, float64(p.tokens)/el.Seconds(), el.Round(time.Second), eta.Round(time.Second))
		p.next = p.n + max(1, p.total/20)
	}
}

// finish ends the bar and, when a probe ran, splits the decoding time per
// token into plain decoding and ACToR's overhead.
func (p *genProgress) finish() {
	if p.bar != nil {
		p.bar.Finish()
		fmt.Fprintln(p.w)
	}
	if p.probe == 0 || p.tokens == 0 {
		return
	}
	over := p.probe + p.retrieve + p.reprefill
	plain := p.decode - over
	fmt.Fprintf(p.w, "decoding: %.1f ms/token = %.1f plain + %.2f probe + %.2f retrieval + %.1f re-prefill (%d triggers, %d context changes in %d samples): %+.1f%% over plain decoding\n",
		p.decode/float64(p.tokens), plain/float64(p.tokens), p.probe/float64(p.tokens), p.retrieve/float64(p.tokens),
		p.reprefill/float64(p.tokens), p.triggers, p.changes, p.n, 100*over/plain)
}
