package main

import (
	"bytes"
	"strings"
	"testing"
)

const events = `{"Action":"run","Package":"a","Test":"TestOK"}
{"Action":"pass","Package":"a","Test":"TestOK"}
{"Action":"run","Package":"a","Test":"TestSkip"}
{"Action":"output","Package":"a","Test":"TestSkip","Output":"=== RUN   TestSkip\n"}
{"Action":"output","Package":"a","Test":"TestSkip","Output":"    x_test.go:9: no model here\n"}
{"Action":"output","Package":"a","Test":"TestSkip","Output":"--- SKIP: TestSkip (0.00s)\n"}
{"Action":"skip","Package":"a","Test":"TestSkip"}
{"Action":"output","Package":"a","Output":"ok  \ta\t0.1s\n"}
{"Action":"pass","Package":"a"}
`

func TestReportListsSkips(t *testing.T) {
	var w bytes.Buffer
	if code := report(strings.NewReader(events), &w, false); code != 0 {
		t.Errorf("exit %d, want 0:\n%s", code, w.String())
	}
	if !strings.Contains(w.String(), "SKIP a TestSkip: x_test.go:9: no model here") || !strings.Contains(w.String(), "ok  \ta") {
		t.Errorf("report:\n%s", w.String())
	}
	w.Reset()
	if code := report(strings.NewReader(events), &w, true); code != 1 || !strings.Contains(w.String(), "FAIL: tests skipped") {
		t.Errorf("with -fail-on-skip: exit %d\n%s", code, w.String())
	}
}

func TestReportShowsFailures(t *testing.T) {
	in := `{"Action":"output","Package":"b","Test":"TestBad","Output":"    b_test.go:3: wrong answer\n"}
{"Action":"fail","Package":"b","Test":"TestBad"}
{"Action":"output","Package":"b","Output":"FAIL\tb\t0.2s\n"}
{"Action":"fail","Package":"b"}
`
	var w bytes.Buffer
	if code := report(strings.NewReader(in), &w, false); code != 1 || !strings.Contains(w.String(), "=== FAILED b TestBad\n    b_test.go:3: wrong answer") {
		t.Errorf("exit %d:\n%s", code, w.String())
	}
}
