package generate

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A resumed run appends: the last trace of a sample wins, in the order
// the samples first appear; keep chooses samples; a broken line is
// counted, not fatal; a missing file has no traces.
func TestLastTraces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.jsonl")
	lines := `{"task":"a","sample":0,"tokens":1}
{"task":"b","sample":0,"tokens":2}
not json
{"task":"a","sample":0,"tokens":3}
{"task":"a","sample":1,"tokens":4}
`
	os.WriteFile(path, []byte(lines), 0o644)
	trs, bad, err := LastTraces(path, nil)
	if err != nil || bad != 1 || len(trs) != 3 || trs[0].Task != "a" || trs[0].Tokens != 3 || trs[1].Task != "b" || trs[2].Tokens != 4 {
		t.Fatalf("traces %+v, unreadable %d, %v", trs, bad, err)
	}
	trs, _, _ = LastTraces(path, func(task string, sample int) bool { return sample == 1 })
	if len(trs) != 1 || trs[0].Tokens != 4 {
		t.Errorf("kept %+v", trs)
	}
	if trs, _, err := LastTraces(filepath.Join(t.TempDir(), "none.jsonl"), nil); err != nil || len(trs) != 0 {
		t.Errorf("missing file: %+v %v", trs, err)
	}
}

// A run folder whose traces were gzipped (as committed results keep them)
// reads the same as the plain file; the plain file wins when both are
// there; a gzipped file that is not gzip is an error naming it.
func TestTracesFileGzipped(t *testing.T) {
	dir := t.TempDir()
	if got := TracesFile(dir); got != filepath.Join(dir, TracesName) {
		t.Errorf("empty folder: %s", got)
	}
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(`{"task":"a","sample":0,"tokens":1}` + "\n" + `{"task":"a","sample":0,"tokens":5}` + "\n"))
	z.Close()
	gz := filepath.Join(dir, TracesName+".gz")
	os.WriteFile(gz, b.Bytes(), 0o644)
	if got := TracesFile(dir); got != gz {
		t.Fatalf("gzipped only: %s", got)
	}
	if trs, bad, err := LastTraces(TracesFile(dir), nil); err != nil || bad != 0 || len(trs) != 1 || trs[0].Tokens != 5 {
		t.Errorf("gzipped: %+v %d %v", trs, bad, err)
	}
	os.WriteFile(filepath.Join(dir, TracesName), []byte(`{"task":"b","sample":0,"tokens":2}`+"\n"), 0o644)
	if trs, _, err := LastTraces(TracesFile(dir), nil); err != nil || len(trs) != 1 || trs[0].Task != "b" {
		t.Errorf("plain beside gzipped: %+v %v", trs, err)
	}
	os.WriteFile(gz, []byte("plain text\n"), 0o644)
	if _, _, err := LastTraces(gz, nil); err == nil || !strings.Contains(err.Error(), gz) {
		t.Errorf("not gzip: %v", err)
	}
}
