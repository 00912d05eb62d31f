package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"actor/internal/atomicfile"
	"actor/queue"
	"actor/sources"
)

// runRecordFile names the record in a run folder of how each method's
// samples there were made. Predictions are keyed by method name, and one
// name can stand for different switches (--method actor with and without
// --exact), so without the record a run continued with other switches
// would mix two configurations under one name.
const runRecordFile = "run.json"

// runRecordVersion is the layout of run.json.
const runRecordVersion = 1

// runRecord is run.json: the spec of every method name in the folder.
type runRecord struct {
	Version int                   `json:"version"`
	Methods map[string]queue.Spec `json:"methods"`
}

// sampleSpec is the part of a spec that decides the samples: the probe's
// path, the block store's folder, the number of samples, batching, the
// decoder's cache count, full probe scores and tracing change where and
// how fast samples are made or what is kept of them, not the samples.
// Batching is counted with them: a batched sample draws from the same seed
// with the same logits as an unbatched one, so the methods' samples are
// equal, except ACToR's after a context change with block KV reuse, where
// a lane reuses only its own rows (generate.GenerateSamples): such a
// sample can differ as between machines. The experiments, which pair
// samples task by task, keep batched and unbatched folders apart
// (experiment.Settings.Lanes).
func sampleSpec(s queue.Spec) queue.Spec {
	m := &s.Method
	m.Probe, m.KVStore, m.Samples, m.BatchSamples, m.KVCaches, m.FullProbs = "", "", 0, false, 0, false
	s.Trace = false
	return s
}

// claimRunFolder checks spec against the record in out: a method name
// recorded with other settings, or with other sources for a project it
// runs, is refused, naming what differs; a new name, or a project the
// method has not run yet, is added (pinned from then on, samples or
// not). A folder with samples but no record (made before records)
// adopts spec for every method in it, with a note on w, since nothing
// tells what its samples were made with.
func claimRunFolder(out string, spec queue.Spec, hasSamples bool, w io.Writer) error {
	file := filepath.Join(out, runRecordFile)
	rec := runRecord{Version: runRecordVersion, Methods: map[string]queue.Spec{}}
	b, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if hasSamples {
			fmt.Fprintf(w, "actor: note: %s has samples but no %s (an older actor made them): recording this command's settings as theirs\n", out, runRecordFile)
		}
	case err != nil:
		return fmt.Errorf("run: %w", err)
	default:
		if err := json.Unmarshal(b, &rec); err != nil {
			return fmt.Errorf("run: %s: %v", file, err)
		}
		if rec.Version != runRecordVersion {
			return fmt.Errorf("run: %s: version %d, this actor reads %d", file, rec.Version, runRecordVersion)
		}
		if rec.Methods == nil {
			rec.Methods = map[string]queue.Spec{}
		}
	}
	want := sampleSpec(spec)
	if old, ok := rec.Methods[spec.MethodName]; ok {
		merged, added, moved := sources.Merge(old.Identity.Sources, want.Identity.Sources)
		oldRest, wantRest := old, want // sources compare project by project
		oldRest.Identity.Sources, wantRest.Identity.Sources = nil, nil
		diff := specDiff(oldRest, wantRest)
		for _, m := range moved {
			diff = append(diff, fmt.Sprintf("identity.sources.%s: %q → %q", m.Project, m.Recorded, m.Now))
		}
		if len(diff) > 0 {
			return fmt.Errorf("run: %s holds %s samples made otherwise (%s); give the same flags and the same project layout under --repos to continue, or another --out", out, spec.MethodName, strings.Join(diff, "; "))
		}
		if len(added) == 0 {
			return nil
		}
		if hasSamples && len(old.Identity.Sources) == 0 {
			fmt.Fprintf(w, "actor: note: %s records no sources for %s (an older actor made its samples): recording this command's as theirs\n", file, spec.MethodName)
		}
		want.Identity.Sources = merged
	}
	rec.Methods[spec.MethodName] = want
	b, err = json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(file, append(b, '\n'))
}

// specDiff names the fields where b differs from the recorded a, as
// "field: recorded → now" (none when they agree).
func specDiff(a, b queue.Spec) []string {
	fa, fb := flatJSON(a), flatJSON(b)
	var keys []string
	for k := range fa {
		keys = append(keys, k)
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var diff []string
	for _, k := range keys {
		if !reflect.DeepEqual(fa[k], fb[k]) {
			diff = append(diff, fmt.Sprintf("%s: %s → %s", k, show(fa[k]), show(fb[k])))
		}
	}
	return diff
}

// flatJSON is v's JSON as dotted paths to leaf values.
func flatJSON(v any) map[string]any {
	b, _ := json.Marshal(v)
	var tree any
	_ = json.Unmarshal(b, &tree)
	out := map[string]any{}
	var walk func(prefix string, x any)
	walk = func(prefix string, x any) {
		if m, ok := x.(map[string]any); ok {
			for k, v := range m {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, v)
			}
			return
		}
		out[prefix] = x
	}
	walk("", tree)
	return out
}

// show prints a leaf value of flatJSON ("(none)" when absent).
func show(x any) string {
	if x == nil {
		return "(none)"
	}
	b, _ := json.Marshal(x)
	return string(b)
}
