// Package bench evaluates generated functions on RepoExec and CoderEval by
// running the benchmarks' tests: every sample of a predictions file (or the
// gold solutions, as the harness's self-check) is put into a fresh copy of
// its repository, tested in the sandbox, and recorded at once; pass@k per
// method and model is summarized at the end. An interrupted run continues
// where it stopped.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"actor/bench/results"
	"actor/bench/sandbox"
	"actor/dataset"
	"actor/predictions"
)

// Config says what to evaluate and where to record it.
type Config struct {
	// Benchmark is dataset.RepoExec or dataset.CoderEval.
	Benchmark string
	// Data is the task file or folder (see dataset.Load).
	Data string
	// Repos holds the projects' sources (e.g. Repos/test-apps/<project>).
	Repos string
	// Outputs replaces RepoExec's /output/ prefix (expected outputs);
	// default Data/test_output when it exists, else Data.
	Outputs string
	// Predictions is the predictions file; ignored with Gold.
	Predictions string
	// Gold evaluates the gold solutions instead of predictions.
	Gold bool
	// Out is the results folder (created; reused to resume).
	Out string
	// Workers runs this many tests at once (default: the number of CPUs).
	Workers int
	// Timeout per test (default: the benchmark's, 120 s / 30 s).
	Timeout time.Duration
	// Python is the interpreter to test with (default python3) where Envs
	// has no environment for the task's project.
	Python string
	// Envs is the folder of the per-project environments made by
	// envs.Setup; each task runs with its project's one when it is there.
	// Empty: Python for every task.
	Envs string
	// Tasks restricts the run to these task ids (all when empty).
	Tasks []string
	// Published restricts a RepoExec run to the benchmark's 355 published
	// tasks (see dataset.Task.Published).
	Published bool
	// WorkDir is where workspaces are made (default: the temp folder).
	WorkDir string
	// Keep leaves workspaces on disk for inspection.
	Keep bool
	// Reuse lists results folders whose outcomes stand for samples of the
	// same task with identical code (see twins.go); the results folder
	// itself always does.
	Reuse []string
	// TestTwins tests every sample, even one whose code was tested before.
	TestTwins bool
	// Command is the command line, recorded in run.json and the summary.
	Command string
	// Log receives warnings, input errors and progress; nil discards.
	Log io.Writer
	// Bar draws a progress bar on Log (a terminal) instead of log lines.
	Bar bool
}

// Outcome is what a run did.
type Outcome struct {
	Meta   results.Meta
	Groups []results.Group
	// Evaluated samples in this invocation; Resumed ones were already in
	// the results folder; Twins took the outcome of a sample with the same
	// code.
	Evaluated, Resumed, Twins int
}

// job is one sample to evaluate.
type job struct {
	task *dataset.Task
	pred predictions.Prediction
}

type runner struct {
	cfg      Config
	box      *sandbox.Sandbox
	pythons  map[string]pythonInfo // task id -> its interpreter
	outputs  string
	workRoot string
	roots    map[string]string // task id -> repository root
	rootErr  map[string]error  // task id -> why it cannot be tested
	store    *results.Store
	// wsInTmp: the workspaces lie under /tmp, which then cannot be bound.
	wsInTmp bool
	// image: RepoExec runs get a root of their own laid out as the
	// benchmark's image (/input, /output, /package, /root, /tmp).
	image bool
	// system binds the benchmark image's system files (envs.SystemFiles)
	// over the machine's in image runs.
	system []sandbox.Bind
}

