package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/internal/testsupport"
	"actor/predictions"
)

// runFixture is testsupport.CalcBenchmark with its own $ACTOR_HOME.
func runFixture(t *testing.T) (data, repos string) {
	t.Helper()
	t.Setenv("ACTOR_HOME", t.TempDir())
	return testsupport.CalcBenchmark(t)
}

func TestRunGeneratesResumesAndEvaluates(t *testing.T) {
	data, repos := runFixture(t)
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"run", "--benchmark", "repoexec", "--data", data, "--repos", repos, "--method", "repocoder",
		"-n", "2", "--model", tinyModel, "--max-tokens", "6", "--threads", "1", "--out", out, "--workers", "1", "--trace",
		"--budget", "200"}
	stdout, stderr, code := runActor(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	preds, bad, err := predictions.Read(filepath.Join(out, "predictions.jsonl"))
	if err != nil || len(bad) != 0 || len(preds) != 4 {
		t.Fatalf("predictions %d, bad %v, %v", len(preds), bad, err)
	}
	for _, p := range preds {
		if p.Method != "repocoder" || p.Model != "llama_gqa" || p.Tokens == 0 || p.Seconds <= 0 || p.MsPerToken <= 0 || p.GoldTokens == 0 {
			t.Errorf("prediction %+v", p)
		}
	}
	if n := len(readTraces(t, filepath.Join(out, "traces.jsonl"))); n != 4 {
		t.Errorf("%d traces", n)
	}
	if !strings.Contains(stdout, "repocoder llama_gqa: ") || !strings.Contains(stdout, "samples passed on 2 tasks") {
		t.Errorf("stdout %q", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "eval", "summary.md")); err != nil {
		t.Error(err)
	}
	if !strings.Contains(stderr, "4 to generate") || !strings.Contains(stderr, "ETA") {
		t.Errorf("progress %q", stderr)
	}
	// Again: nothing left to generate, the same predictions.
	_, stderr, code = runActor(t, args...)
	again, _, _ := predictions.Read(filepath.Join(out, "predictions.jsonl"))
	if code != 0 || !strings.Contains(stderr, "0 to generate, 4 already") || len(again) != 4 {
		t.Errorf("resume: exit %d, %d predictions, %q", code, len(again), stderr)
	}
	// Continued with another budget, the samples would mix two
	// configurations under one name: refused, nothing written.
	other := append(args[:len(args):len(args)], "--max-blocks", "3")
	_, stderr, code = runActor(t, other...)
	after, _, _ := predictions.Read(filepath.Join(out, "predictions.jsonl"))
	if code == 0 || !strings.Contains(stderr, "method.MaxBlocks") || len(after) != 4 {
		t.Errorf("other settings: exit %d, %d predictions, %q", code, len(after), stderr)
	}
	// Continued over other sources (the project laid out with its tests/),
	// retrieval would read other blocks: refused, naming the project.
	testsupport.WriteTree(t, repos, map[string]string{"calc/tests/test_ops.py": "from calc.ops import add\n\nassert add(1, 2) == 3\n"})
	_, stderr, code = runActor(t, args...)
	after, _, _ = predictions.Read(filepath.Join(out, "predictions.jsonl"))
	if code == 0 || !strings.Contains(stderr, "identity.sources.test-apps/calc") || len(after) != 4 {
		t.Errorf("other sources: exit %d, %d predictions, %q", code, len(after), stderr)
	}
}

func TestRunResumeReproducesSamples(t *testing.T) {
	data, repos := runFixture(t)
	base := []string{"run", "--benchmark", "repoexec", "--data", data, "--repos", repos, "--method", "rawprompt",
		"--model", tinyModel, "--max-tokens", "6", "--threads", "1", "--no-eval", "--seed", "5"}
	whole, part := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	if _, e, c := runActor(t, append(base, "--out", whole, "-n", "2")...); c != 0 {
		t.Fatal(e)
	}
	// A run stopped after one sample per task, then resumed to two.
	for _, n := range []string{"1", "2"} {
		if _, e, c := runActor(t, append(base, "--out", part, "-n", n)...); c != 0 {
			t.Fatal(e)
		}
	}
	a, _, _ := predictions.Read(filepath.Join(whole, "predictions.jsonl"))
	b, _, _ := predictions.Read(filepath.Join(part, "predictions.jsonl"))
	code := map[string]string{}
	for _, p := range a {
		code[p.Key()] = p.Code
	}
	if len(a) != 4 || len(b) != 4 {
		t.Fatalf("%d and %d predictions", len(a), len(b))
	}
	for _, p := range b {
		if code[p.Key()] != p.Code {
			t.Errorf("task %s sample %d: %q resumed, %q in one go", p.TaskID, p.Sample, p.Code, code[p.Key()])
		}
	}
	// A task's samples decoded as one batch are the same samples.
	batched := filepath.Join(t.TempDir(), "c")
	if _, e, c := runActor(t, append(base, "--out", batched, "-n", "2", "--batch-samples")...); c != 0 {
		t.Fatal(e)
	}
	bat, _, _ := predictions.Read(filepath.Join(batched, "predictions.jsonl"))
	if len(bat) != 4 {
		t.Fatalf("%d batched predictions", len(bat))
	}
	for _, p := range bat {
		if code[p.Key()] != p.Code {
			t.Errorf("task %s sample %d: %q batched, %q one by one", p.TaskID, p.Sample, p.Code, code[p.Key()])
		}
	}
}

