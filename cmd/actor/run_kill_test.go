package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"actor/bench/predictions"
)

// TestRunResumeAfterSIGKILL kills `actor run` with SIGKILL while it
// generates, leaves a torn last line as a kill in the middle of a write
// does, and runs the same command again: the predictions written before the
// kill stay as they were, none is generated twice, and the finished file
// holds the same samples as an uninterrupted run with the same seed.
func TestRunResumeAfterSIGKILL(t *testing.T) {
	data, repos := runFixture(t)
	const n = 12
	args := func(out string) []string {
		return []string{"run", "--benchmark", "repoexec", "--data", data, "--repos", repos, "--method", "rawprompt",
			"--model", tinyModel, "--max-tokens", "48", "--threads", "1", "--no-eval", "--seed", "9", "-n", "12", "--out", out}
	}
	whole, killed := filepath.Join(t.TempDir(), "whole"), filepath.Join(t.TempDir(), "killed")
	if _, e, c := runActor(t, args(whole)...); c != 0 {
		t.Fatal(e)
	}

	enc, _ := json.Marshal(args(killed))
	child := exec.Command(os.Args[0], "-test.run=^TestActorProcess$")
	child.Env = append(os.Environ(), "ACTOR_TEST_ARGS="+string(enc))
	var stderr bytes.Buffer
	child.Stderr = &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(killed, "predictions.jsonl")
	deadline := time.Now().Add(2 * time.Minute)
	for countLines(file) < 2 {
		if time.Now().After(deadline) {
			child.Process.Kill()
			t.Fatalf("nothing generated in time: %s", stderr.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := child.Wait(); err == nil {
		t.Fatal("the child was not killed")
	}
	got := countLines(file)
	if got >= 2*n {
		t.Fatalf("the run finished (%d predictions) before it was killed", got)
	}
	before, _ := os.ReadFile(file)
	fh, _ := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	fh.WriteString(`{"task_id": "2", "sample": 11, "co`)
	fh.Close()

	_, e, c := runActor(t, args(killed)...)
	if c != 0 {
		t.Fatalf("resume: %s", e)
	}
	after, _ := os.ReadFile(file)
	if !bytes.HasPrefix(after, before) {
		t.Fatal("predictions written before the kill changed")
	}
	a, _, _ := predictions.Read(filepath.Join(whole, "predictions.jsonl"))
	b, bad, err := predictions.Read(file)
	if err != nil || len(bad) != 0 || countLines(file) != 2*n || len(b) != 2*n || len(a) != 2*n {
		t.Fatalf("%d lines, %d predictions (%d in one go), bad %v, %v", countLines(file), len(b), len(a), bad, err)
	}
	code := map[string]string{}
	for _, p := range a {
		code[p.Key()] = p.Code
	}
	for _, p := range b {
		if code[p.Key()] != p.Code {
			t.Errorf("task %s sample %d: %q after the kill, %q in one go", p.TaskID, p.Sample, p.Code, code[p.Key()])
		}
	}
}

func countLines(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte("\n"))
}
