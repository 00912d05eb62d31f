package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"actor/internal/testsupport"
	"actor/predictions"
	"actor/probe/labelstore"
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

	file := filepath.Join(killed, "predictions.jsonl")
	killActor(t, file, 2, args(killed)...)
	got := testsupport.CountLines(file)
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
	if err != nil || len(bad) != 0 || testsupport.CountLines(file) != 2*n || len(b) != 2*n || len(a) != 2*n {
		t.Fatalf("%d lines, %d predictions (%d in one go), bad %v, %v", testsupport.CountLines(file), len(b), len(a), bad, err)
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

// killActor runs actor with args in a child process and kills it with
// SIGKILL as soon as file has at least lines lines.
func killActor(t *testing.T, file string, lines int, args ...string) {
	t.Helper()
	testsupport.KillWhen(t, actorCmd(args...), file, lines)
}

// startActor starts actor with args in a child process; its stderr goes
// to the returned buffer, to be read once it has exited.
func startActor(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	child := actorCmd(args...)
	var stderr bytes.Buffer
	child.Stderr = &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	return child, &stderr
}

// TestProbeLabelResumeAfterSIGKILL kills `actor probe label` with SIGKILL
// once a few functions are stored, tears the last line of every file as a
// kill in the middle of a write does, and runs the same command again: the
// functions stored before the kill stay as they were, none is labelled
// twice, and the finished directory is byte for byte an uninterrupted
// run's.
func TestProbeLabelResumeAfterSIGKILL(t *testing.T) {
	const n = 120
	data, repos := tinyFunctions(t, n)
	args := func(out string) []string {
		return []string{"probe", "label", "--model", tinyModel, "--data", data, "--out", out, "--threads", "1",
			"--repos", repos, "--encoder", "none", "--budget", "120", "--max-blocks", "2"}
	}
	whole, killed := filepath.Join(t.TempDir(), "whole"), filepath.Join(t.TempDir(), "killed")
	if _, e, c := runActor(t, args(whole)...); c != 0 {
		t.Fatal(e)
	}
	samples := filepath.Join(killed, labelstore.SamplesFile)
	killActor(t, samples, 3, args(killed)...)
	done := testsupport.CountLines(samples)
	if done >= n {
		t.Fatalf("labelling finished (%d functions) before it was killed", done)
	}
	t.Logf("killed after %d of %d functions", done, n)
	before := map[string][]byte{}
	for _, name := range []string{labelstore.SamplesFile, labelstore.TokensFile, labelstore.HiddenFile} {
		path := filepath.Join(killed, name)
		before[name], _ = os.ReadFile(path)
		fh, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		fh.WriteString(`{"id": "toy/`)
		fh.Close()
	}

	_, e, c := runActor(t, args(killed)...)
	if c != 0 || !strings.Contains(e, "cutting the incomplete tail") ||
		!strings.Contains(e, fmt.Sprintf("labelled %d functions", n-done)) || !strings.Contains(e, fmt.Sprintf("%d done before", done)) {
		t.Fatalf("resume after %d functions: code %d\n%s", done, c, e)
	}
	for _, name := range []string{labelstore.HeaderFile, labelstore.SamplesFile, labelstore.TokensFile, labelstore.HiddenFile} {
		got, _ := os.ReadFile(filepath.Join(killed, name))
		want, _ := os.ReadFile(filepath.Join(whole, name))
		if b, ok := before[name]; ok && (len(b) == 0 || !bytes.HasPrefix(got, b)) {
			t.Errorf("%s: what was stored before the kill changed", name)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from an uninterrupted run's (%d bytes, %d in one go)", name, len(got), len(want))
		}
	}
	set, err := labelstore.Open(killed, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	seen := map[string]bool{}
	for _, s := range set.Samples {
		if seen[s.ID] {
			t.Errorf("%s labelled twice", s.ID)
		}
		seen[s.ID] = true
	}
	if len(seen) != n {
		t.Errorf("%d functions labelled, want %d", len(seen), n)
	}
}

// actorCmd is actor with args as a child process (this test binary, run as
// TestActorProcess), not yet started.
func actorCmd(args ...string) *exec.Cmd {
	enc, _ := json.Marshal(args)
	child := exec.Command(os.Args[0], "-test.run=^TestActorProcess$")
	child.Env = append(os.Environ(), "ACTOR_TEST_ARGS="+string(enc))
	return child
}
