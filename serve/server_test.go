package serve

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"actor/engine"
	"actor/generate"
	"actor/internal/testsupport"
	"actor/pipeline"
	"actor/probe"
)

// tinyModel is a random-weight Llama with a byte-level toy vocabulary and
// a context of 256 tokens.
var tinyModel = testsupport.Path(testsupport.TinyModels + "/llama_theta1e6.gguf")

// testRepo is a small repository; leak.py and out/ are links out of it.
var testRepo = map[string]string{
	"lib/math.py": "def double(x):\n    return 2 * x\n",
	"lib/text.py": "def shout(s):\n    return s.upper()\n",
	"app.py":      "def run(x):\n    \"\"\"Double x.\"\"\"\n    return double(x)\n",
}

// secret is the text of a file outside the repository.
const secret = "def secret():\n    return 'outside'\n"

// openTiny opens the tiny model as ACToR with a probe that calls every
// judged token critical (gap), BM25 retrieval and a budget that fits its
// context, and writes the test repository; it returns the pipeline and
// the repository folder.
func openTiny(t *testing.T, gap float32) (*pipeline.Pipeline, string) {
	t.Helper()
	t.Setenv("ACTOR_HOME", t.TempDir())
	m, tok, err := pipeline.OpenModel(tinyModel, engine.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	pr := testsupport.ConstProbe(m.Config.Embed, gap)
	pr.Model = pipeline.ProbeModelInfo(m, tok)
	m.Close()
	file := filepath.Join(t.TempDir(), "const.probe")
	if err := probe.Save(file, pr); err != nil {
		t.Fatal(err)
	}
	meth := pipeline.DefaultMethod()
	meth.Method, meth.Probe, meth.Encoder, meth.Budget, meth.MaxBlocks, meth.FullProbs = generate.MethodACToR, file, "none", 60, 2, true
	cfg := generate.DefaultConfig
	cfg.MaxNewTokens = 24
	p, err := pipeline.Open(pipeline.Options{Model: tinyModel, Engine: engine.Options{Threads: 1}, Method: meth, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	root := t.TempDir()
	repo := testsupport.WriteTree(t, filepath.Join(root, "repo"), testRepo)
	outside := testsupport.WriteTree(t, filepath.Join(root, "outside"), map[string]string{"secret.py": secret})
	if err := os.Symlink(filepath.Join(outside, "secret.py"), filepath.Join(repo, "leak.py")); err != nil {
		t.Fatal(err)
	}
	return p, repo
}

// newServer serves the pipeline over a real loopback listener.
func newServer(t *testing.T, p *pipeline.Pipeline, cfg Config) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(context.Background(), p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, ts
}

// call sends a request and returns the status and body.
func call(t *testing.T, method, url, body string, header ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// events reads a server-sent stream: its JSON events, and whether it ended
// with [DONE].
func events(t *testing.T, r io.Reader) ([]map[string]any, bool) {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			return out, true
		}
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("event %q: %v", line, err)
		}
		out = append(out, ev)
	}
	return out, false
}

func TestModelsAndCompletions(t *testing.T) {
	p, repo := openTiny(t, 10)
	_, ts := newServer(t, p, Config{Repos: []string{repo}})
	code, b := call(t, "GET", ts.URL+"/v1/models", "")
	if code != 200 || !strings.Contains(string(b), `"id":"llama_theta1e6"`) {
		t.Fatalf("models: %d %s", code, b)
	}
	req := `{"model":"llama_theta1e6","prompt":"def add(a, b):\n","max_tokens":12,"temperature":0,"seed":1%s}`
	code, b = call(t, "POST", ts.URL+"/v1/completions", strings.Replace(req, "%s", "", 1))
	var whole completionChunk
	if err := json.Unmarshal(b, &whole); code != 200 || err != nil || len(whole.Choices) != 1 || whole.Usage == nil {
		t.Fatalf("completion: %d %s", code, b)
	}
	c := whole.Choices[0]
	if *c.FinishReason == "length" && whole.Usage.CompletionTokens != 12 || whole.Object != "text_completion" {
		t.Errorf("completion %+v, usage %+v", c, whole.Usage)
	}
	resp, err := http.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(strings.Replace(req, "%s", `,"stream":true`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("stream content type %q", ct)
	}
	evs, done := events(t, resp.Body)
	var text strings.Builder
	for _, ev := range evs {
		text.WriteString(ev["choices"].([]any)[0].(map[string]any)["text"].(string))
	}
	last := evs[len(evs)-1]["choices"].([]any)[0].(map[string]any)["finish_reason"]
	if !done || text.String() != c.Text || last != *c.FinishReason {
		t.Errorf("stream %q (finish %v, done %v), whole %q (finish %s)", text.String(), last, done, c.Text, *c.FinishReason)
	}
}

func TestGenerateStreamsCriticalTokens(t *testing.T) {
	p, repo := openTiny(t, 10)
	_, ts := newServer(t, p, Config{Repos: []string{repo}})
	body := `{"repo":"repo","file":"app.py","line":2,"temperature":0,"max_tokens":16,"stream":true}`
	resp, err := http.Post(ts.URL+"/v1/actor/generate", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	evs, done := events(t, resp.Body)
	if !done || len(evs) < 4 {
		t.Fatalf("%d events, done %v: %v", len(evs), done, evs)
	}
	types := map[string]int{}
	critical := 0
	for _, ev := range evs {
		types[ev["type"].(string)]++
		if ev["critical"] == true {
			critical++
			if ps := ev["p"].([]any); len(ps) != 5 {
				t.Errorf("critical token with %d members' p: %v", len(ps), ev)
			}
			before := ev["before"].([]any)
			if len(before) == 0 || before[0].(map[string]any)["text"] == "" {
				t.Errorf("critical token without the blocks' texts: %v", ev)
			}
		}
	}
	start := evs[0]
	if start["type"] != "start" || start["method"] != "actor+bm25" || start["target"].(map[string]any)["name"] != "run" {
		t.Errorf("start event %v", start)
	}
	if types["attempt"] < 1 || types["token"] < 2 || types["sample"] != 1 || critical == 0 {
		t.Errorf("event counts %v, %d critical", types, critical)
	}
	// The whole answer carries the trace.
	code, b := call(t, "POST", ts.URL+"/v1/actor/generate", strings.Replace(body, `,"stream":true`, `,"method":"rawrag"`, 1))
	var res generateResult
	if err := json.Unmarshal(b, &res); code != 200 || err != nil || len(res.Results) != 1 || res.Results[0].Trace == nil || res.Method != "rawrag+bm25" {
		t.Fatalf("whole answer: %d %s", code, b)
	}
	for _, bl := range res.Results[0].Trace.Attempts[0].Blocks {
		if bl.Path == "leak.py" {
			t.Errorf("a block of a link out of the repository was retrieved: %+v", bl)
		}
	}
}

// Bad requests get a 4xx JSON error naming the problem, and the server
// answers afterwards.
func TestBadInput(t *testing.T) {
	p, repo := openTiny(t, 10)
	_, ts := newServer(t, p, Config{Repos: []string{repo}, MaxBody: 2048})
	gen := func(fields string) string { return `{"repo":"repo","file":"app.py","line":2` + fields + `}` }
	cases := []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{"bad JSON", "POST", "/v1/actor/generate", `{"repo":`, 400, "invalid JSON"},
		{"two objects", "POST", "/v1/completions", `{"prompt":"a"} {}`, 400, "more follows"},
		{"unknown field", "POST", "/v1/actor/generate", gen(`,"temprature":1`), 400, "temprature"},
		{"unknown repo", "POST", "/v1/actor/generate", `{"repo":"nope","file":"app.py","line":1}`, 404, `unknown repository "nope"`},
		{"dot-dot", "POST", "/v1/actor/generate", `{"repo":"repo","file":"../outside/secret.py","line":1}`, 400, "outside the repository"},
		{"absolute", "POST", "/v1/actor/generate", `{"repo":"repo","file":"/etc/passwd","line":1}`, 400, "outside the repository"},
		{"symlink", "POST", "/v1/actor/generate", `{"repo":"repo","file":"leak.py","line":1}`, 400, "link out of the repository"},
		{"missing file", "POST", "/v1/actor/generate", `{"repo":"repo","file":"nope.py","line":1}`, 404, "not in repository"},
		{"no line", "POST", "/v1/actor/generate", `{"repo":"repo","file":"app.py"}`, 400, "line 0"},
		{"no function", "POST", "/v1/actor/generate", gen(`,"line":99`), 400, ""},
		{"method", "POST", "/v1/actor/generate", gen(`,"method":"flare"`), 400, `method "flare"`},
		{"samples", "POST", "/v1/actor/generate", gen(`,"samples":99`), 400, "samples 99"},
		{"temperature", "POST", "/v1/actor/generate", gen(`,"temperature":-1`), 400, "temperature"},
		{"oversized", "POST", "/v1/completions", `{"prompt":"` + strings.Repeat("x", 4096) + `"}`, 413, "over 2048 bytes"},
		{"model", "POST", "/v1/completions", `{"model":"gpt-4","prompt":"a"}`, 404, `model "gpt-4"`},
		{"n", "POST", "/v1/completions", `{"prompt":"a","n":2}`, 400, "n 2"},
		{"no prompt", "POST", "/v1/completions", `{}`, 400, "prompt"},
		{"max tokens", "POST", "/v1/completions", `{"prompt":"a","max_tokens":100000}`, 400, "max_tokens 100000"},
		{"top_p", "POST", "/v1/completions", `{"prompt":"a","top_p":0}`, 400, "top_p"},
		{"no FIM tokens", "POST", "/v1/completions", `{"prompt":"a","suffix":"b"}`, 400, "fill-in-the-middle"},
		{"endpoint", "GET", "/v1/nothing", "", 404, "no endpoint GET /v1/nothing"},
		{"wrong method", "GET", "/v1/completions", "", 404, "no endpoint"},
	}
	for _, c := range cases {
		code, b := call(t, c.method, ts.URL+c.path, c.body)
		var e errorBody
		if err := json.Unmarshal(b, &e); err != nil || code != c.status || e.Error.Type == "" || e.Error.Message == "" || !strings.Contains(e.Error.Message, c.want) {
			t.Errorf("%s: %d %s, want %d with %q", c.name, code, b, c.status, c.want)
		}
	}
	if code, b := call(t, "POST", ts.URL+"/v1/completions", `{"prompt":"a","max_tokens":2}`); code != 200 {
		t.Errorf("after the bad requests: %d %s", code, b)
	}
}

func TestToken(t *testing.T) {
	p, repo := openTiny(t, 10)
	_, ts := newServer(t, p, Config{Repos: []string{repo}, Token: "s3cret"})
	for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"Authorization", "s3cret"}} {
		code, b := call(t, "GET", ts.URL+"/v1/models", "", h...)
		if code != 401 || !strings.Contains(string(b), "authentication_error") {
			t.Errorf("header %v: %d %s", h, code, b)
		}
	}
	if code, b := call(t, "GET", ts.URL+"/v1/models", "", "Authorization", "Bearer s3cret"); code != 200 {
		t.Errorf("with the token: %d %s", code, b)
	}
	if code, b := call(t, "GET", ts.URL+"/", ""); code != 200 || !bytes.Contains(b, []byte("<title>ACToR</title>")) {
		t.Errorf("the page: %d", code)
	}
}

