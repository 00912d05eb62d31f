package serve

import (
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"actor/bench/results"
	"actor/generate"
	"actor/predictions"
)

// runDepth is how deep under the runs folder run folders are looked for.
const runDepth = 3

// findRuns lists the benchmark run folders under dir (folders holding a
// predictions.jsonl, as actor run writes them), by their slash-separated
// paths relative to dir. Requests name a run by one of these names only,
// so no path of a request is ever joined to dir.
func findRuns(dir string) (map[string]string, error) {
	runs := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if strings.Count(rel, string(filepath.Separator)) >= runDepth {
			return fs.SkipDir
		}
		if st, err := os.Stat(filepath.Join(path, "predictions.jsonl")); err == nil && st.Mode().IsRegular() {
			runs[filepath.ToSlash(rel)] = path
		}
		return nil
	})
	return runs, err
}

// runSample is one sample of a run: its prediction and, once evaluated,
// its test's verdict.
type runSample struct {
	TaskID         string  `json:"task_id"`
	Sample         int     `json:"sample"`
	Method         string  `json:"method"`
	Code           string  `json:"code"`
	Tokens         int     `json:"tokens"`
	Triggers       int     `json:"triggers"`
	ContextChanges int     `json:"context_changes"`
	MsPerToken     float64 `json:"ms_per_token"`
	// Status is the evaluation's ("" before it), Reason why a sample
	// did not pass.
	Status string `json:"status,omitempty"`
	Passed bool   `json:"passed"`
	Reason string `json:"reason,omitempty"`
}

// run answers the run folder named by ?run=: the runs when none is named,
// else its samples with their verdicts.
func (s *Server) runs(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Runs == "" {
		writeError(w, &apiError{http.StatusNotFound, "not_found_error", "this server browses no runs (start it with --runs DIR)"})
		return
	}
	all, err := findRuns(s.cfg.Runs)
	if err != nil {
		writeError(w, err)
		return
	}
	name := r.URL.Query().Get("run")
	if name == "" {
		names := make([]string, 0, len(all))
		for n := range all {
			names = append(names, n)
		}
		slices.Sort(names)
		writeJSON(w, http.StatusOK, map[string]any{"data": names})
		return
	}
	dir, ok := all[name]
	if !ok {
		writeError(w, &apiError{http.StatusNotFound, "not_found_error", fmt.Sprintf("no run %q", name)})
		return
	}
	if task := r.URL.Query().Get("task"); task != "" {
		s.runTrace(w, dir, task, r.URL.Query().Get("sample"))
		return
	}
	preds, _, err := predictions.Read(filepath.Join(dir, "predictions.jsonl"))
	if err != nil {
		writeError(w, err)
		return
	}
	verdicts := map[string]results.Record{}
	if recs, err := results.Read(filepath.Join(dir, "eval", "samples.jsonl")); err == nil {
		for _, rec := range recs {
			verdicts[rec.Key()] = rec
		}
	}
	out := make([]runSample, len(preds))
	for i, p := range preds {
		v := verdicts[p.Key()]
		out[i] = runSample{TaskID: p.TaskID, Sample: p.Sample, Method: p.Method, Code: p.Code, Tokens: p.Tokens, Triggers: p.Triggers,
			ContextChanges: p.ContextChanges, MsPerToken: p.MsPerToken, Status: v.Status, Passed: v.Passed, Reason: v.Reason}
	}
	writeJSON(w, http.StatusOK, map[string]any{"run": name, "data": out})
}

// runTrace answers a sample's trace from the run's traces (plain or
// gzipped); the last trace of the sample wins, as a resumed run appends.
func (s *Server) runTrace(w http.ResponseWriter, dir, task, sample string) {
	n, err := strconv.Atoi(sample)
	if err != nil {
		writeError(w, badRequest("sample %q: want a number", sample))
		return
	}
	path := generate.TracesFile(dir)
	if _, err := os.Stat(path); err != nil {
		writeError(w, &apiError{http.StatusNotFound, "not_found_error", "the run has no traces (actor run --trace)"})
		return
	}
	traces, _, err := generate.LastTraces(path, func(t string, i int) bool { return t == task && i == n })
	if err != nil {
		fmt.Fprintf(s.cfg.Log, "serve: %v\n", err)
		writeError(w, &apiError{http.StatusInternalServerError, "server_error", "the run's traces cannot be read (the server's log says why)"})
		return
	}
	if len(traces) == 0 {
		writeError(w, &apiError{http.StatusNotFound, "not_found_error", fmt.Sprintf("no trace of sample %d of task %s", n, task)})
		return
	}
	writeJSON(w, http.StatusOK, traces[0])
}
