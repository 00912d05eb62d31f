package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"actor/dataset"
	"actor/predictions"
)

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

// publishedOnly keeps the tasks among RepoExec's 355 published ones; a
// task the user named (--task) that is not is an error rather than
// silently left out.
func publishedOnly(tasks []*dataset.Task, named bool) ([]*dataset.Task, error) {
	var out []*dataset.Task
	for _, t := range tasks {
		switch {
		case t.Published():
			out = append(out, t)
		case named:
			return nil, fmt.Errorf("task %s is not one of RepoExec's 355 published tasks (--published)", t.ID)
		}
	}
	return out, nil
}

// loadJobs returns the samples to evaluate: one gold sample per task, or
// the predictions for the selected tasks. Malformed lines and lines naming
// unknown tasks come back as input errors.
func loadJobs(cfg Config, set *dataset.Set, tasks []*dataset.Task) ([]job, []string, error) {
	var jobs []job
	var errs []string
	var testable []*dataset.Task
	for _, t := range tasks {
		if t.Check() == dataset.CheckProgram && t.Test == "" {
			errs = append(errs, fmt.Sprintf("%s: task %s has no test program (field test/check): not evaluated", t.Origin, t.ID))
			continue
		}
		testable = append(testable, t)
	}
	tasks = testable
	if cfg.Gold {
		for _, t := range tasks {
			jobs = append(jobs, job{t, predictions.Prediction{TaskID: t.ID, Code: t.Gold, Method: "gold"}})
		}
		if len(jobs) == 0 {
			return nil, errs, errors.New("no task with a test program")
		}
		return jobs, errs, nil
	}
	if cfg.Predictions == "" {
		return nil, nil, fmt.Errorf("no predictions file (or --gold) given")
	}
	preds, perrs, err := predictions.Read(cfg.Predictions)
	if err != nil {
		return nil, nil, err
	}
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