func TestCheckAddr(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:8080", "[::1]:80", "localhost:9000"} {
		if err := CheckAddr(addr, ""); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
	}
	for _, addr := range []string{"0.0.0.0:8080", ":8080", "192.168.1.2:80"} {
		if err := CheckAddr(addr, ""); err == nil || !strings.Contains(err.Error(), "--token") {
			t.Errorf("%s without a token: %v", addr, err)
		}
		if err := CheckAddr(addr, "t"); err != nil {
			t.Errorf("%s with a token: %v", addr, err)
		}
	}
	if err := CheckAddr("8080", ""); err == nil {
		t.Error("an address without a port was accepted")
	}
}

// A full queue answers 429, a shutting-down server 503.
func TestQueue(t *testing.T) {
	p, repo := openTiny(t, 10)
	s, ts := newServer(t, p, Config{Repos: []string{repo}, Queue: 1})
	release, e := s.acquire(context.Background())
	if e != nil {
		t.Fatal(e)
	}
	body := `{"prompt":"a","max_tokens":2}`
	if code, b := call(t, "POST", ts.URL+"/v1/completions", body); code != 429 || !strings.Contains(string(b), "queue is full") {
		t.Errorf("full queue: %d %s", code, b)
	}
	release()
	if code, b := call(t, "POST", ts.URL+"/v1/completions", body); code != 200 {
		t.Errorf("after release: %d %s", code, b)
	}
	s.beginShutdown()
	if code, b := call(t, "POST", ts.URL+"/v1/completions", body); code != 503 || !strings.Contains(string(b), "shutting down") {
		t.Errorf("shutting down: %d %s", code, b)
	}
}

