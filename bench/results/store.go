// Package results keeps a benchmark run's outcomes: one JSONL record per
// evaluated sample, appended and synced as soon as it is known, so a run
// killed at any moment resumes without losing or repeating a sample; and
// the summary (pass@k per method and model, timings, failures) written
// atomically as Markdown and CSV.
package results

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"actor/jsonl"
	"actor/predictions"
)

// SamplesFile is the name of the per-sample JSONL file in a results folder.
const SamplesFile = "samples.jsonl"

// Status values of a Record.
const (
	StatusPassed  = "passed"
	StatusFailed  = "failed"
	StatusTimeout = "timeout"
	// StatusError: the harness could not test the sample (repository or
	// target missing); it counts as not passed.
	StatusError = "error"
)

// Record is the outcome of one sample.
type Record struct {
	TaskID string `json:"task_id"`
	Sample int    `json:"sample"`
	Method string `json:"method"`
	Model  string `json:"model"`
	Passed bool   `json:"passed"`
	// Status is one of the Status constants; Reason says why a sample did
	// not pass, in a few words.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Exit is the test's exit status (-1 when killed).
	Exit int `json:"exit"`
	// TestSeconds is the test run's wall time.
	TestSeconds float64 `json:"test_seconds"`
	// CodeSHA is the SHA-256 of the prediction's code, to tell a resumed run
	// that the predictions file changed.
	CodeSHA string `json:"code_sha"`
	// Mode is how the generation was read (function or body).
	Mode string `json:"mode,omitempty"`
	// Figures are the prediction's generation figures.
	predictions.Figures
	// Output is the end of the test's output for samples that did not pass.
	Output string `json:"output,omitempty"`
	// Twin, when set, says that this sample was not tested itself: its code
	// equals that of the sample named here (a sample of this folder, or of
	// another results folder relative to this one), whose outcome it took.
	Twin string `json:"twin,omitempty"`
}

// Key identifies a sample within a run (same as predictions.Prediction).
func (r *Record) Key() string {
	return strings.Join([]string{r.Method, r.Model, r.TaskID, strconv.Itoa(r.Sample)}, "\x00")
}

// Store is a results folder's sample file, open for appending.
type Store struct {
	mu   sync.Mutex
	app  *jsonl.Appender
	done map[string]Record
	// Cut is how many bytes of a torn last line were removed on opening.
	Cut int64
}

// Open opens (creating it if needed) the sample file in dir and loads the
// records already there. A record that cannot be read is an error naming
// its line: the folder was not written by this harness.
func Open(dir string) (*Store, error) {
	path := filepath.Join(dir, SamplesFile)
	app, cut, err := jsonl.OpenAppend(path)
	if err != nil {
		return nil, err
	}
	s := &Store{app: app, done: map[string]Record{}, Cut: cut}
	recs, err := Read(path)
	if err != nil {
		app.Close()
		return nil, err
	}
	for _, r := range recs {
		s.done[r.Key()] = r
	}
	return s, nil
}

// Read returns the records of a sample file; a later record of the same
// sample replaces an earlier one.
func Read(path string) ([]Record, error) {
	var out []Record
	index := map[string]int{}
	err := jsonl.Scan(path, func(line int, raw []byte) error {
		var r Record
		if err := json.Unmarshal(raw, &r); err != nil || r.TaskID == "" || r.Status == "" {
			return fmt.Errorf("%s:%d: not a sample record", path, line)
		}
		if i, ok := index[r.Key()]; ok {
			out[i] = r
			return nil
		}
		index[r.Key()] = len(out)
		out = append(out, r)
		return nil
	})
	return out, err
}

// Done returns the stored record for key.
func (s *Store) Done(key string) (Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.done[key]
	return r, ok
}

// Add appends r to the file (synced) and remembers it.
func (s *Store) Add(r Record) error {
	if err := s.app.Append(r); err != nil {
		return err
	}
	s.mu.Lock()
	s.done[r.Key()] = r
	s.mu.Unlock()
	return nil
}

// Records returns every stored record.
func (s *Store) Records() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Record, 0, len(s.done))
	for _, r := range s.done {
		out = append(out, r)
	}
	return out
}

// Close closes the file.
func (s *Store) Close() error { return s.app.Close() }
