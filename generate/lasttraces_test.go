package generate

import (
	"os"
	"path/filepath"
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
