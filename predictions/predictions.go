// Package predictions reads and writes predictions files: JSONL, one
// generated sample per line, with the task it answers, its sample index, the
// generated code, who produced it (method, model) and how long it took. The
// format is documented in docs/PREDICTIONS.md; the generator writes it and
// the benchmark harness reads it.
package predictions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"actor/jsonl"
)

// Prediction is one generated sample.
type Prediction struct {
	// TaskID is the benchmark task's id (RepoExec task_id, CoderEval _id).
	TaskID string `json:"task_id"`
	// Sample is the sample's index for this task, method and model, from 0.
	Sample int `json:"sample"`
	// Code is the generated text: a whole function or the body that follows
	// the task's prompt.
	Code string `json:"code"`
	// Method names the generation method (actor, rawrag, repocoder, ...).
	Method string `json:"method"`
	// Model names the code model.
	Model string `json:"model"`
	Figures
	// Line is the line of the file the prediction was read from (not
	// written).
	Line int `json:"-"`
}

// Figures are a sample's generation figures, kept with its prediction and
// copied into its test record, so reports read them from either.
type Figures struct {
	// Tokens is the number of generated tokens.
	Tokens int `json:"tokens,omitempty"`
	// MsPerToken is the mean decoding time per generated token, in ms.
	MsPerToken float64 `json:"ms_per_token,omitempty"`
	// Seconds is the wall time for the whole sample (retrieval included).
	Seconds float64 `json:"seconds,omitempty"`
	// Triggers counts retrieval triggers during generation.
	Triggers int `json:"triggers,omitempty"`
	// ContextChanges counts the times the retrieved context changed.
	ContextChanges int `json:"context_changes,omitempty"`
	// GoldTokens is the ground-truth function body's length in the same
	// model's tokens, for the generated/ground-truth ratio.
	GoldTokens int `json:"gold_tokens,omitempty"`
}

// Key identifies a sample within a run.
func (p *Prediction) Key() string {
	return strings.Join([]string{p.Method, p.Model, p.TaskID, strconv.Itoa(p.Sample)}, "\x00")
}

// wire is the decoding shape: task_id may be a string or an integer, and
// sample and code must be present.
type wire struct {
	Prediction
	TaskID json.RawMessage `json:"task_id"`
	Sample *int            `json:"sample"`
	Code   *string         `json:"code"`
}

// Parse decodes one predictions line.
func Parse(raw []byte) (Prediction, error) {
	var w wire
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&w); err != nil {
		return Prediction{}, fmt.Errorf("not a valid predictions record: %v", err)
	}
	if dec.More() {
		return Prediction{}, errors.New("more than one JSON value on the line")
	}
	p := w.Prediction
	id := bytes.TrimSpace(w.TaskID)
	switch {
	case len(id) == 0 || string(id) == "null":
		return p, errors.New("missing field task_id")
	case id[0] == '"':
		if err := json.Unmarshal(id, &p.TaskID); err != nil {
			return p, fmt.Errorf("field task_id: %v", err)
		}
	default:
		if _, err := strconv.ParseInt(string(id), 10, 64); err != nil {
			return p, fmt.Errorf("field task_id: %s is neither a string nor an integer", id)
		}
		p.TaskID = string(id)
	}
	if strings.TrimSpace(p.TaskID) == "" {
		return p, errors.New("missing field task_id")
	}
	if w.Sample == nil || *w.Sample < 0 {
		return p, errors.New("missing or negative field sample")
	}
	if w.Code == nil {
		return p, errors.New("missing field code")
	}
	p.Sample, p.Code = *w.Sample, *w.Code
	if p.Tokens < 0 || p.MsPerToken < 0 || p.Seconds < 0 || p.Triggers < 0 || p.ContextChanges < 0 || p.GoldTokens < 0 {
		return p, errors.New("negative timing field")
	}
	return p, nil
}

// Read loads a predictions file. Malformed lines and repeated samples are
// returned as *jsonl.RowError naming the line; the other lines are kept.
func Read(path string) ([]Prediction, []error, error) {
	var (
		out  []Prediction
		errs []error
		seen = map[string]int{}
	)
	err := jsonl.Scan(path, func(line int, raw []byte) error {
		p, err := Parse(raw)
		if err == nil {
			if prev, dup := seen[p.Key()]; dup {
				err = fmt.Errorf("sample %d of task %s (%s, %s) repeats line %d", p.Sample, p.TaskID, p.Method, p.Model, prev)
			}
		}
		if err != nil {
			errs = append(errs, &jsonl.RowError{File: path, Line: line, Err: err})
			return nil
		}
		seen[p.Key()] = line
		p.Line = line
		out = append(out, p)
		return nil
	})
	return out, errs, err
}

// Writer appends predictions to a file, each line synced before Write
// returns, so a generator can be killed and resumed (see Done).
type Writer struct{ a *jsonl.Appender }

// Create opens path for appending predictions, repairing a torn last line.
func Create(path string) (*Writer, error) {
	a, _, err := jsonl.OpenAppend(path)
	if err != nil {
		return nil, err
	}
	return &Writer{a}, nil
}

// Write appends one prediction.
func (w *Writer) Write(p Prediction) error { return w.a.Append(p) }

// Close closes the file.
func (w *Writer) Close() error { return w.a.Close() }

// Done returns the keys of the samples already in the file at path, so a
// resumed generator skips them.
func Done(path string) (map[string]bool, error) {
	ps, _, err := Read(path)
	done := map[string]bool{}
	for i := range ps {
		done[ps[i].Key()] = true
	}
	return done, err
}
