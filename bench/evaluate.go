package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"actor/bench/candidate"
	"actor/bench/results"
	"actor/bench/sandbox"
)

// evaluate tests one sample; ok is false when the run was canceled before
// the sample's outcome was known.
func (r *runner) evaluate(ctx context.Context, slot int, j job) (rec results.Record, ok bool) {
	t, p := j.task, j.pred
	rec = results.Record{TaskID: p.TaskID, Sample: p.Sample, Method: p.Method, Model: p.Model, Exit: -1,
		CodeSHA: codeSHA(p.Code), Figures: p.Figures}
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
	binds, root := r.binds(ws), ""
	if prep.image {
		binds, root = prep.binds, filepath.Join(ws, imageRoot)
	}
	res := r.box.Run(ctx, sandbox.Command{
		Path:     r.pythons[t.ID].executable,
		Args:     prep.args,
		Dir:      prep.dir,
		Env:      append(r.env(ws, r.pythons[t.ID].executable), prep.env...),
		Limits:   sandbox.DefaultLimits(timeout),
		Slot:     slot,
		Writable: ws,
		Binds:    binds,
		Root:     root,
		RootDir:  prep.rootDir,
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

// binds are the mounts of a run in workspace ws where the sandbox gives
// runs a mount namespace: ws/home over /root, the home of the benchmarks'
// Docker images (whose user is root), and ws/tmp over /tmp unless the
// workspace lies there.
func (r *runner) binds(ws string) []sandbox.Bind {
	if !r.box.Isolation().Binds() {
		return nil
	}
	b := []sandbox.Bind{{Source: filepath.Join(ws, "home"), Target: "/root"}}
	if !r.wsInTmp {
		b = append(b, sandbox.Bind{Source: filepath.Join(ws, "tmp"), Target: "/tmp"})
	}
	return b
}

// env is the complete environment of a test run in workspace ws with the
// interpreter python: as in the benchmarks' images, PYTHONHASHSEED=0 and,
// where binds place the workspace's home and temporary folders at /root and
// /tmp, HOME=/root and no TMPDIR.
func (r *runner) env(ws, python string) []string {
	home, tmp := filepath.Join(ws, "home"), []string{"TMPDIR=" + filepath.Join(ws, "tmp")}
	if r.box.Isolation().Binds() {
		home = "/root"
		if !r.wsInTmp {
			tmp = nil // /tmp, the sample's own
		}
	}
	return append(tmp, []string{
		"PATH=" + filepath.Dir(python) + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"LANG=C.UTF-8", "LC_ALL=C.UTF-8", "COLUMNS=400",
		"PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0", "PYTHONNOUSERSITE=1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1",
		"OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1",
	}...)
}
