package jsonl

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAppendRepairScan(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.jsonl")
	a, cut, err := OpenAppend(p)
	if err != nil || cut != 0 {
		t.Fatal(err, cut)
	}
	for i := 0; i < 3; i++ {
		if err := a.Append(map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	// A kill in the middle of a write leaves a torn line.
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"i": 3, "tor`)
	f.Close()
	a, cut, err = OpenAppend(p)
	if err != nil || cut != int64(len(`{"i": 3, "tor`)) {
		t.Fatalf("cut %d, %v", cut, err)
	}
	a.Append(map[string]int{"i": 4})
	a.Close()
	var got []int
	err = Scan(p, func(line int, raw []byte) error {
		var v struct{ I int }
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		got = append(got, v.I)
		return nil
	})
	if err != nil || len(got) != 4 || got[3] != 4 {
		t.Fatalf("scan = %v, %v", got, err)
	}
	if err := Scan(filepath.Join(t.TempDir(), "absent"), nil); err != nil {
		t.Fatal(err)
	}
}

func TestRepairWithoutNewline(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(p, make([]byte, 100000), 0o644)
	a, cut, err := OpenAppend(p)
	if err != nil || cut != 100000 {
		t.Fatalf("cut %d, %v", cut, err)
	}
	a.Close()
	if st, _ := os.Stat(p); st.Size() != 0 {
		t.Fatalf("size %d", st.Size())
	}
}

// A file being appended to is refused to a second appender until the first
// closes it.
func TestAppendIsExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.jsonl")
	a, _, err := OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenAppend(path); err == nil || !strings.Contains(err.Error(), "another writer") || !strings.Contains(err.Error(), path) {
		t.Errorf("second appender: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, _, err := OpenAppend(path)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	b.Close()
}