func TestRunBadInput(t *testing.T) {
	data, repos := runFixture(t)
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"missing flags": {[]string{"--data", data}, "--benchmark, --data and --repos are required"},
		"unknown task":  {[]string{"--benchmark", "repoexec", "--data", data, "--repos", repos, "--task", "99"}, `no task "99"`},
		"bad benchmark": {[]string{"--benchmark", "humaneval", "--data", data, "--repos", repos}, "humaneval"},
		"no repository": {[]string{"--benchmark", "repoexec", "--data", data, "--repos", t.TempDir(), "--method", "rawprompt"}, "not found"},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"run", "--model", tinyModel, "--threads", "1"}, c.args...)
			_, errOut, code := runActor(t, args...)
			msg := strings.TrimSpace(errOut)
			if i := strings.LastIndex(msg, "\nactor: "); i >= 0 {
				msg = msg[i+1:]
			}
			if code == 0 || !strings.HasPrefix(msg, "actor: ") || !strings.Contains(msg, c.want) || strings.Contains(msg, "panic") {
				t.Errorf("exit %d, stderr %q: want an error containing %q", code, errOut, c.want)
			}
		})
	}
}

func TestRunACToRReportsOverhead(t *testing.T) {
	data, repos := runFixture(t)
	out := filepath.Join(t.TempDir(), "run")
	_, stderr, code := runActor(t, "run", "--benchmark", "repoexec", "--data", data, "--repos", repos, "--method", "actor",
		"--probe", constProbeFile(t, 10, 64), "--model", tinyModel, "--max-tokens", "6", "--threads", "1", "--out", out,
		"--no-eval", "--budget", "200", "--max-blocks", "2", "--no-context") // the tiny model's 256 positions hold no file code
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	preds, _, _ := predictions.Read(filepath.Join(out, "predictions.jsonl"))
	if len(preds) != 2 || preds[0].Method != "actor+bm25" || preds[0].Triggers == 0 {
		t.Fatalf("predictions %+v", preds)
	}
	if !strings.Contains(stderr, "over plain decoding") || !strings.Contains(stderr, "WARNING") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestRunEntropyTrigger(t *testing.T) {
	data, repos := runFixture(t)
	out := filepath.Join(t.TempDir(), "run")
	_, stderr, code := runActor(t, "run", "--benchmark", "repoexec", "--data", data, "--repos", repos, "--method", "actor",
		"--entropy-trigger", "0.001", "--model", tinyModel, "--max-tokens", "6", "--threads", "1", "--out", out,
		"--no-eval", "--trace", "--budget", "200", "--max-blocks", "2", "--no-context")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	preds, _, _ := predictions.Read(filepath.Join(out, "predictions.jsonl"))
	if len(preds) != 2 || preds[0].Method != "actor-entropy+bm25" || preds[0].Triggers == 0 {
		t.Fatalf("predictions %+v", preds)
	}
	if tr := readTraces(t, filepath.Join(out, "traces.jsonl")); len(tr) != 2 || !strings.Contains(strings.Join(tr[0].Notes, "; "), "entropy ≥ 0.001 nats") {
		t.Errorf("traces %+v", tr)
	}
	_, stderr, code = runActor(t, "run", "--benchmark", "repoexec", "--data", data, "--repos", repos, "--method", "rawrag",
		"--entropy-trigger", "1", "--model", tinyModel, "--out", out)
	if code == 0 || !strings.Contains(stderr, "--entropy-trigger is a threshold") {
		t.Errorf("entropy trigger for rawrag: exit %d, %q", code, stderr)
	}
}
