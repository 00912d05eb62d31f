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
	"syscall"
	"testing"
	"time"

	"actor/internal/testsupport"
)

// actor serve end to end: it serves on the address it prints, answers,
// and stops cleanly on SIGTERM.
func TestServeProcess(t *testing.T) {
	t.Setenv("ACTOR_HOME", t.TempDir())
	repo := testsupport.WriteTree(t, t.TempDir(), map[string]string{"app.py": "def run(x):\n    \"\"\"Double x.\"\"\"\n    return 2 * x\n"})
	args, _ := json.Marshal([]string{"serve", "--model", tinyModel, "--repo", repo, "--addr", "127.0.0.1:0", "--method", "rawprompt", "--threads", "1"})
	cmd := exec.Command(os.Args[0], "-test.run=^TestActorProcess$")
	cmd.Env = append(os.Environ(), "ACTOR_TEST_ARGS="+string(args))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	serving := regexp.MustCompile(`serving .* on (http://\S+)/`)
	var url string
	var log []string
	for url == "" && lines.Scan() {
		log = append(log, lines.Text())
		if m := serving.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("no address printed:\n%s", strings.Join(log, "\n"))
	}
	rest := make(chan string)
	go func() { b, _ := io.ReadAll(stderr); rest <- string(b) }()
	resp, err := http.Post(url+"/v1/actor/generate", "application/json", strings.NewReader(`{"repo":`+quoteJSON(filepath.Base(repo))+`,"file":"app.py","line":1,"max_tokens":4}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"method":"rawprompt"`) {
		t.Errorf("generate: %d %s", resp.StatusCode, body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		out := <-rest
		if err != nil || !strings.Contains(out, "server stopped") {
			t.Errorf("after SIGTERM: %v\n%s", err, out)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop within 30 s of SIGTERM")
	}
}

func quoteJSON(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestServeBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "give at least one --repo"},
		{[]string{"serve", "--repo", t.TempDir(), "--addr", "0.0.0.0:0"}, "--token"},
		{[]string{"serve", "--repo", t.TempDir(), "--addr", "8080"}, `--addr "8080"`},
		{[]string{"serve", "--repo", t.TempDir(), "--cursor-symbols", "0", "--cursor-blocks", "0"}, "not both 0"},
		{[]string{"serve", "--repo", t.TempDir(), "--cursor-blocks", "-1"}, "--cursor-blocks -1"},
	}
	for _, c := range cases {
		_, stderr, code := runActor(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", c.args, code, stderr, c.want)
		}
	}
}
