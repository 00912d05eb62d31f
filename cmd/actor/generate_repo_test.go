package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/generate"
	"actor/gguf"
	"actor/internal/testsupport"
	"actor/probe"
	"actor/tokenizer"
)

// genRepo writes a small repository: the target app.py:run needs double.
func genRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("ACTOR_HOME", t.TempDir())
	return testsupport.WriteTree(t, t.TempDir(), map[string]string{
		"lib/math.py": "def double(x):\n    return 2 * x\n",
		"lib/text.py": "def shout(s):\n    return s.upper()\n",
		"app.py":      "def run(x):\n    \"\"\"Double x.\"\"\"\n    return double(x)\n",
	})
}

// constProbeFile writes a probe for tinyModel whose members all give
// sigmoid(gap) to every hidden state (gap > 0: always critical).
func constProbeFile(t *testing.T, gap float32, hidden int) string {
	t.Helper()
	f, err := gguf.Open(tinyModel)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	p := &probe.Probe{Model: probe.ModelInfo{Arch: "llama", Hidden: hidden, TokenizerHash: tok.Hash()}, Units: 2, Threshold: probe.DefaultThreshold}
	for range 3 {
		p.Members = append(p.Members, probe.Member{W1: make([]float32, 2*hidden), B1: make([]float32, 2),
			W2: make([]float32, 4), B2: []float32{0, gap}})
	}
	path := filepath.Join(t.TempDir(), "tiny.probe")
	if err := probe.Save(path, p); err != nil {
		t.Fatal(err)
	}
	return path
}

func readTraces(t *testing.T, path string) []generate.Trace {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []generate.Trace
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var tr generate.Trace
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		out = append(out, tr)
	}
	return out
}

// TestGenerateRepoACToR runs without an encoder model (ACTOR_HOME is empty),
// so retrieval falls back to BM25 whether or not the build has encoders.
func TestGenerateRepoACToR(t *testing.T) {
	repo := genRepo(t)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	out, errOut, code := runActor(t, "generate", "--model", tinyModel, "--repo", repo, "--target", "app.py:3",
		"--method", "actor", "--probe", constProbeFile(t, 10, 64), "--max-tokens", "8", "--temperature", "0", "--threads", "1",
		"--budget", "100", "--max-blocks", "1", "--trace", trace, "-n", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Count(out, "def run(x):\n    \"\"\"Double x.\"\"\"") != 2 || !strings.Contains(out, "# sample 1") {
		t.Errorf("stdout %q", out)
	}
	if !strings.Contains(errOut, "falls back to BM25 retrieval") || !strings.Contains(errOut, "--- actor+bm25:") ||
		!strings.Contains(errOut, "p(critical) [1.00 1.00 1.00]") {
		t.Errorf("stderr %q", errOut)
	}
	trs := readTraces(t, trace)
	if len(trs) != 2 || trs[0].Method != "actor+bm25" || trs[0].Triggers == 0 || trs[0].Model != tinyModel ||
		!strings.Contains(strings.Join(trs[0].Notes, " "), "BM25") {
		t.Fatalf("traces %+v", trs)
	}
	a := trs[0].Attempts[0]
	if a.Stage != "generate" || a.Blocks[0].Path == "app.py" || a.Events[0].Skip != "first" {
		t.Errorf("attempt %+v", a)
	}
}

// ACToR runs with its levers (stable layout, block and tail KV reuse, no
// judging in comments) and says so in the trace; --exact (ACToR without
// --method) runs none, and adds one given alone (the levers themselves are
// tested in package generate).
func TestGenerateRepoLevers(t *testing.T) {
	repo := genRepo(t)
	probe := constProbeFile(t, 10, 64)
	levers := []string{"stable layout", "block KV reuse", "tail KV reuse", "# comments are not judged"}
	for _, c := range []struct {
		name string
		args []string
		want []bool // per lever: named in the notes
	}{
		{"actor", []string{"--method", "actor"}, []bool{true, true, true, true}},
		{"exact", []string{"--exact"}, []bool{false, false, false, false}},
		{"exact with block reuse", []string{"--exact", "--kv-reuse", "--kv-reuse-check"}, []bool{false, true, false, false}},
	} {
		trace := filepath.Join(t.TempDir(), "trace.jsonl")
		args := append([]string{"generate", "--model", tinyModel, "--repo", repo, "--target", "app.py:3",
			"--probe", probe, "--max-tokens", "8", "--temperature", "0", "--threads", "1",
			"--budget", "100", "--trace", trace}, c.args...)
		_, errOut, code := runActor(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, errOut)
		}
		notes := strings.Join(readTraces(t, trace)[0].Notes, " | ")
		for i, l := range levers {
			if strings.Contains(notes, l) != c.want[i] {
				t.Errorf("%s: lever %q named %v, want %v (notes %q)", c.name, l, !c.want[i], c.want[i], notes)
			}
		}
	}
}