// A client that disconnects cancels its generation: the model is free at
// once, having decoded far fewer tokens than asked for.
func TestDisconnectCancels(t *testing.T) {
	p, repo := openTiny(t, 10)
	s, ts := newServer(t, p, Config{Repos: []string{repo}})
	prompt := "def add(a, b):\n"
	max := 200 // the tiny model's greedy continuation ends after 220 tokens
	body := `{"prompt":` + quote(prompt) + `,"temperature":0,"max_tokens":` + itoa(max)
	code, b := call(t, "POST", ts.URL+"/v1/completions", body+"}")
	if code != 200 || !strings.Contains(string(b), `"finish_reason":"length"`) {
		t.Fatalf("uncancelled run: %d %s (the test needs one that runs to the token limit)", code, b)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/completions", strings.NewReader(body+`,"stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "data: ") {
		t.Fatalf("first event %q: %v", line, err)
	}
	cancel()
	resp.Body.Close()
	release, e := s.acquire(context.Background())
	if e != nil {
		t.Fatal(e)
	}
	defer release()
	for _, x := range s.caches.sess {
		if n := x.Len(); n > max/2 {
			t.Errorf("the session holds %d tokens after the client left (prompt + %d asked for)", n, max)
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A re-index picks up a new file's functions.
func TestReindex(t *testing.T) {
	p, repo := openTiny(t, 10)
	_, ts := newServer(t, p, Config{Repos: []string{repo}})
	code, b := call(t, "GET", ts.URL+"/v1/repos/repo/functions", "")
	if code != 200 || strings.Contains(string(b), "secret") || !strings.Contains(string(b), `"name":"double"`) {
		t.Fatalf("functions: %d %s", code, b)
	}
	testsupport.WriteTree(t, repo, map[string]string{"lib/more.py": "def triple(x):\n    return 3 * x\n"})
	if code, b := call(t, "POST", ts.URL+"/v1/repos/repo/reindex", ""); code != 200 || !strings.Contains(string(b), `"functions":4`) {
		t.Fatalf("reindex: %d %s", code, b)
	}
	if _, b := call(t, "GET", ts.URL+"/v1/repos/repo/functions", ""); !strings.Contains(string(b), `"name":"triple"`) {
		t.Errorf("after reindex: %s", b)
	}
}

// Shutdown answers a waiting request 503 and lets the running one finish.
func TestGracefulShutdown(t *testing.T) {
	p, repo := openTiny(t, 10)
	s, err := New(context.Background(), p, Config{Repos: []string{repo}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.ListenAndServe(ctx, l, 10*time.Second) }()
	release, e := s.acquire(context.Background()) // a running request
	if e != nil {
		t.Fatal(e)
	}
	waiting := make(chan int, 1)
	go func() {
		resp, err := http.Post("http://"+l.Addr().String()+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"a","max_tokens":2}`))
		if err != nil {
			waiting <- 0
			return
		}
		resp.Body.Close()
		waiting <- resp.StatusCode
	}()
	for len(s.slots) < 2 { // the request is in the queue
		time.Sleep(time.Millisecond)
	}
	stop()
	if code := <-waiting; code != 503 {
		t.Errorf("waiting request: %d, want 503", code)
	}
	release()
	if err := <-served; err != nil {
		t.Errorf("shutdown: %v", err)
	}
	if _, err := net.Dial("tcp", l.Addr().String()); err == nil {
		t.Error("the server still accepts connections")
	}
}

// writeRun writes a run folder as actor run leaves it (under
// ROOT/bench/actor): two samples, one passed and one failed, and the
// failed one's trace with a critical token that changed the context.
func writeRun(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	tr := generate.Trace{Task: "7", Sample: 1, Method: "actor", Attempts: []generate.Attempt{{Stage: "generate", Stop: "rule",
		Events: []generate.TokenEvent{{ID: 1, Text: "    return"}, {ID: 2, Text: " x", P: []float32{0.9, 0.8}, Critical: true, Changed: true,
			Before: []generate.Block{{Path: "a.py", Start: 1, End: 2}}, After: []generate.Block{{Path: "b.py", Start: 3, End: 4}},
			Dropped: &generate.TokenRef{ID: 3, Text: " y"}}}}}}
	trace, _ := json.Marshal(tr)
	testsupport.WriteTree(t, root, map[string]string{
		"bench/actor/predictions.jsonl": `{"task_id":"7","sample":0,"code":"    return 1\n","method":"actor","model":"m"}` + "\n" +
			`{"task_id":"7","sample":1,"code":"    return x\n","method":"actor","model":"m","triggers":1,"context_changes":1}` + "\n",
		"bench/actor/eval/samples.jsonl": `{"task_id":"7","sample":0,"method":"actor","model":"m","passed":true,"status":"passed","exit":0}` + "\n" +
			`{"task_id":"7","sample":1,"method":"actor","model":"m","passed":false,"status":"failed","reason":"AssertionError: assert 2 == 1","exit":1}` + "\n",
		"bench/actor/traces.jsonl": string(trace) + "\n",
		"notes/README.md":          "not a run\n",
	})
	return root
}

func TestRuns(t *testing.T) {
	p, repo := openTiny(t, 10)
	runs := writeRun(t)
	_, ts := newServer(t, p, Config{Repos: []string{repo}, Runs: runs})
	if code, b := call(t, "GET", ts.URL+"/v1/runs", ""); code != 200 || string(bytes.TrimSpace(b)) != `{"data":["bench/actor"]}` {
		t.Errorf("runs: %d %s", code, b)
	}
	code, b := call(t, "GET", ts.URL+"/v1/runs?run=bench/actor", "")
	var res struct{ Data []runSample }
	if err := json.Unmarshal(b, &res); code != 200 || err != nil || len(res.Data) != 2 || !res.Data[0].Passed || res.Data[1].Passed ||
		res.Data[1].Reason != "AssertionError: assert 2 == 1" || res.Data[1].Code != "    return x\n" {
		t.Errorf("run: %d %s", code, b)
	}
	code, b = call(t, "GET", ts.URL+"/v1/runs?run=bench/actor&task=7&sample=1", "")
	if code != 200 || !strings.Contains(string(b), `"critical":true`) {
		t.Errorf("trace: %d %s", code, b)
	}
	// Committed results keep their traces gzipped.
	plain := filepath.Join(runs, "bench", "actor", "traces.jsonl")
	raw, _ := os.ReadFile(plain)
	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	z.Write(raw)
	z.Close()
	os.WriteFile(plain+".gz", gz.Bytes(), 0o644)
	os.Remove(plain)
	if code, b := call(t, "GET", ts.URL+"/v1/runs?run=bench/actor&task=7&sample=1", ""); code != 200 || !strings.Contains(string(b), `"critical":true`) {
		t.Errorf("gzipped trace: %d %s", code, b)
	}
	for _, q := range []string{"run=../bench/actor", "run=notes", "run=bench/actor&task=7&sample=0", "run=bench/actor&task=7&sample=x"} {
		if code, b := call(t, "GET", ts.URL+"/v1/runs?"+q, ""); code/100 != 4 || !strings.Contains(string(b), `"error"`) {
			t.Errorf("%s: %d %s", q, code, b)
		}
	}
}

// With Watch set, a changed repository is read again without a request.
func TestWatch(t *testing.T) {
	p, repo := openTiny(t, 10)
	_, ts := newServer(t, p, Config{Repos: []string{repo}, Watch: 20 * time.Millisecond})
	testsupport.WriteTree(t, repo, map[string]string{"lib/more.py": "def triple(x):\n    return 3 * x\n"})
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, b := call(t, "GET", ts.URL+"/v1/repos/repo/functions", ""); strings.Contains(string(b), `"name":"triple"`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a new file's function was not listed within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestShippedProbeRequest answers one request for ACToR as a user's server
// would: the default model and method, every method's needs loaded (the
// shipped probe, the dense encoder), the example repository, greedy. The
// probe judges, some token is critical with all five members' p, and the
// answer's context shows the target file's code (the default context)
// with its source.
func TestShippedProbeRequest(t *testing.T) {
	model := testsupport.Model(t, "qwen2.5-coder-0.5b")
	testsupport.Model(t, pipeline.DefaultEncoder)
	repo, err := filepath.Abs(filepath.Join("..", "examples", "inventory"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := pipeline.Open(pipeline.Options{Model: model, Engine: engine.Options{Threads: 2}, Method: pipeline.DefaultMethod(),
		Config: generate.DefaultConfig, AllMethods: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	// A loaded machine can take longer than the default request limit.
	_, ts := newServer(t, p, Config{Repos: []string{repo}, Timeout: 30 * time.Minute})
	body := `{"repo":"inventory","file":"inventory/report.py","line":11,"method":"actor","temperature":0,"stream":true}`
	resp, err := http.Post(ts.URL+"/v1/actor/generate", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	evs, done := events(t, resp.Body)
	critical, sources := 0, map[string]bool{}
	for _, ev := range evs {
		if ev["error"] != nil {
			t.Errorf("error event: %v", ev["error"])
		}
		if ev["type"] == "attempt" {
			for _, c := range ev["context"].([]any) {
				c := c.(map[string]any)
				sources[c["source"].(string)] = c["text"] != ""
			}
		}
		if ev["critical"] == true {
			critical++
			if ps := ev["p"].([]any); len(ps) != 5 {
				t.Errorf("critical token with %d members' p: %v", len(ps), ev)
			}
		}
	}
	if !done || evs[0]["method"] != "actor" || critical == 0 || !sources["file"] {
		t.Errorf("done %v, method %v, %d critical tokens, context sources with text %v", done, evs[0]["method"], critical, sources)
	}
}
