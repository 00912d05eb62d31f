package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"actor/engine"
	"actor/generate"
	"actor/internal/testsupport"
	"actor/pipeline"
	"actor/pysrc"
)

// qwen is Qwen2.5-Coder-0.5B with RawPrompt and no encoder, opened once
// for the package's tests (each test serves it anew).
var qwen struct {
	once sync.Once
	p    *pipeline.Pipeline
	err  error
}

// qwenServer serves the example repository with Qwen2.5-Coder-0.5B
// (cfg's other settings as given).
func qwenServer(t *testing.T, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	model := testsupport.Model(t, "qwen2.5-coder-0.5b")
	qwen.once.Do(func() {
		meth := pipeline.DefaultMethod()
		meth.Method, meth.Encoder = generate.MethodRawPrompt, "none"
		qwen.p, qwen.err = pipeline.Open(pipeline.Options{Model: model, Engine: engine.Options{Threads: 1}, Method: meth,
			Config: generate.DefaultConfig})
	})
	if qwen.err != nil {
		t.Fatal(qwen.err)
	}
	cfg.Repos = []string{exampleRepo(t)}
	return newServer(t, qwen.p, cfg)
}

// exampleRepo is examples/inventory.
func exampleRepo(t *testing.T) string {
	t.Helper()
	return testsupport.Fixture(t, "examples/inventory")
}

// editorRequest reads a recorded request of an editor plugin.
func editorRequest(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "editors", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decodeObject reads a JSON object, failing the test otherwise.
func decodeObject(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("answer %q: %v", b, err)
	}
	return m
}

// TestInfillEditorContracts answers the recorded requests of llama.vim
// and llama.vscode with the fields each reads, in the shape it parses.
func TestInfillEditorContracts(t *testing.T) {
	_, ts := qwenServer(t, Config{})
	vimFields := []string{"content", "timings/prompt_n", "timings/prompt_ms", "timings/prompt_per_token_ms",
		"timings/prompt_per_second", "timings/predicted_n", "timings/predicted_ms", "timings/predicted_per_token_ms",
		"timings/predicted_per_second", "truncated", "tokens_cached"}

	// llama.vim's ring update: the chunks alone, nothing to predict, no field asked.
	code, b := call(t, "POST", ts.URL+"/infill", editorRequest(t, "llama-vim-ring"))
	if code != 200 || strings.TrimSpace(string(b)) != "{}" {
		t.Errorf("llama.vim ring update: %d %s", code, b)
	}
	// llama.vim's completion: one line matching its quick check, every
	// field it names under its path.
	code, b = call(t, "POST", ts.URL+"/infill", editorRequest(t, "llama-vim-fim"))
	if code != 200 || bytes.Count(bytes.TrimSpace(b), []byte("\n")) != 0 || !regexp.MustCompile(`^\s*\{.*"content"\s*:"`).Match(b) {
		t.Fatalf("llama.vim completion: %d %s", code, b)
	}
	vim := decodeObject(t, b)
	if len(vim) != len(vimFields) {
		t.Errorf("llama.vim answer has %d fields, asked %d: %s", len(vim), len(vimFields), b)
	}
	for _, f := range vimFields {
		var ok bool
		switch f {
		case "content":
			_, ok = vim[f].(string)
		case "truncated":
			_, ok = vim[f].(bool)
		default:
			_, ok = vim[f].(float64)
		}
		if !ok {
			t.Errorf("llama.vim reads %s: %v", f, vim[f])
		}
	}

	// llama.vscode: the preparing request, then a completion.
	code, b = call(t, "POST", ts.URL+"/infill", editorRequest(t, "llama-vscode-prepare"))
	if prep := decodeObject(t, b); code != 200 || prep["content"] != "" {
		t.Errorf("llama.vscode prepare: %d %s", code, b)
	}
	code, b = call(t, "POST", ts.URL+"/infill", editorRequest(t, "llama-vscode-fim"))
	vsc := decodeObject(t, b)
	if _, ok := vsc["content"].(string); code != 200 || !ok {
		t.Fatalf("llama.vscode completion: %d %s", code, b)
	}
	if gs, ok := vsc["generation_settings"].(map[string]any); !ok || gs["n_ctx"] != float64(4096) {
		t.Errorf("llama.vscode reads generation_settings.n_ctx: %v", vsc["generation_settings"])
	}
	tm, _ := vsc["timings"].(map[string]any)
	for _, f := range []string{"prompt_n", "prompt_ms", "prompt_per_second", "predicted_n", "predicted_ms", "predicted_per_second"} {
		if _, ok := tm[f].(float64); !ok {
			t.Errorf("llama.vscode reads timings.%s: %v", f, tm[f])
		}
	}
	if _, ok := vsc["tokens_cached"].(float64); !ok || vsc["truncated"] != false {
		t.Errorf("llama.vscode reads tokens_cached and truncated: %v %v", vsc["tokens_cached"], vsc["truncated"])
	}
}

