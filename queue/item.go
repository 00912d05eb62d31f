package queue

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"actor/dataset"
	"actor/generate"
	"actor/pipeline"
	"actor/predictions"
	"actor/sources"
)

// Identity is what a run's samples depend on besides its switches: the
// SHA-256 (hex) of the model file, of the probe file ("" for methods
// without a probe), of the benchmark's task files and, per project of the
// run's tasks, of the sources retrieval reads (pipeline.SourcesHash). A
// worker whose own files hash differently refuses the run's items.
type Identity struct {
	Model   string            `json:"model"`
	Probe   string            `json:"probe,omitempty"`
	Data    string            `json:"data"`
	Sources map[string]string `json:"sources,omitempty"`
}

// Spec is how a run generates. Every item carries it, so that a worker
// can serve any run without being told about it beforehand.
type Spec struct {
	// Benchmark is repoexec or codereval (dataset.Load's name).
	Benchmark string `json:"benchmark"`
	// Model is the model's label in predictions (pipeline.ModelLabel).
	Model string `json:"model"`
	// Method holds the method's switches as the coordinator resolved them
	// (pipeline.Method.Resolved), so that every worker runs the same
	// levers; its Probe is the coordinator's path, which a worker replaces
	// by its own (checked by Identity).
	Method pipeline.Method `json:"method"`
	// MethodName is the method as predictions record it, with a fallback
	// suffix such as "+bm25"; a worker that would name it otherwise (its
	// encoder failed to load) refuses.
	MethodName string `json:"method_name"`
	// Config is the sampling configuration the run was given.
	Config generate.Config `json:"config"`
	// ContextLength is the engine's context length (0: the default).
	ContextLength int `json:"context_length,omitempty"`
	// Trace asks for the samples' traces.
	Trace bool `json:"trace,omitempty"`
	// Identity is what the run's files hash to.
	Identity Identity `json:"identity"`
}

// Item is one unit of work: the samples of one task that a worker
// generates together (pipeline.Groups cuts them).
type Item struct {
	Run     string `json:"run"`
	Spec    Spec   `json:"spec"`
	Task    string `json:"task"`
	Samples []int  `json:"samples"`
}

// ID names the item within all runs.
func (it *Item) ID() string {
	s := make([]string, len(it.Samples))
	for i, n := range it.Samples {
		s[i] = strconv.Itoa(n)
	}
	return it.Run + "/" + it.Task + "/" + strings.Join(s, ",")
}

// Keys are the prediction keys (predictions.Prediction.Key) the item's
// results have.
func (it *Item) Keys() []string {
	out := make([]string, len(it.Samples))
	for i, s := range it.Samples {
		p := predictions.Prediction{TaskID: it.Task, Sample: s, Method: it.Spec.MethodName, Model: it.Spec.Model}
		out[i] = p.Key()
	}
	return out
}

// Output is one generated sample: its prediction record and the sample
// (its trace without attempts unless the run traces).
type Output struct {
	Prediction predictions.Prediction `json:"prediction"`
	Sample     generate.Sample        `json:"sample"`
}

// Result is what a worker publishes for an item: the outputs, or why it
// refused the item.
type Result struct {
	Item    string   `json:"item"`
	Worker  string   `json:"worker"`
	Outputs []Output `json:"outputs,omitempty"`
	Refused string   `json:"refused,omitempty"`
}

// RunID names a run on the queue: a hash of its spec, its tasks and its
// number of samples, so that the same command started again (a
// coordinator restarted) finds its own results.
func RunID(spec Spec, tasks []string, samples int) string {
	b, _ := json.Marshal(struct {
		Spec    Spec
		Tasks   []string
		Samples int
	}{spec, tasks, samples})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// Identify hashes a run's files: the model file, the method's probe file
// for that model (see pipeline.Method.ProbeFile; model is the name the
// probe is looked up by), the task files, in the order given, and the
// sources of the projects of tasks under repos.
func Identify(modelFile, model string, m pipeline.Method, dataFiles []string, tasks []*dataset.Task, repos string) (Identity, error) {
	var id Identity
	var err error
	if id.Model, err = hashFiles(modelFile); err != nil {
		return id, err
	}
	probe, err := m.ProbeFile(model)
	if err != nil {
		return id, err
	}
	if probe != "" {
		if id.Probe, err = hashFiles(probe); err != nil {
			return id, err
		}
	}
	files := slices.Clone(dataFiles)
	slices.Sort(files)
	if id.Data, err = hashFiles(files...); err != nil {
		return id, err
	}
	id.Sources, err = ProjectSources(tasks, repos, nil)
	return id, err
}

// ProjectSources hashes the sources of the tasks' projects under repos,
// by project name; seen, when not nil, caches hashes by project root.
func ProjectSources(tasks []*dataset.Task, repos string, seen map[string]string) (map[string]string, error) {
	out := map[string]string{}
	for _, t := range tasks {
		if _, ok := out[t.Project]; ok {
			continue
		}
		root, err := t.Root(repos)
		if err != nil {
			return nil, err
		}
		h, ok := seen[root]
		if !ok {
			if h, err = pipeline.SourcesHash(root); err != nil {
				return nil, err
			}
			if seen != nil {
				seen[root] = h
			}
		}
		out[t.Project] = h
	}
	return out, nil
}

// hashFiles is the SHA-256 of the files' contents one after the other.
func hashFiles(paths ...string) (string, error) {
	h := sha256.New()
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// mismatch says which of the run's files a worker's differ from, or "".
func (id Identity) mismatch(own Identity) string {
	var diff []string
	for _, f := range []struct{ name, run, own string }{
		{"model", id.Model, own.Model}, {"probe", id.Probe, own.Probe}, {"data", id.Data, own.Data}} {
		if f.run != f.own {
			diff = append(diff, fmt.Sprintf("%s SHA-256 %.12s, the run's %.12s", f.name, orNone(f.own), orNone(f.run)))
		}
	}
	diff = append(diff, id.sourcesDiff(own.Sources)...)
	return strings.Join(diff, "; ")
}

// sourcesDiff names the projects whose sources hash otherwise in own than
// in the run (projects the run did not hash are not compared).
func (id Identity) sourcesDiff(own map[string]string) []string {
	var diff []string
	_, _, moved := sources.Merge(id.Sources, own)
	for _, m := range moved {
		diff = append(diff, fmt.Sprintf("%s sources SHA-256 %.12s, the run's %.12s", m.Project, m.Now, m.Recorded))
	}
	return diff
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
