package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/predictions"
)

func TestStoreResume(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := Record{TaskID: "1", Sample: 0, Method: "m", Model: "x", Passed: true, Status: StatusPassed}
	if err := s.Add(r); err != nil {
		t.Fatal(err)
	}
	s.Close()
	f, _ := os.OpenFile(filepath.Join(dir, SamplesFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"task_id": "2", "sam`)
	f.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.Done(r.Key()); !ok || s.Cut != int64(len(`{"task_id": "2", "sam`)) || len(s.Records()) != 1 {
		t.Fatalf("done %v cut %d records %d", ok, s.Cut, len(s.Records()))
	}
	os.WriteFile(filepath.Join(t.TempDir(), "x"), nil, 0o644)
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, SamplesFile), []byte("{\"a\": 1}\n"), 0o644)
	if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), SamplesFile+":1: not a sample record") {
		t.Fatalf("foreign file: %v", err)
	}
}

func TestAggregateAndSummary(t *testing.T) {
	var recs []Record
	// Method a: 5 samples on tasks 1 and 2 (2 and 0 pass), task 3 has none.
	for i := 0; i < 5; i++ {
		recs = append(recs,
			Record{TaskID: "1", Sample: i, Method: "a", Passed: i < 2, Status: map[bool]string{true: StatusPassed, false: StatusFailed}[i < 2],
				Figures: predictions.Figures{Tokens: 10, GoldTokens: 5, MsPerToken: 20, Seconds: 2, Triggers: 1}},
			Record{TaskID: "2", Sample: i, Method: "a", Status: StatusTimeout, Reason: "timeout: killed after 2s",
				Figures: predictions.Figures{Tokens: 30, MsPerToken: 10, Seconds: 4}})
	}
	recs = append(recs, Record{TaskID: "1", Method: "gold", Passed: true, Status: StatusPassed},
		Record{TaskID: "2", Method: "gold", Status: StatusError, Reason: "repository missing"})
	groups := Aggregate(recs, []string{"1", "2", "3"})
	if len(groups) != 2 || groups[0].Method != "a" || groups[1].Method != "gold" {
		t.Fatalf("groups %+v", groups)
	}
	a := groups[0]
	// pass@1 = (2/5 + 0 + 0)/3; pass@3 = (0.9 + 0 + 0)/3; pass@5 = 1/3.
	want := map[int]float64{1: 0.4 / 3, 3: 0.9 / 3, 5: 1.0 / 3}
	for k, w := range want {
		if math.Abs(a.PassAt[k]-w) > 1e-12 {
			t.Errorf("pass@%d = %v, want %v", k, a.PassAt[k], w)
		}
	}
	if a.N != 5 || a.Samples != 10 || a.Passed != 2 || a.Timeouts != 5 || len(a.Missing) != 1 || a.Missing[0] != "3" {
		t.Errorf("group a = %+v", a)
	}
	if v, _ := a.MsPerToken.Value(); v != 15 {
		t.Errorf("ms/token %v", v)
	}
	if v, _ := a.GoldRatio.Value(); v != 2 {
		t.Errorf("gold ratio %v", v)
	}
	g := groups[1]
	if _, ok := g.PassAt[3]; ok || math.Abs(g.PassAt[1]-1.0/3) > 1e-12 || g.Errors != 1 {
		t.Errorf("gold group %+v", g)
	}
	dir := t.TempDir()
	m := Meta{Benchmark: "repoexec", Gold: false, Predictions: "p.jsonl", Tasks: []string{"1", "2", "3"}, InputErrors: []string{"p.jsonl:3: missing field code"}}
	if err := WriteSummary(dir, m, groups, recs); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, SummaryMD))
	for _, s := range []string{"| a |  | 3 | 5 | 10 | 2 | 5 | 0 | 13.33 | 30.00 | 33.33 |", "| gold |  | 3 | 1 | 2 | 1 | 0 | 1 | 33.33 | n/a | n/a |",
		"| a |  | 15.0 | 3.00 | 20.0 | 0.50 | 0.00 | 2.00 |", "p.jsonl:3: missing field code", "| gold |  | 2 | 0 | error | repository missing |",
		"a/: 1 tasks have fewer than 5 samples"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("summary.md lacks %q:\n%s", s, md)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(dir, SummaryCSV))
	for _, s := range []string{"a,,1,5,2,40.00,90.00,100.00\n", "a,,3,5,0,0.00,0.00,0.00\n", "a,,ALL,10,2,13.33,30.00,33.33\n", "gold,,2,1,0,0.00,n/a,n/a\n"} {
		if !strings.Contains(string(csv), s) {
			t.Errorf("summary.csv lacks %q:\n%s", s, csv)
		}
	}
	if err := WriteMeta(dir, m); err != nil {
		t.Fatal(err)
	}
	if back, err := ReadMeta(dir); err != nil || back.Benchmark != "repoexec" || len(back.Tasks) != 3 {
		t.Fatalf("meta %+v %v", back, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Fatalf("temporary files left: %v", ents)
	}
}
