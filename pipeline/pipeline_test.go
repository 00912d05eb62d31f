package pipeline

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"actor/dataset"
	"actor/engine"
	"actor/generate"
	"actor/internal/testsupport"
)

var tinyModel = testsupport.Path(testsupport.TinyModels + "/llama_gqa.gguf")

// actorMethod is ACToR with the defaults (its measured levers).
func actorMethod() Method {
	m := DefaultMethod()
	m.Method = generate.MethodACToR
	return m
}

func TestMethodValidate(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Method)
		want string // "" : valid
	}{
		{"default", func(*Method) {}, ""},
		{"unknown method", func(m *Method) { m.Method = "flare" }, `--method "flare"`},
		{"no samples", func(m *Method) { m.Samples = 0 }, "-n 0"},
		{"layout", func(m *Method) { m.Layout = "sorted" }, `--layout "sorted"`},
		{"change rule", func(m *Method) { m.Change = "any" }, `--context-change "any"`},
		{"reuse for rawrag", func(m *Method) { m.Method, m.KVReuse = generate.MethodRawRAG, true }, "are ACToR's"},
		{"tail for rawrag", func(m *Method) { m.Method, m.KVReuseTail = generate.MethodRawRAG, true }, "are ACToR's"},
		{"comments for rawrag", func(m *Method) { m.Method, m.SkipComments = generate.MethodRawRAG, true }, "--skip-comments is for ACToR"},
		{"comments without inference", func(m *Method) { m.NoInference, m.SkipComments = true, true }, "--skip-comments is for ACToR"},
		{"exact tail without reuse", func(m *Method) { m.Exact, m.KVReuseTail = true, true }, "go with --kv-reuse"},
		{"exact store without reuse", func(m *Method) { m.Exact, m.KVStore = true, "DIR" }, "go with --kv-reuse"},
		{"store with the default levers", func(m *Method) { m.KVStore = "DIR" }, ""},
		{"entropy without inference", func(m *Method) { m.Entropy, m.NoInference = 2, true }, "--entropy-trigger"},
		{"negative entropy", func(m *Method) { m.Entropy = -1 }, "--entropy-trigger"},
		{"no caches", func(m *Method) { m.KVCaches = 0 }, "--kv-caches 0"},
		{"stable reuse", func(m *Method) { m.Layout, m.KVReuse, m.KVReuseTail = "stable", true, true }, ""},
		{"format", func(m *Method) { m.Format = "markdown" }, `--format "markdown"`},
		{"auto format with context", func(m *Method) { m.Format, m.InFile, m.Symbols = FormatAuto, true, true }, ""},
		{"negative budget", func(m *Method) { m.FileTokens = -1 }, "--file-tokens"},
		{"lookup mode", func(m *Method) { m.Lookup = "all" }, `--name-lookup "all"`},
		{"lookup for rawrag", func(m *Method) { m.Method, m.Lookup = generate.MethodRawRAG, "add" }, "--name-lookup is for ACToR"},
		{"lookup without inference", func(m *Method) { m.NoInference, m.Lookup = true, "only" }, "--name-lookup is for ACToR"},
	}
	if m := DefaultMethod(); m.Validate() != nil {
		t.Errorf("DefaultMethod: %v", m.Validate())
	}
	for _, c := range cases {
		m := actorMethod()
		c.edit(&m)
		err := m.Validate()
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// Resolved gives ACToR the measured levers unless Exact, where the
// switches are what was chosen, one lever at a time.
func TestResolved(t *testing.T) {
	type levers struct {
		layout                    string
		reuse, tail, skipComments bool
	}
	cases := []struct {
		name string
		edit func(*Method)
		want levers
	}{
		{"default", func(*Method) {}, levers{"stable", true, true, true}},
		{"exact", func(m *Method) { m.Exact = true }, levers{"ranked", false, false, false}},
		{"exact with one lever", func(m *Method) { m.Exact, m.Layout, m.KVReuse = true, "stable", true }, levers{"stable", true, false, false}},
		{"ranked layout with the other levers", func(m *Method) { m.Layout = "ranked" }, levers{"ranked", true, true, true}},
		{"no inference judges nothing", func(m *Method) { m.NoInference = true }, levers{"stable", true, true, false}},
		{"a baseline has none", func(m *Method) { m.Method = generate.MethodRawRAG }, levers{"ranked", false, false, false}},
	}
	for _, c := range cases {
		m := actorMethod()
		c.edit(&m)
		r := m.Resolved()
		if got := (levers{r.Layout, r.KVReuse, r.KVReuseTail, r.SkipComments}); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
		if err := r.Validate(); err != nil {
			t.Errorf("%s: resolved %+v: %v", c.name, r, err)
		}
	}
}

func TestGroups(t *testing.T) {
	a, b := &dataset.Task{ID: "a"}, &dataset.Task{ID: "b"}
	jobs := []Job{{a, 0}, {a, 1}, {b, 0}, {a, 2}, {b, 1}, {b, 2}}
	str := func(gs [][]Job) string {
		var parts []string
		for _, g := range gs {
			var s []string
			for _, j := range g {
				s = append(s, j.Task.ID+string(rune('0'+j.Sample)))
			}
			parts = append(parts, strings.Join(s, ","))
		}
		return strings.Join(parts, " | ")
	}
	if got, want := str(Groups(jobs, true)), "a0,a1 | b0 | a2 | b1,b2"; got != want {
		t.Errorf("batched %q, want %q", got, want)
	}
	if got, want := str(Groups(jobs, false)), "a0 | a1 | b0 | a2 | b1 | b2"; got != want {
		t.Errorf("one at a time %q, want %q", got, want)
	}
	if len(Groups(nil, true)) != 0 {
		t.Error("groups of nothing")
	}
}

// The runner on a two-task benchmark: pending samples skip the done ones,
// results carry the prediction record, a batch gives the samples one at a
// time gives, and a group may not mix tasks.
func TestRunnerGeneratesTheSameSamplesBatchedOrNot(t *testing.T) {
	t.Setenv("ACTOR_HOME", t.TempDir())
	data, repos := testsupport.CalcBenchmark(t)
	set, err := dataset.Load("repoexec", data)
	if err != nil {
		t.Fatal(err)
	}
	tasks := []*dataset.Task{&set.Tasks[0], &set.Tasks[1]}
	run := func(batch bool) []Result {
		m := DefaultMethod()
		m.Method, m.Samples, m.BatchSamples, m.Budget = generate.MethodRepoCoder, 2, batch, 200
		cfg := generate.DefaultConfig
		cfg.MaxNewTokens, cfg.Temperature = 6, 0.8
		p, err := Open(Options{Model: tinyModel, Engine: engine.Options{Threads: 1}, Method: m, Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		r := p.Runner(repos)
		method, _, err := r.Method(context.Background(), tasks[0])
		if err != nil || method != generate.MethodRepoCoder {
			t.Fatalf("method %q, %v", method, err)
		}
		done := map[string]bool{}
		jobs := r.Pending(tasks, 2, method, done)
		if len(jobs) != 4 {
			t.Fatalf("%d pending", len(jobs))
		}
		var out []Result
		for _, g := range Groups(jobs, batch) {
			res, err := r.Run(context.Background(), g)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range res {
				done[x.Prediction.Key()] = true
			}
			out = append(out, res...)
		}
		if left := r.Pending(tasks, 2, method, done); len(left) != 0 {
			t.Errorf("%d pending after all ran", len(left))
		}
		if _, err := r.Run(context.Background(), []Job{{tasks[0], 0}, {tasks[1], 0}}); err == nil {
			t.Error("a group of two tasks ran")
		}
		return out
	}
	one, batched := run(false), run(true)
	for i := range one {
		a, b := one[i].Prediction, batched[i].Prediction
		if a.Key() != b.Key() || a.Code != b.Code || a.Tokens != b.Tokens {
			t.Errorf("sample %d: %+v batched %+v", i, a, b)
		}
		if a.Model != "llama_gqa" || a.GoldTokens == 0 || a.Tokens == 0 || a.Seconds <= 0 {
			t.Errorf("record %+v", a)
		}
		if one[i].Sample.Trace.Model != a.Model {
			t.Errorf("trace model %q", one[i].Sample.Trace.Model)
		}
	}
}

func TestOpenRefusesBadInput(t *testing.T) {
	t.Setenv("ACTOR_HOME", t.TempDir())
	m := DefaultMethod()
	m.Layout = "x"
	if _, err := Open(Options{Model: tinyModel, Method: m}); err == nil || !strings.Contains(err.Error(), "--layout") {
		t.Errorf("bad layout: %v", err)
	}
	m = DefaultMethod()
	if _, err := Open(Options{Model: filepath.Join(t.TempDir(), "none.gguf"), Method: m}); err == nil {
		t.Error("missing model opened")
	}
	// ACToR without a probe for the model names where it looked.
	_, err := Open(Options{Model: tinyModel, Method: actorMethod(), Config: generate.DefaultConfig, Engine: engine.Options{Threads: 1}})
	if err == nil || !strings.Contains(err.Error(), "no probe for") {
		t.Errorf("no probe: %v", err)
	}
}

// ACToR without --exact adds the default context; --exact, --no-context
// and the baselines keep the authors' prompts unless their switches say
// otherwise; a switch given wins over the default.
func TestResolvedContext(t *testing.T) {
	type ctx struct {
		format                 string
		inFile, symbols, guard bool
	}
	cases := []struct {
		name string
		edit func(*Method)
		want ctx
	}{
		{"default (RawPrompt)", func(*Method) {}, ctx{FormatAuto, true, false, true}},
		{"ACToR", func(m *Method) { m.Method = generate.MethodACToR }, ctx{FormatAuto, true, false, true}},
		{"exact", func(m *Method) { m.Method, m.Exact = generate.MethodACToR, true }, ctx{"", false, false, false}},
		{"exact with file code", func(m *Method) { m.Method, m.Exact, m.InFile = generate.MethodACToR, true, true }, ctx{"", true, false, false}},
		{"no context", func(m *Method) { m.NoContext = true }, ctx{"", false, false, false}},
		{"ACToR, no context", func(m *Method) { m.Method, m.NoContext = generate.MethodACToR, true }, ctx{"", false, false, false}},
		{"no context, switches given", func(m *Method) { m.NoContext, m.Format, m.Symbols = true, "authors", true }, ctx{"authors", false, true, false}},
		{"a format given", func(m *Method) { m.Format = "repo" }, ctx{"repo", true, false, true}},
		{"symbols given", func(m *Method) { m.Symbols = true }, ctx{FormatAuto, true, true, true}},
		{"a baseline", func(m *Method) { m.Method = generate.MethodRawRAG }, ctx{FormatAuto, true, false, true}},
	}
	for _, c := range cases {
		m := DefaultMethod()
		c.edit(&m)
		r := m.Resolved()
		if got := (ctx{r.Format, r.InFile, r.Symbols, r.IndentGuard}); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