// Run evaluates cfg's samples and writes the results folder.
func Run(ctx context.Context, cfg Config) (*Outcome, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.Python == "" {
		cfg.Python = "python3"
	}
	set, err := dataset.Load(cfg.Benchmark, cfg.Data)
	if err != nil {
		return nil, err
	}
	meta := results.Meta{Benchmark: cfg.Benchmark, Data: cfg.Data, Repos: cfg.Repos, Predictions: cfg.Predictions,
		Gold: cfg.Gold, Command: cfg.Command, Workers: cfg.Workers, Started: time.Now().Format(time.RFC3339)}
	for _, e := range set.Errors {
		meta.InputErrors = append(meta.InputErrors, e.Error())
	}
	tasks, err := selectTasks(set, cfg.Tasks)
	if err != nil {
		return nil, err
	}
	if cfg.Published {
		if tasks, err = publishedOnly(tasks, len(cfg.Tasks) > 0); err != nil {
			return nil, err
		}
	}
	jobs, predErrs, err := loadJobs(cfg, set, tasks)
	if err != nil {
		return nil, err
	}
	meta.InputErrors = append(meta.InputErrors, predErrs...)
	for _, e := range meta.InputErrors {
		fmt.Fprintln(cfg.Log, "input error:", e)
	}
	for _, t := range tasks {
		meta.Tasks = append(meta.Tasks, t.ID)
	}
	if cfg.Timeout > 0 {
		meta.Timeout = cfg.Timeout.Seconds()
	} else {
		meta.Timeout = tasks[0].DefaultTimeout().Seconds()
	}

	r := &runner{cfg: cfg, roots: map[string]string{}, rootErr: map[string]error{}}
	reach, desc, err := r.choosePythons(tasks)
	if err != nil {
		return nil, err
	}
	meta.Python = desc
	r.outputs = cfg.Outputs
	if r.outputs == "" {
		r.outputs = cfg.Data
		if st, err := os.Stat(cfg.Data); err == nil && !st.IsDir() {
			r.outputs = filepath.Dir(cfg.Data)
		}
		if d := filepath.Join(r.outputs, "test_output"); dirExists(d) {
			r.outputs = d
		}
	}
	for _, t := range tasks {
		if root, err := t.Locate(cfg.Repos); err != nil {
			r.rootErr[t.ID] = err
			fmt.Fprintln(cfg.Log, "warning:", err)
		} else {
			r.roots[t.ID] = root
		}
	}
	if r.box, err = sandbox.New(reach...); err != nil {
		return nil, err
	}
	defer r.box.Close()
	meta.Isolation = fmt.Sprintf("%+v", r.box.Isolation())
	meta.Warnings = r.box.Warnings()
	for _, w := range meta.Warnings {
		fmt.Fprintln(cfg.Log, "sandbox warning:", w)
	}
	parent := cfg.WorkDir
	if parent == "" && r.box.Isolation().Binds() && dirExists("/var/tmp") {
		parent = "/var/tmp" // /tmp is bound over in the runs
	}
	if r.workRoot, err = sandbox.WorkRoot(parent); err != nil {
		return nil, err
	}
	r.wsInTmp = r.workRoot == "/tmp" || strings.HasPrefix(r.workRoot, "/tmp/")
	if err := r.checkVisible(); err != nil {
		os.RemoveAll(r.workRoot)
		return nil, err
	}
	r.image = r.box.Isolation().Mounts && !r.wsInTmp
	if r.image {
		r.system = r.systemBinds()
	}
	if !cfg.Keep {
		defer os.RemoveAll(r.workRoot)
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	if r.store, err = results.Open(cfg.Out); err != nil {
		return nil, err
	}
	defer r.store.Close()
	if r.store.Cut > 0 {
		fmt.Fprintf(cfg.Log, "resume: removed a torn last line (%d bytes) from %s\n", r.store.Cut, results.SamplesFile)
	}
	if err := results.WriteMeta(cfg.Out, meta); err != nil {
		return nil, err
	}

	out := &Outcome{}
	var todo []job
	keys := map[string]bool{}
	for _, j := range jobs {
		keys[j.pred.Key()] = true
		// A sample the harness could not test (StatusError) is tried again.
		if rec, ok := r.store.Done(j.pred.Key()); ok && rec.Status != results.StatusError {
			if rec.CodeSHA != codeSHA(j.pred.Code) {
				return nil, fmt.Errorf("%s holds a result for sample %d of task %s (%s, %s) made from different code: use another --out",
					cfg.Out, j.pred.Sample, j.pred.TaskID, j.pred.Method, j.pred.Model)
			}
			out.Resumed++
			continue
		}
		todo = append(todo, j)
	}
	if out.Resumed > 0 {
		fmt.Fprintf(cfg.Log, "resume: %d of %d samples already evaluated in %s\n", out.Resumed, len(jobs), cfg.Out)
	}
	book, err := r.reuseBook(meta)
	if err != nil {
		return nil, err
	}
	if out.Evaluated, out.Twins, err = r.evaluateWithTwins(ctx, todo, book); err != nil {
		return nil, err
	}

	var recs []results.Record
	for _, rec := range r.store.Records() {
		if keys[rec.Key()] {
			recs = append(recs, rec)
		}
	}
	out.Groups = results.Aggregate(recs, meta.Tasks)
	meta.Finished = time.Now().Format(time.RFC3339)
	out.Meta = meta
	if err := results.WriteMeta(cfg.Out, meta); err != nil {
		return nil, err
	}
	return out, results.WriteSummary(cfg.Out, meta, out.Groups, recs)
}

// evaluateAll runs the jobs on cfg.Workers workers, recording each result as
// soon as it is known. It returns how many it recorded; when ctx ends it
// stops, leaving the unfinished samples for the next run, and returns
// ctx's error.
func (r *runner) evaluateAll(ctx context.Context, todo []job) (int, error) {
	queue := make(chan job)
	recorded := make(chan results.Record)
	var wg sync.WaitGroup
	for slot := 0; slot < r.cfg.Workers; slot++ {
		wg.Add(1)
		go func(slot int) {
			defer wg.Done()
			for j := range queue {
				if rec, ok := r.evaluate(ctx, slot, j); ok {
					recorded <- rec
				}
			}
		}(slot)
	}
	go func() {
		defer close(queue)
		for _, j := range todo {
			select {
			case queue <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(recorded)
	}()
	prog := newProgress(r.cfg.Log, r.cfg.Bar, len(todo))
	n := 0
	var addErr error
	for rec := range recorded {
		if addErr != nil {
			continue
		}
		if addErr = r.store.Add(rec); addErr == nil {
			n++
			prog.done(rec)
		}
	}
	prog.finish()
	if addErr != nil {
		return n, addErr
	}
	return n, ctx.Err()
}

// FolderError is a folder the sandboxed tests must read but cannot see;
// the command's input is wrong, so the CLI exits with status 2.
type FolderError struct{ Flag, Dir, Why string }

// Error names the flag, the folder and why it is refused.
func (e *FolderError) Error() string { return fmt.Sprintf("%s %s: %s", e.Flag, e.Dir, e.Why) }

// ExitCode is the CLI's exit status for the error.
func (e *FolderError) ExitCode() int { return 2 }

// checkVisible refuses, before anything runs, an interpreter the tests
// would run from under /tmp when the sandbox binds each run's own
// temporary folder over /tmp: it would not be found and every sample would
// fail with "no such file or directory". (Sources and expected outputs are
// bound into the runs where they are, so they may lie there.)
func (r *runner) checkVisible() error {
	if !r.box.Isolation().Binds() || r.wsInTmp {
		return nil
	}
	for _, p := range r.pythons {
		for _, path := range p.reach {
			if path != "/tmp" && !strings.HasPrefix(path, "/tmp/") {
				continue
			}
			flag, dir := "--python", r.cfg.Python
			if abs, err := filepath.Abs(r.cfg.Envs); r.cfg.Envs != "" && err == nil && strings.HasPrefix(path, abs+"/") {
				flag, dir = "--envs", r.cfg.Envs
			}
			return &FolderError{flag, dir, "its interpreter " + path + " lies under /tmp, which the sandbox replaces with each test's own temporary folder; use a folder outside /tmp"}
		}
	}
	return nil
}