func TestGenerateRepoBaselinesAndTask(t *testing.T) {
	repo := genRepo(t)
	tasks := filepath.Join(t.TempDir(), "tasks.jsonl")
	os.WriteFile(tasks, []byte(`{"task_id": "7", "file_path": "app.py", "entry_point": "run"}`+"\n"), 0o644)
	for _, m := range []string{"rawprompt", "rawrag", "repocoder", "rlcoder"} {
		out, errOut, code := runActor(t, "generate", "--model", tinyModel, "--repo", repo, "--task", tasks,
			"--method", m, "--max-tokens", "6", "--threads", "1", "--budget", "100", "--max-blocks", "1", "--encoder", "none")
		if code != 0 || !strings.HasPrefix(out, "def run(x):") || !strings.Contains(errOut, "--- "+m) {
			t.Errorf("%s: exit %d\n%s\n%s", m, code, out, errOut)
		}
		if dense := m == "rawrag" || m == "rlcoder"; dense != strings.Contains(errOut, "WARNING: --encoder none; "+m+" falls back to BM25") {
			t.Errorf("%s: fallback warning %q", m, errOut)
		}
		if m == "rlcoder" && !strings.Contains(errOut, "RL-trained retriever weights") {
			t.Errorf("rlcoder does not name its missing weights: %q", errOut)
		}
	}
}

func TestGenerateRepoBadInput(t *testing.T) {
	repo := genRepo(t)
	probe := constProbeFile(t, 1, 64)
	other := constProbeFile(t, 1, 32)
	prompt := writeFile(t, "p.txt", "def f():\n")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no mode", []string{}, "give --prompt-file FILE, or --repo"},
		{"both modes", []string{"--prompt-file", prompt, "--repo", repo, "--target", "app.py:1"}, "cannot be combined"},
		{"target without line", []string{"--repo", repo, "--target", "app.py", "--method", "rawprompt"}, "want path.py:LINE"},
		{"missing file", []string{"--repo", repo, "--target", "none.py:1", "--method", "rawprompt"}, "none.py"},
		{"line outside a function", []string{"--repo", repo, "--target", "app.py:99", "--method", "rawprompt"}, "app.py"},
		{"no repo", []string{"--target", "app.py:1"}, "--repo is required"},
		{"unknown method", []string{"--repo", repo, "--target", "app.py:1", "--method", "magic"}, `--method "magic"`},
		{"no probe", []string{"--repo", repo, "--target", "app.py:1", "--method", "actor"}, "give --probe FILE"},
		{"probe of another model", []string{"--repo", repo, "--target", "app.py:1", "--method", "actor", "--probe", other}, other},
		{"exact for a baseline", []string{"--repo", repo, "--target", "app.py:1", "--method", "rawrag", "--exact"}, "--exact is the paper's ACToR"},
		{"zero samples", []string{"--repo", repo, "--target", "app.py:1", "--probe", probe, "-n", "0"}, "-n 0"},
		{"unknown layout", []string{"--repo", repo, "--target", "app.py:1", "--probe", probe, "--layout", "sorted"}, `--layout "sorted"`},
		{"unknown change rule", []string{"--repo", repo, "--target", "app.py:1", "--probe", probe, "--context-change", "any"}, `--context-change "any"`},
		{"block reuse of a baseline", []string{"--repo", repo, "--target", "app.py:1", "--method", "rawrag", "--kv-reuse"}, "are ACToR's"},
		{"exact reuse check without reuse", []string{"--repo", repo, "--target", "app.py:1", "--probe", probe, "--exact", "--kv-reuse-check"}, "give it too"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"generate", "--model", tinyModel, "--threads", "1"}, c.args...)
			_, errOut, code := runActor(t, args...)
			msg := strings.TrimSpace(errOut)
			if i := strings.LastIndex(msg, "\nactor: "); i >= 0 {
				msg = msg[i+1:] // warnings may come first; the error is the last line
			}
			if code == 0 || strings.Count(msg, "\n") != 0 || !strings.HasPrefix(msg, "actor: ") ||
				!strings.Contains(msg, c.want) || strings.Contains(msg, "panic") {
				t.Errorf("exit %d, stderr %q: want a non-zero exit and a last line containing %q", code, errOut, c.want)
			}
		})
	}
}

func TestBlockDiff(t *testing.T) {
	a, b, c := generate.Block{Path: "a.py", Start: 1, End: 5}, generate.Block{Path: "b.py", Start: 2, End: 9}, generate.Block{Path: "a.py", Start: 6, End: 8}
	for _, tc := range []struct {
		before, after []generate.Block
		want          string
	}{
		{[]generate.Block{a, b}, []generate.Block{b, a}, "same blocks, new order"},
		{[]generate.Block{a, b}, []generate.Block{a, c}, "+a.py:6-8 -b.py:2-9"},
		{nil, []generate.Block{a}, "+a.py:1-5"},
		{[]generate.Block{a, b}, []generate.Block{a}, "-b.py:2-9"},
	} {
		if got := blockDiff(tc.before, tc.after); got != tc.want {
			t.Errorf("blockDiff(%v, %v) = %q, want %q", tc.before, tc.after, got, tc.want)
		}
	}
}
