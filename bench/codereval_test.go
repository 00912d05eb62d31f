package bench

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"actor/dataset"
	"actor/predictions"
)

// TestCoderEvalFixture places candidates at file_path:lineno of a CoderEval
// project and runs the file (or its *_passk_validte.py twin).
func TestCoderEvalFixture(t *testing.T) {
	f := newCoderEvalFixture(t)
	var log bytes.Buffer
	out, err := Run(context.Background(), Config{Benchmark: dataset.CoderEval, Data: f.data, Repos: f.repos, Gold: true, Out: f.out, Log: &log})
	if err != nil || out.Groups[0].Passed != 2 {
		t.Fatalf("gold: %v %+v\n%s", err, out, log.String())
	}
	p := func(task string, sample int, code string) predictions.Prediction {
		return predictions.Prediction{TaskID: task, Sample: sample, Code: code, Method: "m"}
	}
	preds := writePredictions(t, t.TempDir(),
		p("c1", 0, "return x ** 3\n\ndef more():\n\tpass\n"),
		p("c1", 1, "return x * 2\n"),
		p("c2", 0, "def sq(x):\n    return x ** 2\n"),
		p("c2", 1, "def sq(x):\n    return x\n"),
	)
	out, err = Run(context.Background(), Config{Benchmark: dataset.CoderEval, Data: f.data, Repos: f.repos, Predictions: preds,
		Out: filepath.Join(t.TempDir(), "out"), Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	g := out.Groups[0]
	if g.Passed != 2 || g.Samples != 4 || g.Tasks[0].C != 1 || g.Tasks[1].C != 1 || out.Meta.Timeout != 30 {
		t.Fatalf("group %+v timeout %v\n%s", g, out.Meta.Timeout, log.String())
	}
	if !strings.Contains(log.String(), "task c1 sample 1 (m): failed: exit status 1: AssertionError") {
		t.Errorf("log:\n%s", log.String())
	}
}
