package generate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"actor/index"
	"actor/internal/testsupport"
	"actor/retrieve"
)

// newMethod builds a method through New on the tiny model and repository.
func newMethod(t *testing.T, method string, c *Corpus, mut func(*Options)) Generator {
	t.Helper()
	m, tok := loadTiny(t)
	o := Options{Method: method, Decoder: newDecoder(t, m, tok), Config: tinyConfig(), Corpus: c, Probe: testsupport.ConstProbe(m.Config.Embed, -10)}
	if mut != nil {
		mut(&o)
	}
	g, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func sparseCorpus(t *testing.T) *Corpus {
	t.Helper()
	c, err := ReadCorpus(testsupport.WriteTree(t, t.TempDir(), tinyRepo), index.WalkOptions{Include: []string{"*.py"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestReadCorpusUnits(t *testing.T) {
	c := sparseCorpus(t)
	if len(c.Blocks) != 3 || len(c.Windows) != 3 || c.Dense() {
		t.Fatalf("blocks %+v windows %+v", c.Blocks, c.Windows)
	}
	if _, err := c.DenseRetriever(retrieve.MeanPooling, false); err == nil {
		t.Error("dense retrieval without an encoder")
	}
}

// An encoder that cannot keep a long query's ends is refused up front
// when ACToR is asked to keep them.
func TestQueryKeepsEndsNeedsACutEncoder(t *testing.T) {
	m, tok := loadTiny(t)
	_, err := New(Options{Method: MethodACToR, Decoder: newDecoder(t, m, tok), Config: tinyConfig(), Corpus: denseCorpus(t),
		Probe: testsupport.ConstProbe(m.Config.Embed, -10), QueryKeepsEnds: true})
	if err == nil || !strings.Contains(err.Error(), "encoder hash-bow cannot keep a long query's ends") {
		t.Errorf("got %v", err)
	}
}

func TestRawPromptSeesOnlyTheTarget(t *testing.T) {
	g := newMethod(t, MethodRawPrompt, nil, nil)
	s, err := g.Generate(t.Context(), tinyTarget, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := s.Trace.Attempts[0]
	if s.Prompt != tinyTarget.Prompt || len(a.Blocks) != 0 || a.Query != "" || s.Trace.Tokens == 0 || s.Trace.Tokens > 12 {
		t.Errorf("prompt %q, attempt %+v", s.Prompt, a)
	}
	again, err := g.Generate(t.Context(), tinyTarget, 0, nil)
	if err != nil || again.Code != s.Code {
		t.Errorf("the same sample twice: %q then %q (%v)", s.Code, again.Code, err)
	}
	if a.Work.Evaluated != a.PromptTokens+a.Work.Steps {
		t.Errorf("work %+v", a.Work)
	}
	// The second run of the same prompt reuses the whole cached prompt.
	if w := again.Trace.Attempts[0].Work; w.Evaluated != 1+w.Steps {
		t.Errorf("second sample recomputed the prompt: %+v", w)
	}
}

func TestRawRAGDenseAndFallback(t *testing.T) {
	g := newMethod(t, MethodRawRAG, denseCorpus(t), nil)
	s, err := g.Generate(t.Context(), tinyTarget, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Words of the query "def run(x): Double x. return" meet double's
	// block first; app.py's own lines are hidden.
	a := s.Trace.Attempts[0]
	if g.Method() != MethodRawRAG || len(a.Blocks) != 1 || a.Blocks[0].Path != "lib/math.py" || a.Query != tinyTarget.Prompt {
		t.Errorf("method %s blocks %+v", g.Method(), a.Blocks)
	}
	if !strings.HasPrefix(s.Prompt, "# file path: lib/math.py\n\n# def double(x):") || !strings.HasSuffix(s.Prompt, "# file path: app.py\n\n"+tinyTarget.Prompt) {
		t.Errorf("prompt %q", s.Prompt)
	}
	fb := newMethod(t, MethodRawRAG, sparseCorpus(t), nil)
	if fb.Method() != "rawrag+bm25" || len(fb.Notes()) != 1 || !strings.Contains(fb.Notes()[0], "BM25") {
		t.Errorf("fallback %s %q", fb.Method(), fb.Notes())
	}
}

func TestRepoCoderTwoRounds(t *testing.T) {
	g := newMethod(t, MethodRepoCoder, sparseCorpus(t), nil)
	s, err := g.Generate(t.Context(), tinyTarget, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	att := s.Trace.Attempts
	if len(att) < 2 || att[0].Stage != "round1" || att[len(att)-1].Stage != "round2" {
		t.Fatalf("stages %+v", att)
	}
	r1, r2 := att[0], att[len(att)-1]
	if r1.Query != strings.TrimSuffix(tinyTarget.Prompt, "\n") && r1.Query != tinyTarget.Prompt {
		t.Errorf("round 1 query %q", r1.Query)
	}
	if want := tinyTarget.Prompt + firstLines(r1.Body, 10); r2.Query != want {
		t.Errorf("round 2 query %q, want last prompt lines + round 1's first lines %q", r2.Query, want)
	}
	if !strings.HasPrefix(s.Prompt, retrieve.RepoCoderHeader) || !strings.HasSuffix(s.Prompt, "\n"+tinyTarget.Prompt) {
		t.Errorf("prompt %q", s.Prompt)
	}
	if s.Trace.Generated != r1.Tokens+r2.Tokens || s.Trace.Tokens != r2.Tokens || s.Code != r2.Body {
		t.Errorf("generated %d tokens %d code %q", s.Trace.Generated, s.Trace.Tokens, s.Code)
	}
}

func TestRLCoderDenseStopAndFallback(t *testing.T) {
	g := newMethod(t, MethodRLCoder, denseCorpus(t), nil)
	if g.Method() != MethodRLCoder || len(g.Notes()) != 1 || !strings.Contains(g.Notes()[0], "RL-trained retriever weights") {
		t.Errorf("method %s notes %q", g.Method(), g.Notes())
	}
	s, err := g.Generate(t.Context(), tinyTarget, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b := s.Trace.Attempts[0].Blocks; len(b) != 1 || b[0].Path != "lib/math.py" {
		t.Errorf("blocks %+v", b)
	}
	// A query that shares nothing with any block ranks them all below the
	// stop candidate's words ("don't need cross file context ...").
	r := g.(*oneShot).r
	res, err := r.Retrieve("need cross file context completion", retrieve.Exclusion{})
	if err != nil || len(res) != 0 {
		t.Errorf("stop candidate did not cut: %+v %v", res, err)
	}
	res, err = r.Retrieve("double x return", tinyTarget.Exclusion)
	if err != nil || len(res) == 0 || res[0].Path != "lib/math.py" {
		t.Errorf("re-ranked %+v %v", res, err)
	}
	fb := newMethod(t, MethodRLCoder, sparseCorpus(t), nil)
	if fb.Method() != "rlcoder+bm25" || len(fb.Notes()) != 2 {
		t.Errorf("fallback %s %q", fb.Method(), fb.Notes())
	}
}

func TestACToRThroughNewDenseWeighted(t *testing.T) {
	g := newMethod(t, MethodACToR, denseCorpus(t), func(o *Options) { o.Probe = testsupport.ConstProbe(64, 10) })
	if g.Method() != MethodACToR || len(g.Notes()) != 0 {
		t.Fatalf("%s %q", g.Method(), g.Notes())
	}
	s, err := g.Generate(t.Context(), tinyTarget, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Trace.Triggers == 0 || s.Trace.Judged != s.Trace.Triggers || s.Trace.ProbeMs <= 0 || s.Trace.RetrieveMs <= 0 {
		t.Errorf("always-critical probe: triggers %d judged %d, probe %g ms, retrieval %g ms", s.Trace.Triggers, s.Trace.Judged, s.Trace.ProbeMs, s.Trace.RetrieveMs)
	}
	var buf bytes.Buffer
	if err := NewTraceWriter(&buf).Write(&s.Trace); err != nil {
		t.Fatal(err)
	}
	var back Trace
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back.Triggers != s.Trace.Triggers || strings.Count(buf.String(), "\n") != 1 {
		t.Errorf("trace line: %v %q", err, buf.String())
	}
	for name, mut := range map[string]func(*Options){
		"actor-noinference+bm25": func(o *Options) { o.Corpus = sparseCorpus(t); o.NoInference = true },
		"actor-meanpool":         func(o *Options) { o.MeanPooling = true },
		"actor-norules":          func(o *Options) { o.Name = "actor-norules" },
	} {
		if g := newMethod(t, MethodACToR, denseCorpus(t), mut); g.Method() != name {
			t.Errorf("method %s, want %s", g.Method(), name)
		}
	}
}

func TestNewRejects(t *testing.T) {
	m, tok := loadTiny(t)
	d := newDecoder(t, m, tok)
	bad := tinyConfig()
	bad.MaxNewTokens = 0
	for name, o := range map[string]Options{
		"unknown method":   {Method: "nope", Decoder: d, Config: tinyConfig(), Corpus: &Corpus{}},
		"no corpus":        {Method: MethodRawRAG, Decoder: d, Config: tinyConfig()},
		"no probe":         {Method: MethodACToR, Decoder: d, Config: tinyConfig(), Corpus: &Corpus{}},
		"bad config":       {Method: MethodRawPrompt, Decoder: d, Config: bad},
		"no decoder":       {Method: MethodRawPrompt, Config: tinyConfig()},
		"negative retries": {Method: MethodRawPrompt, Decoder: d, Config: Config{MaxNewTokens: 1, Retries: -1, Budget: retrieve.DefaultBudget}},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSeedsReproduceSamples(t *testing.T) {
	cfg := tinyConfig()
	cfg.Temperature, cfg.Seed = 1, 7
	m, tok := loadTiny(t)
	run := func(sample int) string {
		s, err := NewRawPrompt(newDecoder(t, m, tok), cfg).Generate(t.Context(), tinyTarget, sample, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s.Code
	}
	a, b := run(0), run(0)
	if a != b {
		t.Errorf("same seed and sample: %q vs %q", a, b)
	}
	differ := false
	for k := 1; k < 4 && !differ; k++ {
		differ = run(k) != a
	}
	if !differ {
		t.Error("samples 0-3 are identical at temperature 1")
	}
}

func TestHealNewlineLeavesTheNewlineToTheModel(t *testing.T) {
	m, tok := loadTiny(t)
	tg := tinyTarget
	tg.Prompt = "def run(x):\n    \"\"\"Double x.\"\"\"\n"
	for _, heal := range []bool{true, false} {
		cfg := tinyConfig()
		cfg.HealNewline, cfg.Retries = heal, 0
		s, err := NewRawPrompt(newDecoder(t, m, tok), cfg).Generate(t.Context(), tg, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		a := s.Trace.Attempts[0]
		seen := tg.Prompt
		if heal {
			seen = strings.TrimSuffix(seen, "\n")
		}
		if a.PromptTokens != len(tok.Encode(seen, true)) {
			t.Errorf("heal %v: prompt of %d tokens, want %q's %d", heal, a.PromptTokens, seen, len(tok.Encode(seen, true)))
		}
		var text []byte
		for _, e := range a.Events {
			text = append(text, e.Text...)
		}
		if cut := stopAt(text, 0, !heal); cut >= 0 {
			text = text[:cut]
		}
		want := string(text)
		if heal {
			want = strings.TrimPrefix(want, "\n")
		}
		if s.Code != want || a.Body != want {
			t.Errorf("heal %v: body %q, want %q", heal, s.Code, want)
		}
	}
}