// TestInfillHealthAndProps answers what the plugins and llama.cpp's
// clients probe.
func TestInfillHealthAndProps(t *testing.T) {
	_, ts := qwenServer(t, Config{})
	if code, b := call(t, "GET", ts.URL+"/health", ""); code != 200 || decodeObject(t, b)["status"] != "ok" {
		t.Errorf("health: %d %s", code, b)
	}
	code, b := call(t, "GET", ts.URL+"/props", "")
	if gs, _ := decodeObject(t, b)["default_generation_settings"].(map[string]any); code != 200 || gs["n_ctx"] != float64(4096) {
		t.Errorf("props: %d %s", code, b)
	}
}

// TestInfillBadBodies answers bad requests 4xx with the server's JSON
// errors.
func TestInfillBadBodies(t *testing.T) {
	_, ts := qwenServer(t, Config{})
	for _, c := range []struct {
		body string
		code int
		msg  string
	}{
		{`{"input_prefix":`, 400, "invalid JSON"},
		{`{"input_prefix":5}`, 400, "input_prefix"},
		{`{"input_extra":{"text":"x"}}`, 400, "input_extra"},
		{`{"input_extra":[{"text":"x","filename":"a\nb"}]}`, 400, "filename"},
		{`{"n_predict":-2}`, 400, "n_predict"},
		{`{"top_p":1.5}`, 400, "top_p"},
		{`{"top_k":-1}`, 400, "top_k"},
		{`{"n_indent":-1}`, 400, "n_indent"},
		{`{"samplers":["top_k","nucleus"]}`, 400, "nucleus"},
		{`{"n_cmpl":0}`, 400, "n_cmpl"},
		{`{"n_probs":-1}`, 400, "n_probs"},
		{`{"n_probs":101}`, 400, "n_probs"},
		{`{"model":"other"}`, 404, "other"},
		{`{"input_prefix":"` + strings.Repeat("x", DefaultMaxBody) + `"}`, 413, "over"},
	} {
		code, b := call(t, "POST", ts.URL+"/infill", c.body)
		var e errorBody
		if err := json.Unmarshal(b, &e); code != c.code || err != nil || !strings.Contains(e.Error.Message, c.msg) {
			t.Errorf("%.60s: %d %s, want %d naming %q", c.body, code, b, c.code, c.msg)
		}
	}
}

// TestInfillNoFIM: a model without fill-in-the-middle tokens answers 501.
func TestInfillNoFIM(t *testing.T) {
	p, repo := openTiny(t, 10)
	_, ts := newServer(t, p, Config{Repos: []string{repo}})
	code, b := call(t, "POST", ts.URL+"/infill", `{"input_prefix":"def f():\n","input_suffix":""}`)
	if code != 501 || !strings.Contains(string(b), "fill-in-the-middle") {
		t.Errorf("%d %s", code, b)
	}
}

