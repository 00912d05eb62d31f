package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"actor/internal/echomethod"
	"actor/predictions"
)

// A method registered and nothing else is offered by the CLI (its help
// and --method), the server (its method list and requests) and the
// experiments (Table I runs it beside the others).
func TestRegisteredMethodEverywhere(t *testing.T) {
	t.Setenv("ACTOR_TEST_ECHO_METHOD", "1")
	help, _, _ := runActor(t, "generate", "--help")
	if !strings.Contains(help, "echo       writes return None (a test method)") {
		t.Errorf("generate --help does not list the method:\n%s", help)
	}

	repo := genRepo(t)
	out, errOut, code := runActor(t, "generate", "--model", tinyModel, "--repo", repo, "--target", "app.py:1", "--method", "echo", "--threads", "1")
	if code != 0 || !strings.Contains(out, echomethod.Body) {
		t.Errorf("generate --method echo: exit %d\n%s\n%s", code, out, errOut)
	}

	url := startServer(t, "serve", "--model", tinyModel, "--repo", repo, "--addr", "127.0.0.1:0", "--method", "rawprompt", "--threads", "1")
	info := getJSON(t, url+"/v1/actor/info")
	if methods, _ := json.Marshal(info["methods"]); !strings.Contains(string(methods), `"echo"`) {
		t.Errorf("the server's methods %s lack echo", methods)
	}
	resp, err := http.Post(url+"/v1/actor/generate", "application/json",
		strings.NewReader(`{"repo":`+quoteJSON(filepath.Base(repo))+`,"file":"app.py","line":1,"method":"echo","max_tokens":4}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "# echo") {
		t.Errorf("server, method echo: %d %s", resp.StatusCode, body)
	}

	data, repos := runFixture(t)
	dir := filepath.Join(t.TempDir(), "out")
	args := []string{"experiment", "table1", "--benchmark", "repoexec", "--data", data, "--repos", repos, "--model", tinyModel,
		"-n", "1", "--out", dir, "--probe", constProbeFile(t, 10, 64), "--threads", "1", "--step", "2", "--only", "actor,echo",
		"--run-args", "--max-tokens 4 --budget 200 --max-blocks 2", "--bench-args", "--workers 1 --python python3"}
	if out, errOut, code := runActor(t, args...); code != 0 {
		t.Fatalf("experiment: exit %d\n%s\n%s", code, out, errOut)
	}
	preds, _, err := predictions.Read(filepath.Join(dir, "runs", "echo", "predictions.jsonl"))
	if err != nil || len(preds) != 2 || !strings.Contains(preds[0].Code, "# echo") {
		t.Errorf("experiment's echo run: %d predictions, %v", len(preds), err)
	}
	if rep, _ := os.ReadFile(filepath.Join(dir, "table1", "report.md")); !strings.Contains(string(rep), "| Echo |") {
		t.Errorf("Table I's report has no Echo row:\n%s", rep)
	}
}

// startServer starts actor with args (a serve command line) and returns
// the address it prints; the server is killed when the test ends.
func startServer(t *testing.T, args ...string) string {
	t.Helper()
	enc, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestActorProcess$")
	cmd.Env = append(os.Environ(), "ACTOR_TEST_ARGS="+string(enc))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	serving := regexp.MustCompile(`serving .* on (http://\S+)/`)
	var log []string
	for lines.Scan() {
		log = append(log, lines.Text())
		if m := serving.FindStringSubmatch(lines.Text()); m != nil {
			go io.Copy(io.Discard, stderr)
			return m[1]
		}
	}
	t.Fatalf("no address printed:\n%s", strings.Join(log, "\n"))
	return ""
}

// getJSON reads a JSON object from url.
func getJSON(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return v
}
