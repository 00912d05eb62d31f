package runrecord

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/pipeline"
)

// TestClaim: a method name keeps the settings its samples were
// made with; what does not change samples may differ; another name is
// added; a folder from before records adopts the first claim.
func TestClaim(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	def := pipeline.Method{Method: "actor", Samples: 1}
	spec := Spec{Benchmark: "repoexec", Model: "m", Method: def.Resolved(), MethodName: "actor",
		Identity: Identity{Model: "aa", Probe: "bb", Data: "cc"}}
	if err := Claim(dir, spec, false, &log); err != nil {
		t.Fatal(err)
	}
	if log.Len() != 0 {
		t.Errorf("a new folder got a note: %q", log.String())
	}
	if _, err := os.Stat(filepath.Join(dir, File)); err != nil {
		t.Fatal(err)
	}

	// Where and how fast samples are made does not matter, nor how many.
	same := spec
	same.Method.Probe, same.Method.Samples, same.Trace = "/elsewhere/p.probe", 5, true
	if err := Claim(dir, same, true, &log); err != nil {
		t.Errorf("same samples refused: %v", err)
	}
	// Nor whether the context came from ACToR's default or from the same
	// switches given with --no-context (a record may hold either).
	explicit := spec
	explicit.Method = pipeline.Method{Method: "actor", Samples: 1, NoContext: true, InFile: def.Resolved().InFile,
		Symbols: def.Resolved().Symbols, Format: def.Resolved().Format, IndentGuard: def.Resolved().IndentGuard}.Resolved()
	if err := Claim(dir, explicit, true, &log); err != nil {
		t.Errorf("the default context given as switches refused: %v", err)
	}
	bare := spec
	bare.Method = pipeline.Method{Method: "actor", Samples: 1, NoContext: true}.Resolved()
	if err := Claim(dir, bare, true, &log); err == nil || !strings.Contains(err.Error(), "method.InFile: true → (none)") {
		t.Errorf("no context over the default context: %v", err)
	}

	// Decoding them side by side does (the one rule for batching).
	batched := same
	batched.Method.BatchSamples = true
	if err := Claim(dir, batched, true, &log); err == nil || !strings.Contains(err.Error(), "lanes: 1 → 5") {
		t.Errorf("5 lanes over 1: %v", err)
	}
	batched.Method.Samples = 1 // one sample has one lane, batched or not
	if err := Claim(dir, batched, true, &log); err != nil {
		t.Errorf("a batch of one refused: %v", err)
	}

	// The paper's ACToR under the same name is refused, naming the switch.
	exact := spec
	exact.Method = pipeline.Method{Method: "actor", Exact: true, Samples: 1}.Resolved()
	err := Claim(dir, exact, true, &log)
	if err == nil || !strings.Contains(err.Error(), "method.Exact: false → true") || !strings.Contains(err.Error(), dir) {
		t.Errorf("exact over default: %v", err)
	}
	other := spec
	other.Identity.Probe = "dd"
	if err := Claim(dir, other, true, &log); err == nil || !strings.Contains(err.Error(), `identity.probe: "bb" → "dd"`) {
		t.Errorf("another probe: %v", err)
	}

	// Another method name is recorded beside it, then held to its own.
	exact.MethodName = "actor-exact"
	if err := Claim(dir, exact, true, &log); err != nil {
		t.Fatal(err)
	}
	if err := Claim(dir, spec, true, &log); err != nil {
		t.Errorf("first method refused after a second was added: %v", err)
	}
	if err := Claim(dir, other, true, &log); err == nil {
		t.Error("recorded method accepted another probe after a second method was added")
	}

	// An older folder: samples, no record.
	old := t.TempDir()
	log.Reset()
	if err := Claim(old, exact, true, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "no run.json") {
		t.Errorf("no note for an older folder: %q", log.String())
	}
	renamed := spec
	renamed.MethodName = exact.MethodName
	if err := Claim(old, renamed, true, &log); err == nil {
		t.Error("the adopted record did not hold")
	}
}

// TestClaimLanes: a record written before lanes were kept adopts the
// current lanes (and is rewritten with them), then holds them.
func TestClaimLanes(t *testing.T) {
	dir := t.TempDir()
	spec := Spec{MethodName: "rawrag", Method: pipeline.Method{Method: "rawrag", Samples: 5, BatchSamples: true}}
	old := `{"version": 1, "methods": {"rawrag": {"benchmark": "", "model": "", "method": {"Method": "rawrag"}, "method_name": "rawrag", "config": {}, "identity": {"model": "", "data": ""}}}}`
	if err := os.WriteFile(filepath.Join(dir, File), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if err := Claim(dir, spec, true, &log); err != nil {
		t.Fatalf("a record without lanes refused: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, File))
	if !strings.Contains(string(b), `"lanes": 5`) {
		t.Errorf("lanes not recorded:\n%s", b)
	}
	spec.Method.BatchSamples = false
	if err := Claim(dir, spec, true, &log); err == nil || !strings.Contains(err.Error(), "lanes: 5 → 1") {
		t.Errorf("1 lane over 5: %v", err)
	}
}

// TestClaimSources: a method's samples keep the sources of each
// project they retrieved from: a chunk of other projects is added, the
// same project with other sources (laid out without its tests/, say) is
// refused naming it, and a record from before sources were hashed adopts
// them with a note.
func TestClaimSources(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	spec := Spec{MethodName: "actor", Identity: Identity{Model: "aa", Data: "cc", Sources: map[string]string{"flutils": "f1"}}}
	if err := Claim(dir, spec, false, &log); err != nil {
		t.Fatal(err)
	}
	chunk := spec
	chunk.Identity.Sources = map[string]string{"pyMonet": "m1"}
	if err := Claim(dir, chunk, true, &log); err != nil {
		t.Fatalf("another project's chunk: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, File))
	if !strings.Contains(string(b), `"flutils": "f1"`) || !strings.Contains(string(b), `"pyMonet": "m1"`) {
		t.Errorf("record after two chunks:\n%s", b)
	}
	moved := spec
	moved.Identity.Sources = map[string]string{"pyMonet": "m1", "flutils": "f2"}
	err := Claim(dir, moved, true, &log)
	if err == nil || !strings.Contains(err.Error(), `identity.sources.flutils: "f1" → "f2"`) || strings.Contains(err.Error(), "pyMonet") {
		t.Errorf("other sources: %v", err)
	}
	if b2, _ := os.ReadFile(filepath.Join(dir, File)); !bytes.Equal(b, b2) {
		t.Error("a refused claim changed the record")
	}

	older := t.TempDir()
	bare := spec
	bare.Identity.Sources = nil
	if err := Claim(older, bare, false, &log); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if err := Claim(older, spec, true, &log); err != nil || !strings.Contains(log.String(), "records no sources for actor") {
		t.Errorf("a record without sources: %v, note %q", err, log.String())
	}
	if err := Claim(older, moved, true, &log); err == nil {
		t.Error("the adopted sources did not hold")
	}
}

// TestClaimBadRecord: a damaged or newer record is an error
// naming the file, and is left as it was.
func TestClaimBadRecord(t *testing.T) {
	spec := Spec{MethodName: "rawrag"}
	for name, body := range map[string]string{
		"corrupt": `{"version": 1, "methods": {`,
		"newer":   `{"version": 2, "methods": {}}`,
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, File)
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		err := Claim(dir, spec, true, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), file) {
			t.Errorf("%s: %v", name, err)
		}
		if b, _ := os.ReadFile(file); string(b) != body {
			t.Errorf("%s: record changed to %q", name, b)
		}
	}
}