// TestInfillStream streams the same completion as a whole answer: pieces
// with stop false, then the result with stop true and the timings, no
// [DONE].
func TestInfillStream(t *testing.T) {
	_, ts := qwenServer(t, Config{})
	req := `{"input_prefix":"def area(width, height):\n","prompt":"    return ","input_suffix":"\n\nprint(area(2, 3))\n",` +
		`"n_predict":12,"temperature":0,"samplers":["temperature"]%s}`
	code, b := call(t, "POST", ts.URL+"/infill", strings.Replace(req, "%s", "", 1))
	whole := decodeObject(t, b)
	if code != 200 || whole["content"] == "" || whole["stop"] != true {
		t.Fatalf("whole: %d %s", code, b)
	}
	resp, err := http.Post(ts.URL+"/infill", "application/json", strings.NewReader(strings.Replace(req, "%s", `,"stream":true`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	evs, done := events(t, resp.Body)
	var text strings.Builder
	for _, ev := range evs[:len(evs)-1] {
		if ev["stop"] != false {
			t.Errorf("piece with stop %v", ev["stop"])
		}
		text.WriteString(ev["content"].(string))
	}
	last := evs[len(evs)-1]
	if done || last["stop"] != true || last["timings"] == nil || text.String() != whole["content"] {
		t.Errorf("stream %q (done %v, last %v), whole %q", text.String(), done, last, whole["content"])
	}
}

// TestInfillProbs: with n_probs a greedy completion reports, for each
// token written, its log-probability and the likeliest tokens in its
// place, the written one first (greedy), the rest in falling order; a
// stream sends each token's entry once.
func TestInfillProbs(t *testing.T) {
	_, ts := qwenServer(t, Config{})
	req := `{"input_prefix":"def area(width, height):\n","prompt":"    return ","input_suffix":"\n\nprint(area(2, 3))\n",` +
		`"n_predict":8,"temperature":0,"samplers":["temperature"],"n_probs":3%s}`
	code, b := call(t, "POST", ts.URL+"/infill", strings.Replace(req, "%s", "", 1))
	var whole struct {
		Content string      `json:"content"`
		Tokens  []int32     `json:"tokens"`
		Probs   []tokenProb `json:"completion_probabilities"`
	}
	if err := json.Unmarshal(b, &whole); code != 200 || err != nil || len(whole.Tokens) == 0 || len(whole.Probs) != len(whole.Tokens) {
		t.Fatalf("%d %s", code, b)
	}
	var text strings.Builder
	for i, p := range whole.Probs {
		text.WriteString(p.Token)
		if p.ID != whole.Tokens[i] || len(p.Top) != 3 || p.Top[0].ID != p.ID || p.Top[0].LogProb != p.LogProb || p.LogProb > 0 {
			t.Errorf("token %d: %+v", i, p)
		}
		if p.Top[1].LogProb > p.Top[0].LogProb || p.Top[2].LogProb > p.Top[1].LogProb || !sameBytes(p.Bytes, p.Token) {
			t.Errorf("token %d's alternatives: %+v", i, p.Top)
		}
	}
	if !strings.HasPrefix(text.String(), whole.Content) {
		t.Errorf("the tokens' texts %q do not start with the content %q", text.String(), whole.Content)
	}
	resp, err := http.Post(ts.URL+"/infill", "application/json", strings.NewReader(strings.Replace(req, "%s", `,"stream":true`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	evs, _ := events(t, resp.Body)
	streamed := 0
	for _, ev := range evs[:len(evs)-1] {
		ps, _ := ev["completion_probabilities"].([]any)
		streamed += len(ps)
	}
	if streamed != len(whole.Probs) {
		t.Errorf("the stream sent %d tokens' probabilities, the whole answer %d", streamed, len(whole.Probs))
	}
}

// sameBytes reports whether an answer's bytes are the text's.
func sameBytes(b []int, text string) bool {
	if len(b) != len(text) {
		return false
	}
	for i := range b {
		if b[i] != int(text[i]) {
			return false
		}
	}
	return true
}

// TestInfillPromptCache: with reuse, a request that differs from the
// previous one by text deleted at the cursor computes only the last
// token: the text after the cursor moved and is placed, and the answer
// says so. Text typed stops the reuse (llama.cpp's rule): the text after
// the cursor is computed, as it is after a deletion without reuse.
func TestInfillPromptCache(t *testing.T) {
	suffix := "\n" + strings.Repeat("    x = compute(x)\n", 12) + "    return x\n"
	req := func(middle string) string {
		b, _ := json.Marshal(map[string]any{"input_prefix": "def run(x):\n", "prompt": middle, "input_suffix": suffix,
			"n_predict": 1, "temperature": 0, "samplers": []string{"temperature"}})
		return string(b)
	}
	for _, c := range []struct {
		reuse         int
		before, after string
		placed        bool
	}{
		{16, "    x = x + 1", "    x = x", true},
		{16, "    x = x", "    x = x + 1", false},
		{0, "    x = x + 1", "    x = x", false},
	} {
		s, ts := qwenServer(t, Config{CacheReuse: c.reuse})
		call(t, "POST", ts.URL+"/infill", req(c.before))
		c0 := computed(s)
		code, b := call(t, "POST", ts.URL+"/infill", req(c.after))
		ans := decodeObject(t, b)
		tm := ans["timings"].(map[string]any)
		cached, fresh := int(tm["cache_n"].(float64)), int(tm["prompt_n"].(float64))
		total := int(ans["tokens_evaluated"].(float64))
		if code != 200 || cached+fresh != total || computed(s)-c0 != fresh {
			t.Fatalf("%+v: %d cached + %d computed of %d, the sessions computed %d", c, cached, fresh, total, computed(s)-c0)
		}
		if c.placed && fresh != 1 || !c.placed && fresh < 60 {
			t.Errorf("%+v: %d of %d prompt tokens computed", c, fresh, total)
		}
	}
	// A chunk the editor adds before the others' end (llama.vim's ring)
	// is computed; with reuse the cursor's file after it is placed (all
	// but its file separator).
	extra := func(chunks ...string) string {
		var cs []map[string]string
		for i, c := range chunks {
			cs = append(cs, map[string]string{"filename": fmt.Sprintf("lib%d.py", i), "text": c})
		}
		var r map[string]any
		json.Unmarshal([]byte(req("    x = ")), &r)
		r["input_extra"] = cs
		b, _ := json.Marshal(r)
		return string(b)
	}
	for _, reuse := range []int{16, 0} {
		s, ts := qwenServer(t, Config{CacheReuse: reuse})
		call(t, "POST", ts.URL+"/infill", extra("def compute(x):\n    return x * 2\n"))
		c0 := computed(s)
		_, b := call(t, "POST", ts.URL+"/infill", extra("def compute(x):\n    return x * 2\n", "def other(y):\n    return y - 1\n"))
		tm := decodeObject(t, b)["timings"].(map[string]any)
		fresh := int(tm["prompt_n"].(float64))
		if computed(s)-c0 != fresh || reuse > 0 && fresh > 25 || reuse == 0 && fresh < 100 {
			t.Errorf("a chunk added, reuse %d: %d prompt tokens computed (the sessions %d), %v cached", reuse, fresh, computed(s)-c0, tm["cache_n"])
		}
	}
	// With the cursor line's text last, typing only extends the prompt:
	// without reuse the text after the cursor stays cached.
	s, ts := qwenServer(t, Config{CursorLineLast: true})
	call(t, "POST", ts.URL+"/infill", req("    x = "))
	c0 := computed(s)
	_, b := call(t, "POST", ts.URL+"/infill", req("    x = x + 1"))
	if tm := decodeObject(t, b)["timings"].(map[string]any); tm["prompt_n"].(float64) > 6 || float64(computed(s)-c0) != tm["prompt_n"] {
		t.Errorf("line last: %v prompt tokens computed (the sessions %d)", tm["prompt_n"], computed(s)-c0)
	}
	// Two prompts in turn (a completion and the plugin's request for what
	// follows it) each keep their cache.
	s, ts = qwenServer(t, Config{})
	other := strings.Replace(req("    x = "), "def run(x)", "class Other:\n    pass\n\n\ndef later(y)", 1)
	call(t, "POST", ts.URL+"/infill", req("    x = "))
	call(t, "POST", ts.URL+"/infill", other)
	c0 = computed(s)
	_, b = call(t, "POST", ts.URL+"/infill", req("    x = "))
	if tm := decodeObject(t, b)["timings"].(map[string]any); tm["prompt_n"] != float64(1) || computed(s)-c0 != 1 {
		t.Errorf("back to the first prompt: %v computed (the sessions %d), %v cached", tm["prompt_n"], computed(s)-c0, tm["cache_n"])
	}
}

// TestInfillCutsAsLlamaCpp: the text around the cursor is cut as
// llama.cpp's server cuts it with its default n_batch of 2048: the last
// 1536 tokens above the cursor, and below it 512 less two less the
// cursor line's tokens.
func TestInfillCutsAsLlamaCpp(t *testing.T) {
	s, _ := qwenServer(t, Config{})
	long := strings.Repeat("    total += values[i] * weights[i]\n", 400)
	off := false
	j, e := s.parseInfill(&infillRequest{InputPrefix: long, Prompt: "    total", InputSuffix: long, Context: &off})
	if e != nil {
		t.Fatal(e.Message)
	}
	p, _, err := s.infillPrompt(j)
	if err != nil {
		t.Fatal(err)
	}
	fim, middle := s.p.Tok.FIM(), len(s.p.Tok.Encode("    total", false))
	pre, suf, mid := slices.Index(p.IDs, fim.Prefix), slices.Index(p.IDs, fim.Suffix), slices.Index(p.IDs, fim.Middle)
	if above, below := suf-pre-1-middle, mid-suf-1; above != 1536 || below != 512-2-middle || !p.Truncated {
		t.Errorf("%d tokens above the cursor, %d below (truncated %v): want 1536 and %d", above, below, p.Truncated, 512-2-middle)
	}
}

// computed counts the tokens the server's completion sessions computed.
func computed(s *Server) int {
	n := 0
	for _, x := range s.caches.sess {
		n += x.Computed()
	}
	return n
}

// TestInfillRepositoryContext: llama.vim's request, which names no file,
// is found in the served repository and laid out in its repository
// format with the definitions in scope and retrieved blocks; with
// context false the prompt is llama.cpp's.
func TestInfillRepositoryContext(t *testing.T) {
	_, ts := qwenServer(t, Config{CursorAlways: true})
	var req map[string]any
	json.Unmarshal([]byte(editorRequest(t, "llama-vim-fim")), &req)
	req["response_fields"], req["n_predict"] = nil, 0
	body, _ := json.Marshal(req)
	code, b := call(t, "POST", ts.URL+"/infill", string(body))
	ans := decodeObject(t, b)
	prompt, _ := ans["prompt"].(string)
	sources := map[string]bool{}
	for _, c := range ans["context"].([]any) {
		sources[c.(map[string]any)["source"].(string)] = true
	}
	if code != 200 || !strings.HasPrefix(prompt, "<|repo_name|>inventory\n<|file_sep|>inventory/money.py\n") ||
		!strings.Contains(prompt, "<|file_sep|>inventory/report.py\n<|fim_prefix|>") || !sources["editor"] || !sources["symbol"] ||
		!strings.Contains(prompt, "class Item:") {
		t.Errorf("%d, sources %v, prompt %q", code, sources, prompt)
	}
	req["context"] = false
	body, _ = json.Marshal(req)
	_, b = call(t, "POST", ts.URL+"/infill", string(body))
	ans = decodeObject(t, b)
	if p := ans["prompt"].(string); !strings.HasPrefix(p, "<|repo_name|>myproject\n") || !strings.Contains(p, "<|file_sep|>filename\n<|fim_prefix|>") || strings.Contains(p, "class Item:") {
		t.Errorf("without context: %q", p)
	}
}

// TestInfillChoosesSurer: by default a completion whose prompt shows the
// repository's context is written with and without it; the candidates
// are the answers of a request with "context": false and of a server
// that always shows the context, the one with the higher mean
// log-probability of its tokens is answered (with its prompt), streamed
// as one piece, and the timings add both.
func TestInfillChoosesSurer(t *testing.T) {
	_, ts := qwenServer(t, Config{})
	_, always := qwenServer(t, Config{CursorAlways: true})
	var req map[string]any
	json.Unmarshal([]byte(editorRequest(t, "llama-vim-fim")), &req)
	req["response_fields"], req["n_predict"], req["temperature"], req["samplers"] = nil, 10, 0, []string{"temperature"}
	ask := func(url string, change map[string]any) map[string]any {
		r := maps.Clone(req)
		maps.Copy(r, change)
		body, _ := json.Marshal(r)
		code, b := call(t, "POST", url+"/infill", string(body))
		if code != 200 {
			t.Fatalf("%d %s", code, b)
		}
		return decodeObject(t, b)
	}
	ans := ask(ts.URL, nil)
	plain, with := ask(ts.URL, map[string]any{"context": false}), ask(always.URL, nil)
	choice, ok := ans["context_choice"].(map[string]any)
	if !ok {
		t.Fatalf("no context_choice: %v", ans)
	}
	without, withCtx := choice["without"].(map[string]any), choice["with"].(map[string]any)
	if without["content"] != plain["content"] || withCtx["content"] != with["content"] {
		t.Errorf("candidates %q and %q, answers %q and %q", without["content"], withCtx["content"], plain["content"], with["content"])
	}
	surer := withCtx["mean_logprob"].(float64) > without["mean_logprob"].(float64)
	chosen, prompt := plain, "<|repo_name|>myproject\n"
	if surer {
		chosen, prompt = with, "<|repo_name|>inventory\n"
	}
	if choice["context"] != surer || ans["content"] != chosen["content"] || !strings.HasPrefix(ans["prompt"].(string), prompt) {
		t.Errorf("chose context %v (surer %v): %q, prompt %.40q", choice["context"], surer, ans["content"], ans["prompt"])
	}
	tm, tp, tw := ans["timings"].(map[string]any), plain["timings"].(map[string]any), with["timings"].(map[string]any)
	if tm["predicted_n"] != tp["predicted_n"].(float64)+tw["predicted_n"].(float64) {
		t.Errorf("timings %v, of the two %v and %v", tm, tp, tw)
	}
	r := maps.Clone(req)
	r["stream"] = true
	body, _ := json.Marshal(r)
	resp, err := http.Post(ts.URL+"/infill", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	evs, _ := events(t, resp.Body)
	if len(evs) != 2 || evs[0]["content"] != ans["content"] || evs[1]["context_choice"] == nil {
		t.Errorf("stream %v", evs)
	}
}

// TestInfillFileAcrossRepositories: the cursor's file is, of all the
// served repositories, the one most lines around the cursor vote for,
// not a file of the first repository that a few lines common to two
// languages vote for (`return false;`, `} else {`).
func TestInfillFileAcrossRepositories(t *testing.T) {
	qwenServer(t, Config{}) // opens the model
	dir := t.TempDir()
	write := func(path, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a-lib/flag.js", "export function flag(a) {\n  if (a) {\n    return false;\n  } else {\n    return true;\n  }\n}\n")
	rust := "pub fn check(a: bool) -> bool {\n    if a {\n        return false;\n    } else {\n        return true;\n    }\n}\n\n" +
		"pub fn twice_plus_one(v: u32) -> u32 {\n    let doubled = v * 2;\n    doubled + 1\n}\n"
	write("b-crate/src/lib.rs", rust)
	_, ts := newServer(t, qwen.p, Config{Repos: []string{filepath.Join(dir, "a-lib"), filepath.Join(dir, "b-crate")}})
	at := strings.Index(rust, "    let doubled")
	req, _ := json.Marshal(map[string]any{"input_prefix": rust[:at], "prompt": "", "input_suffix": rust[at:], "n_predict": 0})
	code, b := call(t, "POST", ts.URL+"/infill", string(req))
	ans := decodeObject(t, b)
	if p, _ := ans["prompt"].(string); code != 200 || !strings.HasPrefix(p, "<|repo_name|>b-crate\n") || !strings.Contains(p, "<|file_sep|>src/lib.rs\n<|fim_prefix|>") {
		t.Errorf("%d: the cursor's file not found in b-crate: %q", code, p)
	}
}

// TestInfillQwenWritesParseableCode: Qwen2.5-Coder-0.5B, asked as
// llama.vscode asks on the first line of a real function's body (the body
// removed, the line's indentation typed: n_indent 4 and no text before
// the cursor), writes a middle that leaves the file parseable.
func TestInfillQwenWritesParseableCode(t *testing.T) {
	_, ts := qwenServer(t, Config{})
	repo := exampleRepo(t)
	for _, c := range []struct {
		file string
		fn   string
	}{
		{"inventory/report.py", "stock_value"},
		{"inventory/stock.py", "in_stock"},
	} {
		src, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(c.file)))
		if err != nil {
			t.Fatal(err)
		}
		pf, err := pysrc.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		var fn pysrc.Function
		for _, f := range pf.Functions() {
			if f.Name == c.fn {
				fn = f
			}
		}
		pf.Close()
		lines := strings.SplitAfter(string(src), "\n")
		prefix := strings.Join(lines[:fn.BodyStart-1], "")
		suffix := "\n" + strings.Join(lines[fn.End:], "")
		body, _ := json.Marshal(map[string]any{"input_prefix": prefix, "input_suffix": suffix, "prompt": "",
			"n_predict": 64, "n_indent": 4, "temperature": 0, "samplers": []string{"temperature", "infill"}})
		code, b := call(t, "POST", ts.URL+"/infill", string(body))
		ans := decodeObject(t, b)
		middle, _ := ans["content"].(string)
		file := prefix + middle + suffix
		parsed, err := pysrc.Parse([]byte(file))
		if err != nil {
			t.Fatal(err)
		}
		broken := parsed.Root().HasError()
		parsed.Close()
		if code != 200 || strings.TrimSpace(middle) == "" || broken {
			t.Errorf("%s: %d, middle %q leaves the file parseable: %v", c.fn, code, middle, !broken)
		}
		t.Logf("%s: %q", c.fn, middle)
	}
}

// TestCompletionsRepositoryContext: a /v1/completions request with a
// suffix (as Continue sends it: the text, no file name) inside a file of
// the served repository gets /infill's repository context, which the
// answer lists (a server with --cursor-always); with "context": false it
// gets the plain FIM layout.
func TestCompletionsRepositoryContext(t *testing.T) {
	s, ts := qwenServer(t, Config{CursorAlways: true})
	var vim map[string]any
	json.Unmarshal([]byte(editorRequest(t, "llama-vim-fim")), &vim)
	prefix := vim["input_prefix"].(string) + vim["prompt"].(string)
	suffix := vim["input_suffix"].(string)
	req := map[string]any{"prompt": prefix, "suffix": suffix, "max_tokens": 1, "temperature": 0}
	ask := func() (int, map[string]any) {
		body, _ := json.Marshal(req)
		code, b := call(t, "POST", ts.URL+"/v1/completions", string(body))
		return code, decodeObject(t, b)
	}
	code, ans := ask()
	sources := map[string]bool{}
	ctx, _ := ans["context"].([]any)
	for _, c := range ctx {
		sources[c.(map[string]any)["source"].(string)] = true
	}
	plain, err := fimTokens(s.p.Tok, prefix, suffix)
	if err != nil {
		t.Fatal(err)
	}
	promptTokens := func(a map[string]any) int { return int(a["usage"].(map[string]any)["prompt_tokens"].(float64)) }
	if code != 200 || !sources["symbol"] || promptTokens(ans) <= len(plain) {
		t.Errorf("with the repository: %d, sources %v, %d prompt tokens (plain FIM %d): %v", code, sources, promptTokens(ans), len(plain), ans)
	}
	req["context"] = false
	code, ans = ask()
	if code != 200 || ans["context"] != nil || promptTokens(ans) != len(plain) {
		t.Errorf("context false: %d, %d prompt tokens (plain FIM %d), context %v", code, promptTokens(ans), len(plain), ans["context"])
	}
	// Text from no file of the repository: the plain layout.
	req["context"], req["prompt"], req["suffix"] = nil, "def unrelated_name(q):\n    ", "\n\nprint(unrelated_name(3))\n"
	code, ans = ask()
	if plain, _ := fimTokens(s.p.Tok, req["prompt"].(string), req["suffix"].(string)); code != 200 || ans["context"] != nil || promptTokens(ans) != len(plain) {
		t.Errorf("text of no file: %d, %d prompt tokens (plain FIM %d), context %v", code, promptTokens(ans), len(plain), ans["context"])
	}
}

// TestCompletionsChoosesSurer: by default a /v1/completions request
// whose prompt shows the repository's context is written with and
// without it, as /infill's; the answer is the surer candidate, lists the
// context only when it is the context's, and its usage counts both.
func TestCompletionsChoosesSurer(t *testing.T) {
	_, ts := qwenServer(t, Config{})
	var vim map[string]any
	json.Unmarshal([]byte(editorRequest(t, "llama-vim-fim")), &vim)
	body, _ := json.Marshal(map[string]any{"prompt": vim["input_prefix"].(string) + vim["prompt"].(string),
		"suffix": vim["input_suffix"], "max_tokens": 8, "temperature": 0})
	code, b := call(t, "POST", ts.URL+"/v1/completions", string(body))
	var ans struct {
		Choices []struct{ Text string }
		Usage   struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		}
		Context []any
		Choice  *contextChoice `json:"context_choice"`
	}
	if err := json.Unmarshal(b, &ans); code != 200 || err != nil || ans.Choice == nil || len(ans.Choices) != 1 {
		t.Fatalf("%d %s", code, b)
	}
	c := ans.Choice
	want := c.Without
	if c.With.surer(c.Without) {
		want = c.With
	}
	if c.Context != c.With.surer(c.Without) || ans.Choices[0].Text != want.Content || (len(ans.Context) > 0) != c.Context {
		t.Errorf("chose context %v with %d chunks, text %q; candidates %+v", c.Context, len(ans.Context), ans.Choices[0].Text, c)
	}
	if ans.Usage.CompletionTokens <= 8 {
		t.Errorf("usage %+v: not both completions' tokens", ans.Usage)
	}
}

// TestInfillACToR: with "actor" and a probe that calls every judged token
// critical, the repository's context is made again at each judged token
// (the answer counts them); here the text written brings other chunks at
// least once, which re-prefills, and the prompt reported is the last one. Without a probe the field is refused.
func TestInfillACToR(t *testing.T) {
	s, ts := qwenServer(t, Config{CacheReuse: 32})
	var req map[string]any
	json.Unmarshal([]byte(editorRequest(t, "llama-vim-fim")), &req)
	req["response_fields"], req["n_predict"], req["temperature"], req["t_max_predict_ms"] = nil, 12, 0, nil
	req["actor"] = true
	ask := func() (int, map[string]any) {
		body, _ := json.Marshal(req)
		code, b := call(t, "POST", ts.URL+"/infill", string(body))
		return code, decodeObject(t, b)
	}
	if code, ans := ask(); code != 400 || !strings.Contains(fmt.Sprint(ans), "probe") {
		t.Errorf("actor without a probe: %d %v", code, ans)
	}
	s.p.Probe = testsupport.ConstProbe(s.p.Model.Config.Embed, 20)
	t.Cleanup(func() { s.p.Probe = nil })
	code, ans := ask()
	st, _ := ans["actor"].(map[string]any)
	if code != 200 || st == nil {
		t.Fatalf("%d %v", code, ans)
	}
	judged, triggers, changes := int(st["judged"].(float64)), int(st["triggers"].(float64)), int(st["context_changes"].(float64))
	n := int(ans["tokens_predicted"].(float64))
	t.Logf("%d tokens %q: judged %d, triggers %d, changes %d, %v", n, ans["content"], judged, triggers, changes, st)
	if judged == 0 || triggers != judged || judged > n || changes == 0 || changes > triggers {
		t.Errorf("%d tokens: judged %d, triggers %d, changes %d", n, judged, triggers, changes)
	}
	// With --cache-reuse a change computes the new chunks; the cursor's
	// file after them is placed (a chunk moved by chunks added before it):
	// far less than the prompt.
	promptTokens := len(s.p.Tok.EncodeSpecial(ans["prompt"].(string), true))
	if rt := int(st["reprefill_tokens"].(float64)); rt <= 0 || 4*rt > promptTokens {
		t.Errorf("a context change computed %d of the prompt's %d tokens", rt, promptTokens)
	}
	if p := ans["prompt"].(string); !strings.HasPrefix(p, "<|repo_name|>inventory\n") || !strings.Contains(p, "<|fim_middle|>") {
		t.Errorf("prompt %q", p)
	}
	// A probe that calls nothing critical judges and changes nothing: the
	// same completion as without ACToR.
	s.p.Probe = testsupport.ConstProbe(s.p.Model.Config.Embed, -20)
	_, quiet := ask()
	delete(req, "actor")
	_, plain := ask()
	if qs := quiet["actor"].(map[string]any); qs["triggers"].(float64) != 0 || quiet["content"] != plain["content"] {
		t.Errorf("quiet probe: %v, content %q, without ACToR %q", qs, quiet["content"], plain["content"])
	}
}
