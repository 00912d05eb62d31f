package predictions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/jsonl"
)

func TestWriteRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pred.jsonl")
	w, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	in := []Prediction{
		{TaskID: "0", Sample: 0, Code: "return 1", Method: "actor", Model: "m",
			Figures: Figures{Tokens: 12, MsPerToken: 20.5, Seconds: 1.5, Triggers: 2, ContextChanges: 1, GoldTokens: 10}},
		{TaskID: "0", Sample: 1, Code: "", Method: "actor", Model: "m"},
	}
	for _, x := range in {
		if err := w.Write(x); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(strings.Join([]string{
		`{"task_id": 5, "sample": 0, "code": "x"}`,
		`{"task_id": "5", "sample": 0, "code": "y"}`,
		`{"task_id": 5, "code": "x"}`,
		`{"task_id": "", "sample": 1, "code": "x"}`,
		`{"task_id": 1.5, "sample": 1, "code": "x"}`,
		`{"task_id": 1, "sample": 1}`,
		`{"task_id": 1, "sample": 1, "code": "x", "tokens": -1}`,
		`{"task_id": 1, "sample": 1, "code": "x"} {}`,
		`[1, 2]`,
	}, "\n") + "\n")
	f.Close()
	got, errs, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if in[0].Line, in[1].Line = 1, 2; len(got) != 3 || got[0] != in[0] || got[1] != in[1] || got[2].TaskID != "5" || got[2].Line != 3 {
		t.Fatalf("read %+v", got)
	}
	want := []string{
		":4: sample 0 of task 5 (, ) repeats line 3",
		":5: missing or negative field sample",
		":6: missing field task_id",
		":7: field task_id: 1.5 is neither a string nor an integer",
		":8: missing field code",
		":9: negative timing field",
		":10: more than one JSON value on the line",
		":11: not a valid predictions record",
	}
	if len(errs) != len(want) {
		t.Fatalf("errors %v", errs)
	}
	for i, e := range errs {
		var le *jsonl.RowError
		if !errors.As(e, &le) || !strings.HasPrefix(e.Error(), p+want[i]) {
			t.Errorf("error %d = %v, want prefix %s%s", i, e, p, want[i])
		}
	}
	done, _ := Done(p)
	if !done[in[1].Key()] || len(done) != 3 {
		t.Fatalf("done = %v", done)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"task_id": 5, "sample": 0, "code": "x", "method": "a", "ms_per_token": 1.5}`))
	f.Add([]byte(`{"task_id": "a\u0000", "sample": 3, "code": ""}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := Parse(raw)
		if err != nil {
			return
		}
		if p.TaskID == "" || p.Sample < 0 {
			t.Fatalf("accepted %+v", p)
		}
	})
}
