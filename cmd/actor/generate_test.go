package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"actor/internal/testsupport"
)

var tinyModel = testsupport.Path(testsupport.TinyModels + "/llama_gqa.gguf")

// TestActorProcess is not a test: runActor re-executes the test binary
// with ACTOR_TEST_ARGS set, and this function then runs the actor command
// line with those arguments, exiting as the real binary would.
func TestActorProcess(t *testing.T) {
	args, ok := os.LookupEnv("ACTOR_TEST_ARGS")
	if !ok {
		return
	}
	var list []string
	if err := json.Unmarshal([]byte(args), &list); err != nil {
		t.Fatal(err)
	}
	os.Args = append([]string{"actor"}, list...)
	os.Exit(execute(testEncoders()))
}

// runActor runs actor with args in a child process and returns its
// stdout, stderr and exit code.
func runActor(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestActorProcess$")
	enc, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "ACTOR_TEST_ARGS="+string(enc))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// writeFile writes text to a new temporary folder's file name.
func writeFile(t *testing.T, name, text string) string {
	return testsupport.WriteFile(t, t.TempDir(), name, text)
}

func readTrace(t *testing.T, path string) []traceLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []traceLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l traceLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("trace line %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	return lines
}

func TestGenerateTrace(t *testing.T) {
	prompt := writeFile(t, "p.txt", "def add(a, b):\n    return")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	out, errOut, code := runActor(t, "generate", "--model", tinyModel, "--prompt-file", prompt,
		"--max-tokens", "12", "--threads", "1", "--trace", trace)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := readTrace(t, trace)
	if len(lines) == 0 || len(lines) > 12 {
		t.Fatalf("%d trace lines", len(lines))
	}
	for i, l := range lines {
		if l.ID != l.Top1 || l.LogProb > 0 || l.Entropy <= 0 {
			t.Errorf("greedy step %d: %+v", i, l)
		}
	}
	if out == "" {
		t.Error("no text streamed")
	}
}

func TestGenerateSeeded(t *testing.T) {
	prompt := writeFile(t, "p.txt", "import os\n")
	run := func(seed string) string {
		out, errOut, code := runActor(t, "generate", "--model", tinyModel, "--prompt-file", prompt,
			"--max-tokens", "20", "--threads", "1", "--temperature", "0.9", "--top-p", "0.95", "--top-k", "40", "--seed", seed)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return out
	}
	if a, b := run("3"), run("3"); a != b {
		t.Errorf("same seed, different output: %q vs %q", a, b)
	}
}

func TestGenerateBadInput(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(tinyModel)
	if err != nil {
		t.Fatal(err)
	}
	bad := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	prompt := writeFile(t, "p.txt", "def f():\n")
	long := writeFile(t, "long.txt", strings.Repeat("x = 1\n", 200))
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"truncated", []string{"--model", bad("trunc.gguf", good[:len(good)/3])}, "truncated"},
		{"wrong magic", []string{"--model", bad("magic.gguf", append([]byte("XXXX"), good[4:]...))}, "magic"},
		{"not a model", []string{"--model", "no-such-model"}, "no-such-model"},
		{"missing prompt", []string{"--model", tinyModel, "--prompt-file", filepath.Join(dir, "none.txt")}, "none.txt"},
		{"prompt longer than context", []string{"--model", tinyModel, "--prompt-file", long, "--ctx", "32"}, "exceed the context of 32"},
		{"bad top-p", []string{"--model", tinyModel, "--top-p", "2"}, "top-p"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"generate", "--prompt-file", prompt, "--threads", "1"}, c.args...)
			_, errOut, code := runActor(t, args...)
			msg := strings.TrimSpace(errOut)
			if code == 0 || strings.Count(msg, "\n") != 0 || !strings.HasPrefix(msg, "actor: ") ||
				!strings.Contains(msg, c.want) || strings.Contains(msg, "panic") {
				t.Errorf("exit %d, stderr %q: want a non-zero exit and one line containing %q", code, errOut, c.want)
			}
		})
	}
}

// TestGenerateMatchesLlamaCpp runs actor generate greedily on the prompts
// of each real model's greedy fixture (SmolLM2-135M, Qwen2.5-Coder-0.5B)
// and compares the traced token ids with llama.cpp's. Skipped without the
// model unless ACTOR_REQUIRE_MODELS=1.
func TestGenerateMatchesLlamaCpp(t *testing.T) {
	for _, name := range testsupport.GreedyModels {
		t.Run(name, func(t *testing.T) {
			fx := testsupport.LoadGreedy(t, name)
			model := testsupport.Model(t, name)
			for ci, c := range fx.Cases {
				prompt := writeFile(t, "prompt.txt", c.Prompt)
				trace := filepath.Join(t.TempDir(), "trace.jsonl")
				_, errOut, code := runActor(t, "generate", "--model", model, "--prompt-file", prompt,
					"--max-tokens", strconv.Itoa(fx.NGenerated), "--threads", "1", "--trace", trace)
				if code != 0 {
					t.Fatalf("case %d: exit %d: %s", ci, code, errOut)
				}
				var got []int32
				for _, l := range readTrace(t, trace) {
					got = append(got, l.ID)
				}
				// generate stops at end-of-generation (traced); the recording does not
				stoppedAtEOS := len(got) > 0 && len(got) < fx.NGenerated && got[len(got)-1] == fx.EOS
				if len(got) > len(c.GeneratedIDs) || !slices.Equal(got, c.GeneratedIDs[:len(got)]) ||
					(len(got) < fx.NGenerated && !stoppedAtEOS) {
					t.Errorf("case %d: generated ids differ from llama.cpp\ngot  %v\nwant %v", ci, got, c.GeneratedIDs)
				}
			}
		})
	}
}
