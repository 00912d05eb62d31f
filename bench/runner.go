// Package bench evaluates generated functions on RepoExec and CoderEval by
// running the benchmarks' tests: every sample of a predictions file (or the
// gold solutions, as the harness's self-check) is put into a fresh copy of
// its repository, tested in the sandbox, and recorded at once; pass@k per
// method and model is summarized at the end. An interrupted run continues
// where it stopped.
package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"actor/bench/candidate"
	"actor/bench/dataset"
	"actor/bench/predictions"
	"actor/bench/results"
	"actor/bench/sandbox"
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
	// Python is the interpreter to test with (default python3).
	Python string
	// Tasks restricts the run to these task ids (all when empty).
	Tasks []string
	// WorkDir is where workspaces are made (default: the temp folder).
	WorkDir string
	// Keep leaves workspaces on disk for inspection.
	Keep bool
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
	// the results folder.
	Evaluated, Resumed int
}

// job is one sample to evaluate.
type job struct {
	task *dataset.Task
	pred predictions.Prediction
}

type runner struct {
	cfg      Config
	box      *sandbox.Sandbox
	python   string
	outputs  string
	workRoot string
	roots    map[string]string // task id -> repository root
	rootErr  map[string]error  // task id -> why it cannot be tested
	store    *results.Store
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
	py, err := resolvePython(cfg.Python)
	if err != nil {
		return nil, err
	}
	r.python, meta.Python = py.executable, py.version
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
	if r.box, err = sandbox.New(py.reach...); err != nil {
		return nil, err
	}
	defer r.box.Close()
	meta.Isolation = fmt.Sprintf("%+v", r.box.Isolation())
	meta.Warnings = r.box.Warnings()
	for _, w := range meta.Warnings {
		fmt.Fprintln(cfg.Log, "sandbox warning:", w)
	}
	if r.workRoot, err = sandbox.WorkRoot(cfg.WorkDir); err != nil {
		return nil, err
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
		if rec, ok := r.store.Done(j.pred.Key()); ok {
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
	if out.Evaluated, err = r.evaluateAll(ctx, todo); err != nil {
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

// evaluate tests one sample; ok is false when the run was canceled before
// the sample's outcome was known.
func (r *runner) evaluate(ctx context.Context, slot int, j job) (rec results.Record, ok bool) {
	t, p := j.task, j.pred
	rec = results.Record{TaskID: p.TaskID, Sample: p.Sample, Method: p.Method, Model: p.Model, Exit: -1,
		CodeSHA: codeSHA(p.Code), Tokens: p.Tokens, MsPerToken: p.MsPerToken, Seconds: p.Seconds,
		Triggers: p.Triggers, ContextChanges: p.ContextChanges, GoldTokens: p.GoldTokens}
	fail := func(err error) (results.Record, bool) {
		rec.Status, rec.Reason = results.StatusError, err.Error()
		return rec, ctx.Err() == nil
	}
	if err := r.rootErr[t.ID]; err != nil {
		return fail(err)
	}
	fn := t.Gold
	if r.cfg.Gold {
		rec.Mode = "gold"
	} else {
		var mode candidate.Mode
		fn, mode = candidate.Extract(p.Code, t.EntryPoint, t.Prompt)
		rec.Mode = string(mode)
	}
	ws, err := os.MkdirTemp(r.workRoot, "task-"+safeName(t.ID)+"-")
	if err != nil {
		return fail(err)
	}
	if !r.cfg.Keep {
		defer os.RemoveAll(ws)
	}
	prep, err := r.prepare(ws, t, r.roots[t.ID], fn)
	if err == nil {
		err = r.box.Own(ws, slot)
	}
	if err != nil {
		return fail(fmt.Errorf("workspace: %v", err))
	}
	timeout := r.cfg.Timeout
	if timeout <= 0 {
		timeout = t.DefaultTimeout()
	}
	res := r.box.Run(ctx, sandbox.Command{
		Path:   r.python,
		Args:   prep.args,
		Dir:    prep.dir,
		Env:    append(r.env(ws), prep.env...),
		Limits: sandbox.DefaultLimits(timeout),
		Slot:   slot,
	})
	if res.Canceled {
		return rec, false
	}
	rec.Exit = res.Exit
	rec.TestSeconds = res.Duration.Seconds()
	rec.Passed = res.Passed()
	switch {
	case rec.Passed:
		rec.Status = results.StatusPassed
		return rec, true
	case res.TimedOut:
		rec.Status = results.StatusTimeout
	case res.Err != nil:
		rec.Status = results.StatusError
	default:
		rec.Status = results.StatusFailed
	}
	rec.Reason = res.Reason()
	if d := failureDetail(string(res.Output)); d != "" {
		rec.Reason += ": " + d
	}
	rec.Output = tail(string(res.Output), 2000)
	return rec, true
}

// env is the complete environment of a test run in workspace ws.
func (r *runner) env(ws string) []string {
	return []string{
		"PATH=" + filepath.Dir(r.python) + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + filepath.Join(ws, "home"),
		"TMPDIR=" + filepath.Join(ws, "tmp"),
		"LANG=C.UTF-8", "LC_ALL=C.UTF-8", "COLUMNS=400",
		"PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0", "PYTHONNOUSERSITE=1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1",
		"OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1",
	}
}

// selectTasks returns the tasks to run: all of set, or those named in ids.
func selectTasks(set *dataset.Set, ids []string) ([]*dataset.Task, error) {
	var out []*dataset.Task
	if len(ids) == 0 {
		for i := range set.Tasks {
			out = append(out, &set.Tasks[i])
		}
		return out, nil
	}
	for _, id := range ids {
		t := set.Lookup(id)
		if t == nil {
			return nil, fmt.Errorf("no task %q in %s", id, strings.Join(set.Files, ", "))
		}
		out = append(out, t)
	}
	return out, nil
}

// loadJobs returns the samples to evaluate: one gold sample per task, or
// the predictions for the selected tasks. Malformed lines and lines naming
// unknown tasks come back as input errors.
func loadJobs(cfg Config, set *dataset.Set, tasks []*dataset.Task) ([]job, []string, error) {
	var jobs []job
	if cfg.Gold {
		for _, t := range tasks {
			jobs = append(jobs, job{t, predictions.Prediction{TaskID: t.ID, Code: t.Gold, Method: "gold"}})
		}
		return jobs, nil, nil
	}
	if cfg.Predictions == "" {
		return nil, nil, fmt.Errorf("no predictions file (or --gold) given")
	}
	preds, perrs, err := predictions.Read(cfg.Predictions)
	if err != nil {
		return nil, nil, err
	}
	var errs []string
	for _, e := range perrs {
		errs = append(errs, e.Error())
	}
	selected := map[string]*dataset.Task{}
	for _, t := range tasks {
		selected[t.ID] = t
	}
	for _, p := range preds {
		t := selected[p.TaskID]
		if t == nil {
			if set.Lookup(p.TaskID) == nil {
				errs = append(errs, fmt.Sprintf("%s:%d: unknown task id %s", cfg.Predictions, p.Line, p.TaskID))
			}
			continue
		}
		jobs = append(jobs, job{t, p})
	}
	if len(jobs) == 0 {
		return nil, errs, fmt.Errorf("%s: no prediction for the selected tasks (%d malformed lines)", cfg.Predictions, len(perrs))
	}
	return jobs, errs, nil
}

// pythonInfo describes the interpreter tests run with.
type pythonInfo struct {
	// executable is the real interpreter (not a shim script, so it runs
	// without the caller's environment); version its version.
	executable, version string
	// reach lists what the sandboxed interpreter must open: the
	// executable, its target and its installation prefixes.
	reach []string
}

// resolvePython asks the interpreter name about itself.
func resolvePython(name string) (pythonInfo, error) {
	out, err := exec.Command(name, "-c", "import os, sys; print(sys.executable, sys.version.split()[0], "+
		"os.path.realpath(sys.executable), sys.prefix, sys.base_prefix)").Output()
	if err != nil {
		return pythonInfo{}, fmt.Errorf("python interpreter %q does not run: %v", name, err)
	}
	f := strings.Fields(string(out))
	if len(f) != 5 || !filepath.IsAbs(f[0]) {
		return pythonInfo{}, fmt.Errorf("python interpreter %q: unexpected answer %q", name, out)
	}
	return pythonInfo{executable: f[0], version: f[1], reach: append([]string{f[0]}, f[2:]...)}, nil
}

func codeSHA(code string) string {
	h := sha256.Sum256([]byte(code))
	return hex.EncodeToString(h[:16])
}

// safeName keeps the letters, digits, '-' and '_' of s, for file names.
func safeName(s string) string {
	b := []byte(s)
	out := b[:0]
	for _, c := range b {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			out = append(out, c)
		}
	}
	if len(out) > 40 {
		out = out[:40]
	}
	return string(out)
}

// tail returns the last n bytes of s on a UTF-8 boundary.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := len(s) - n
	for cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut++
	}
	return s[cut:]
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
