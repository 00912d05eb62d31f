package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"actor/engine"
	"actor/gguf"
	"actor/internal/testsupport"
	"actor/probe"
	"actor/probe/critical"
	"actor/probe/labeler"
	"actor/probe/labelstore"
	"actor/probe/trainset"
	"actor/tokenizer"
)

// tinyReference is the part of the engine's Hugging Face fixture the
// probe test needs (see engine/testdata/README.md).
type tinyReference struct {
	Vocab  int       `json:"vocab_size"`
	Hidden int       `json:"hidden_size"`
	Heads  int       `json:"n_heads"`
	N      int       `json:"n"`
	IDs    []int32   `json:"ids"`
	Logits []float32 `json:"logits"`
	HS     []float32 `json:"hidden"`
	Attn   []float32 `json:"attn_last"`
}

// Labelling through the engine on a tiny random Llama agrees with
// statistics computed independently from the Hugging Face reference:
// greedy id, entropy, log-probability and hidden state of the position
// before each target token, and influence from the head-averaged
// last-layer attention column.
func TestProbeLabelMatchesHFReference(t *testing.T) {
	b, err := os.ReadFile(testsupport.Fixture(t, testsupport.TinyModels+"/llama_gqa.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r tinyReference
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	m, err := engine.Load(tinyModel, engine.Options{Threads: 1, F32Cache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	tok, err := tokenizer.FromGGUF(m.GGUF())
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	P := r.N / 3
	prompt, target := r.IDs[:P], r.IDs[P:]
	var body strings.Builder
	for _, id := range target {
		body.WriteString(tok.Piece(id))
	}
	sc, err := engineScorer{s}.Score(prompt, target)
	if err != nil {
		t.Fatal(err)
	}
	rules := critical.DefaultRules()
	smp, toks, hidden, err := labeler.Label(trainset.Sample{ID: "tiny/0", Body: body.String()}, P, target, sc, tok, rules)
	if err != nil {
		t.Fatal(err)
	}
	if smp.Target != body.String() {
		t.Errorf("target text %q", smp.Target)
	}
	attn := func(q, k int) float32 { // head-averaged reference attention
		var s float64
		for h := range r.Heads {
			s += float64(r.Attn[(h*r.N+q)*r.N+k])
		}
		return float32(s / float64(r.Heads))
	}
	const tol = 2e-4
	var crit int
	for i, tk := range toks {
		pos := P - 1 + i
		g, h, lp, err := critical.Distribution(r.Logits[pos*r.Vocab:(pos+1)*r.Vocab], target[i])
		if err != nil {
			t.Fatal(err)
		}
		var col []float32
		for q := P + i + 1; q < r.N; q++ {
			col = append(col, attn(q, P+i))
		}
		inf := critical.Influence(col, rules.TopK, rules.Window)
		if tk.Greedy != g || math.Abs(tk.Entropy-h) > tol || math.Abs(tk.LogProb-lp) > tol || math.Abs(tk.Influence-inf) > tol {
			t.Errorf("token %d: greedy %d entropy %.5f logp %.5f influence %.5f; reference %d %.5f %.5f %.5f",
				i, tk.Greedy, tk.Entropy, tk.LogProb, tk.Influence, g, h, lp, inf)
		}
		for k, v := range hidden[i] {
			if math.Abs(float64(v-r.HS[pos*r.Hidden+k])) > tol {
				t.Fatalf("token %d hidden[%d] %v, reference %v", i, k, v, r.HS[pos*r.Hidden+k])
			}
		}
		ref := critical.Stats{TargetText: tok.Piece(target[i]), GreedyText: tok.Piece(g), Entropy: h, Influence: inf}
		near := math.Abs(h-rules.EntropyMin) < tol || math.Abs(inf-rules.InfluenceMin) < tol
		if !near && tk.Critical != rules.Critical(ref) {
			t.Errorf("token %d: critical %v, reference %v", i, tk.Critical, rules.Critical(ref))
		}
		if tk.Critical {
			crit++
		}
	}
	t.Logf("%d prompt + %d target tokens, %d critical", P, len(target), crit)
}

// tinyFunctions writes n toy functions, function i into REPOS/toy/m<i>.py,
// and as RepoST JSONL (and one without a body, which label skips unless
// --strict); it returns the JSONL file and REPOS.
func tinyFunctions(t *testing.T, n int) (data, repos string) {
	repos = t.TempDir()
	if err := os.MkdirAll(filepath.Join(repos, "toy"), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range n {
		fn := fmt.Sprintf("def f%d(x):\n    \"\"\"Return x plus %d.\"\"\"\n", i, i)
		body := fmt.Sprintf("    y = x + %d\n    return y * 2", i)
		file := fmt.Sprintf("m%d.py", i)
		row := map[string]any{"prompt": fn + body, "metadata": map[string]any{
			"task_id": fmt.Sprintf("toy/%d", i), "target_function_prompt": fn, "fpath_tuple": []string{"toy", file},
			"context_start_lineno": 0, "line_no": 2}}
		line, _ := json.Marshal(row)
		b.Write(append(line, '\n'))
		if err := os.WriteFile(filepath.Join(repos, "toy", file), []byte(fn+body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b.WriteString(`{"task_id": "toy/empty", "target_function_prompt": "def e():\n", "ground_truth": ""}` + "\n")
	return writeFile(t, "funcs.jsonl", b.String()), repos
}

// TestProbeLabelPrompts checks that labelling prompts are generation's:
// with --repos, the blocks retrieved for the function (never its own or
// later lines) before its path, signature and docstring, the final newline
// moved to the body; with --no-retrieval, the path, signature and docstring.
func TestProbeLabelPrompts(t *testing.T) {
	data, repos := tinyFunctions(t, 6)
	read := func(dir string) []labelstore.Sample {
		set, err := labelstore.Open(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer set.Close()
		return set.Samples
	}
	dir := filepath.Join(t.TempDir(), "labels")
	_, stderr, code := runActor(t, "probe", "label", "--model", tinyModel, "--data", data, "--out", dir, "--threads", "1",
		"--repos", repos, "--encoder", "none", "--budget", "120", "--max-blocks", "2")
	if code != 0 || !strings.Contains(stderr, "labelled 6 functions") {
		t.Fatalf("label: code %d\n%s", code, stderr)
	}
	samples := read(dir)
	for i, s := range samples {
		fn := fmt.Sprintf("def f%d(x):\n    \"\"\"Return x plus %d.\"\"\"\n", i, i)
		if s.Prefix != fn || !strings.HasPrefix(s.Target, "\n    y = x + ") {
			t.Errorf("function %d: prefix %q, target %q: want the signature and docstring, then the body from its newline", i, s.Prefix, s.Target)
		}
	}
	// The prompts themselves: rebuild function 3's as generation does.
	_, repoStderr, code := runActor(t, "probe", "label", "--model", tinyModel, "--data", data, "--out", filepath.Join(t.TempDir(), "x"),
		"--repos", repos, "--no-retrieval")
	if code == 0 || !strings.Contains(repoStderr, "exclude each other") {
		t.Errorf("--repos with --no-retrieval: code %d\n%s", code, repoStderr)
	}
	_, stderr, code = runActor(t, "probe", "label", "--model", tinyModel, "--data", data, "--out", filepath.Join(t.TempDir(), "y"))
	if code == 0 || !strings.Contains(stderr, "--repos DIR") {
		t.Errorf("no --repos: code %d\n%s", code, stderr)
	}
	stdout, stderr, code := runActor(t, "prompt", repos+"/toy", "--file", "m3.py", "--line", "1", "--model", tinyModel,
		"--method", "bm25", "--budget", "120", "--max-blocks", "2")
	if code != 0 {
		t.Fatalf("prompt: code %d\n%s", code, stderr)
	}
	if !strings.HasSuffix(stdout, "# file path: m3.py\n\ndef f3(x):\n    \"\"\"Return x plus 3.\"\"\"\n") || !strings.Contains(stdout, "# def f") ||
		strings.Contains(stdout, "# def f3(") {
		t.Errorf("prompt of f3: want other functions' blocks, then f3's signature and docstring:\n%s", stdout)
	}
	g, err := gguf.Open(tinyModel)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.FromGGUF(g)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tok.Encode(strings.TrimSuffix(stdout, "\n"), false)); samples[3].PromptTokens != n {
		t.Errorf("function 3 labelled after a prompt of %d tokens; actor prompt's (final newline healed) has %d", samples[3].PromptTokens, n)
	}
}

// The commands end to end on the tiny model: label (resumable), train,
// info, analyze (with the probe), and their errors on bad input.
func TestProbePipelineCLI(t *testing.T) {
	data, _ := tinyFunctions(t, 20)
	dir := filepath.Join(t.TempDir(), "labels")
	_, stderr, code := runActor(t, "probe", "label", "--model", tinyModel, "--data", data, "--out", dir, "--limit", "12", "--threads", "1", "--no-retrieval")
	if code != 0 || !strings.Contains(stderr, "labelled 12 functions") || !strings.Contains(stderr, "funcs.jsonl:21: task toy/empty: function without a body") {
		t.Fatalf("label: code %d\n%s", code, stderr)
	}
	_, stderr, code = runActor(t, "probe", "label", "--model", tinyModel, "--data", data, "--out", dir, "--threads", "1", "--no-retrieval")
	if code != 0 || !strings.Contains(stderr, "resuming") || !strings.Contains(stderr, "labelled 8 functions") || !strings.Contains(stderr, "12 done before") {
		t.Fatalf("resumed label: code %d\n%s", code, stderr)
	}
	_, stderr, code = runActor(t, "probe", "label", "--model", tinyModel, "--data", data, "--out", dir, "--strict", "--no-retrieval")
	if code != 1 || !strings.Contains(stderr, "funcs.jsonl:21: task toy/empty: function without a body") {
		t.Errorf("strict label: code %d\n%s", code, stderr)
	}
	// A random model is uncertain everywhere: split by attention influence
	// at its median so that both classes exist.
	set, err := labelstore.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var infl []float64
	for _, tk := range set.Tokens {
		infl = append(infl, tk.Influence)
	}
	model := set.Header.Model
	set.Close()
	slices.Sort(infl)
	median := fmt.Sprint(infl[len(infl)/2])
	probeFile := filepath.Join(t.TempDir(), "tiny.probe")
	stdout, stderr, code := runActor(t, "probe", "train", "--labels", dir, "--out", probeFile, "--no-mismatch", "--no-uncertainty",
		"--influence", median, "--epochs", "3", "--units", "16", "--target-rate", "0.08")
	if code != 0 || !strings.Contains(stdout, "ensemble (all > 0.") || !strings.Contains(stdout, "calibrated to flag 8.0 %") || !strings.Contains(stdout, "on 4 held-out functions") || !strings.Contains(stdout, "examples/s (d=64, 16 units)") {
		t.Fatalf("train: code %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, _, code = runActor(t, "probe", "info", probeFile)
	if code != 0 || !strings.Contains(stdout, "members 5 × Linear(64→16)") || !strings.Contains(stdout, `"best_epoch"`) || !strings.Contains(stdout, "calibrated to flag 8.0 %") {
		t.Errorf("info: code %d\n%s", code, stdout)
	}
	stdout, stderr, code = runActor(t, "probe", "rate", "--model", tinyModel, "--data", data, "--probe", probeFile,
		"--limit", "3", "--max-tokens", "12", "--threads", "1")
	if code != 0 || !strings.Contains(stdout, "3 functions, ") || !strings.Contains(stdout, "5 members") {
		t.Errorf("rate: code %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, _, code = runActor(t, "probe", "rate", "--model", tinyModel, "--data", data, "--probe", probeFile, "--exclude-labels", dir)
	if code != 0 || !strings.HasPrefix(stdout, "0 functions") {
		t.Errorf("rate without the labelled functions: code %d\n%s", code, stdout)
	}
	out := t.TempDir()
	stdout, stderr, code = runActor(t, "probe", "analyze", "--labels", dir, "--out", out, "--probe", probeFile)
	if code != 0 || !strings.Contains(stdout, "## Composition") || !strings.Contains(stdout, "## Probe") {
		t.Fatalf("analyze: code %d\n%s\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"analysis.md", "composition.png", "syntax_absolute.png", "syntax_relative.png"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}

	// Bad input: a probe for another model, a truncated label file, no
	// positives.
	other := *mustLoad(t, probeFile)
	other.Model = probe.ModelInfo{Arch: "qwen2", Hidden: 64, TokenizerHash: model.TokenizerHash}
	otherFile := filepath.Join(t.TempDir(), "other.probe")
	if err := probe.Save(otherFile, &other); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runActor(t, "probe", "analyze", "--labels", dir, "--out", out, "--probe", otherFile)
	if code != 1 || !strings.Contains(stderr, "other.probe: trained for qwen2 (hidden 64") {
		t.Errorf("probe for another model: code %d\n%s", code, stderr)
	}
	hid := filepath.Join(dir, labelstore.HiddenFile)
	fi, _ := os.Stat(hid)
	os.Truncate(hid, fi.Size()-10)
	_, stderr, code = runActor(t, "probe", "train", "--labels", dir, "--out", probeFile)
	if code != 1 || !strings.Contains(stderr, hid+": truncated") {
		t.Errorf("truncated labels: code %d\n%s", code, stderr)
	}
	_, stderr, code = runActor(t, "probe", "train", "--labels", filepath.Join(t.TempDir(), "none"), "--out", probeFile)
	if code != 1 || !strings.Contains(stderr, "labels.json: no such file") {
		t.Errorf("missing labels: code %d\n%s", code, stderr)
	}
}

func mustLoad(t *testing.T, path string) *probe.Probe {
	p, err := probe.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
