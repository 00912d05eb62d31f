package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"actor/internal/natstest"
	"actor/internal/testsupport"
	"actor/predictions"
)

// TestRunOnQueue runs a benchmark on a real NATS JetStream server with
// three worker processes, kills one of them with SIGKILL mid-run, and
// checks that the merged predictions are a local run's with the same seed:
// every sample, once, with the same code. A fourth worker, whose task file
// differs from the run's, refuses its item, and the coordinator says why;
// so does a fifth, whose copy of the project differs.
func TestRunOnQueue(t *testing.T) {
	data, repos := runFixture(t)
	url := natstest.JetStream(t)
	const n = 8
	base := []string{"run", "--benchmark", "repoexec", "--data", data, "--repos", repos, "--method", "rawprompt",
		"--model", tinyModel, "--max-tokens", "48", "--threads", "1", "--no-eval", "--seed", "9", "-n", "8"}
	local, queued := filepath.Join(t.TempDir(), "local"), filepath.Join(t.TempDir(), "queued")
	if _, e, c := runActor(t, append(base, "--out", local)...); c != 0 {
		t.Fatal(e)
	}

	coord, coordErr := startActor(t, append(base, "--out", queued, "--queue", url)...)
	workerOn := func(data, repos string) []string {
		return []string{"worker", "--queue", url, "--data", data, "--repos", repos, "--model", tinyModel, "--threads", "1", "--ack-wait", "3s"}
	}
	worker := func(data string) []string { return workerOn(data, repos) }
	other := t.TempDir()
	tasks, _ := os.ReadFile(filepath.Join(data, "tasks.jsonl"))
	os.WriteFile(filepath.Join(other, "tasks.jsonl"), append(tasks, '\n'), 0o644)
	if _, e, c := runActor(t, worker(other)...); c == 0 || !strings.Contains(e, "differ from the run's: data SHA-256") {
		t.Fatalf("a worker with other task files: exit %d, %s", c, e)
	}
	// A worker whose copy of the project has a file more for retrieval.
	otherRepos := t.TempDir()
	if err := os.CopyFS(otherRepos, os.DirFS(repos)); err != nil {
		t.Fatal(err)
	}
	testsupport.WriteTree(t, otherRepos, map[string]string{"calc/tests/test_ops.py": "assert True\n"})
	if _, e, c := runActor(t, workerOn(data, otherRepos)...); c == 0 || !strings.Contains(e, "differ from the run's: test-apps/calc sources SHA-256") {
		t.Fatalf("a worker with other sources: exit %d, %s", c, e)
	}
	// Three workers, their logs in files the test reads while they run.
	logs := make([]string, 3)
	procs := make([]*os.Process, 3)
	for i := range procs {
		logs[i] = filepath.Join(t.TempDir(), "worker.log")
		procs[i] = startLogged(t, logs[i], worker(data)...)
	}
	// Kill the first worker seen generating an item it has not published.
	file := filepath.Join(queued, "predictions.jsonl")
	killed := -1
	for deadline := time.Now().Add(2 * time.Minute); killed < 0; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no worker took an item in time")
		}
		for i, l := range logs {
			b, _ := os.ReadFile(l)
			if strings.Count(string(b), "generating") > strings.Count(string(b), "published") {
				killed = i
				break
			}
		}
	}
	if err := procs[killed].Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killedAt := testsupport.CountLines(file)

	exited := make(chan error, 1)
	go func() { exited <- coord.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("coordinator: %v\n%s", err, coordErr)
		}
	case <-time.After(3 * time.Minute):
		coord.Process.Kill()
		t.Fatal("the coordinator did not finish")
	}
	log, _ := os.ReadFile(logs[killed])
	t.Logf("worker killed mid-item after %d of %d samples were stored:\n%s", killedAt, 2*n, log)
	if killedAt >= 2*n {
		t.Errorf("the run finished before the worker was killed")
	}
	if e := coordErr.String(); !strings.Contains(e, "refused item") || !strings.Contains(e, "data SHA-256") {
		t.Errorf("the coordinator did not report the refusal: %s", e)
	}
	a, _, _ := predictions.Read(filepath.Join(local, "predictions.jsonl"))
	b, bad, err := predictions.Read(file)
	if err != nil || len(bad) != 0 || len(b) != 2*n || len(a) != 2*n {
		t.Fatalf("%d predictions (%d locally), bad %v, %v", len(b), len(a), bad, err)
	}
	code := map[string]string{}
	for _, p := range a {
		code[p.Key()] = p.Code
	}
	for _, p := range b {
		if c, ok := code[p.Key()]; !ok || c != p.Code {
			t.Errorf("task %s sample %d: %q on the queue, %q locally", p.TaskID, p.Sample, p.Code, c)
		}
	}
}

// startLogged starts actor with args in a child process writing its
// stderr to the file log; the child is killed when the test ends.
func startLogged(t *testing.T, log string, args ...string) *os.Process {
	t.Helper()
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc, _ := json.Marshal(args)
	child := exec.Command(os.Args[0], "-test.run=^TestActorProcess$")
	child.Env = append(os.Environ(), "ACTOR_TEST_ARGS="+string(enc))
	child.Stderr = f
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	return child.Process
}
