package runrecord

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
)

// File names the record in a run folder of how each method's samples
// there were made. Predictions are keyed by method name, and one name can
// stand for different switches (--method actor with and without --exact),
// so without the record a run continued with other switches would mix two
// configurations under one name.
const File = "run.json"

// recordVersion is the layout of run.json.
const recordVersion = 1

// Record is run.json: the record of every method name in the folder.
type Record struct {
	Version int              `json:"version"`
	Methods map[string]Entry `json:"methods"`
}

// Entry is one method name's record: the part of its spec that decides
// the samples (SampleSpec) and the lanes they were decoded in.
type Entry struct {
	Spec
	// Lanes is Lanes of the run; 0 in records written before it was
	// kept, which adopt the current lanes.
	Lanes int `json:"lanes,omitempty"`
}

// Lanes is how many samples of a task decode side by side: n with
// batching (actor run --batch-samples) when n > 1, else 1. It is the one
// rule for batching, kept by run.json and experiment.json alike: records
// are shared only at equal lanes, because a sample's tokens can depend on
// the samples beside it. ACToR's can after a context change with block KV
// reuse (a lane reuses only its own rows: generate.GenerateSamples), and
// until the engine ran batched steps three to a forward pass, four or more
// lanes rounded otherwise than one sample alone (Table I's batched folders
// hold such samples).
func Lanes(samples int, batch bool) int {
	if batch && samples > 1 {
		return samples
	}
	return 1
}

// SampleSpec is the part of a spec that decides the samples, given the
// lanes: the probe's path, the block store's folder, the number of
// samples, batching (kept as Entry.Lanes), the decoder's cache count,
// full probe scores and tracing change where and how fast samples are
// made or what is kept of them, not the samples. Of a resolved method
// (pipeline.Method.Resolved), --no-context is dropped too: it only chose
// which context switches Resolved set, and those are kept.
func SampleSpec(s Spec) Spec {
	m := &s.Method
	m.Probe, m.KVStore, m.Samples, m.BatchSamples, m.KVCaches, m.FullProbs = "", "", 0, false, 0, false
	m.NoContext = false
	s.Trace = false
	return s
}

// Claim checks spec against the record in the run folder out: a method
// name recorded with other settings, other lanes, or other sources for a
// project it runs, is refused, naming what differs; a new name, or a
// project the method has not run yet, is added (pinned from then on,
// samples or not). A folder with samples but no record (made before
// records) adopts spec for every method in it, with a note on w, since
// nothing tells what its samples were made with; so does a record
// without sources or lanes.
func Claim(out string, spec Spec, hasSamples bool, w io.Writer) error {
	file := filepath.Join(out, File)
	rec := Record{Version: recordVersion, Methods: map[string]Entry{}}
	b, err := os.ReadFile(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if hasSamples {
			fmt.Fprintf(w, "actor: note: %s has samples but no %s (an older actor made them): recording this command's settings as theirs\n", out, File)
		}
	case err != nil:
		return fmt.Errorf("run: %w", err)
	default:
		if err := json.Unmarshal(b, &rec); err != nil {
			return fmt.Errorf("run: %s: %v", file, err)
		}
		if rec.Version != recordVersion {
			return fmt.Errorf("run: %s: version %d, this actor reads %d", file, rec.Version, recordVersion)
		}
		if rec.Methods == nil {
			rec.Methods = map[string]Entry{}
		}
	}
	want := Entry{Spec: SampleSpec(spec), Lanes: Lanes(spec.Method.Samples, spec.Method.BatchSamples)}
	if old, ok := rec.Methods[spec.MethodName]; ok {
		merged, added, moved := MergeSources(old.Identity.Sources, want.Identity.Sources)
		// Records keep SampleSpec as it was when written: compare both
		// sides as it is now. Sources compare project by project.
		oldRest, wantRest := SampleSpec(old.Spec), want.Spec
		oldRest.Identity.Sources, wantRest.Identity.Sources = nil, nil
		diff := specDiff(oldRest, wantRest)
		if old.Lanes != 0 && old.Lanes != want.Lanes {
			diff = append(diff, fmt.Sprintf("lanes: %d → %d (samples decoded side by side: --batch-samples with another -n)", old.Lanes, want.Lanes))
		}
		for _, m := range moved {
			diff = append(diff, fmt.Sprintf("identity.sources.%s: %q → %q", m.Project, m.Recorded, m.Now))
		}
		if len(diff) > 0 {
			return fmt.Errorf("run: %s holds %s samples made otherwise (%s); give the same flags (and --no-context for a folder of the authors' prompts made before every method showed the default context) and the same project layout under --repos to continue, or another --out", out, spec.MethodName, strings.Join(diff, "; "))
		}
		if len(added) == 0 && old.Lanes != 0 {
			return nil
		}
		if hasSamples && len(added) > 0 && len(old.Identity.Sources) == 0 {
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
func specDiff(a, b Spec) []string {
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
