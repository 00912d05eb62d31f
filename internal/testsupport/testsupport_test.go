package testsupport

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeTB records what a helper did to its test: skipped or failed (both
// end the calling goroutine, as testing.T does) with which message.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fakeTB) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }

// run calls fn with a fakeTB in a goroutine of its own and returns it.
func run(fn func(tb testing.TB)) *fakeTB {
	f := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f
}

func TestMissingSkipsUnlessRequired(t *testing.T) {
	const env = "ACTOR_REQUIRE_TESTSUPPORT_SELF"
	t.Setenv(env, "")
	f := run(func(tb testing.TB) { Missing(tb, env, "no %s", "x") })
	if f.failed != "" || f.skipped != "no x ("+env+"=1 makes this a failure)" {
		t.Errorf("unset: skipped %q, failed %q", f.skipped, f.failed)
	}
	t.Setenv(env, "1")
	f = run(func(tb testing.TB) { Missing(tb, env, "no %s", "x") })
	if f.skipped != "" || f.failed != env+"=1 and no x" {
		t.Errorf("required: skipped %q, failed %q", f.skipped, f.failed)
	}
	f = run(func(tb testing.TB) { Missing(tb, "", "no %s", "x") })
	if f.failed != "" || f.skipped != "no x" {
		t.Errorf("no variable: skipped %q, failed %q", f.skipped, f.failed)
	}
}

func TestNeedFile(t *testing.T) {
	t.Setenv(RequireVocab, "1")
	p := WriteFile(t, t.TempDir(), "a/b.txt", "x")
	if got := NeedFile(t, p, RequireVocab, "hint"); got != p {
		t.Errorf("NeedFile = %q, want %q", got, p)
	}
	f := run(func(tb testing.TB) { NeedFile(tb, p+".none", RequireVocab, "run the script") })
	if !strings.Contains(f.failed, "b.txt.none is missing: run the script") {
		t.Errorf("missing required file: failed %q, skipped %q", f.failed, f.skipped)
	}
}

// TestModelRequirement looks models up in an empty actor home: a model CI
// pulls fails under its variable, another model only skips.
func TestModelRequirement(t *testing.T) {
	t.Setenv("ACTOR_HOME", t.TempDir())
	t.Setenv(RequireModels, "1")
	t.Setenv(RequireMiniLM, "")
	for _, c := range []struct {
		name       string
		wantFailed bool
	}{
		{"smollm2-135m", true}, {"qwen2.5-coder-0.5b", true}, {"all-minilm-l6-v2", false},
		{"qwen2.5-coder-1.5b", true}, {"no-such-model", true},
	} {
		f := run(func(tb testing.TB) { Model(tb, c.name) })
		if (f.failed != "") != c.wantFailed || (f.failed == "") == (f.skipped == "") {
			t.Errorf("%s: failed %q, skipped %q", c.name, f.failed, f.skipped)
		}
	}
	if VocabDir() == "" || filepath.Base(VocabDir()) != "vocab" {
		t.Errorf("VocabDir = %q", VocabDir())
	}
}

func TestWriteTree(t *testing.T) {
	dir := WriteTree(t, filepath.Join(t.TempDir(), "repo"), map[string]string{"a.py": "A", "pkg/sub/b.py": "B"})
	for rel, want := range map[string]string{"a.py": "A", "pkg/sub/b.py": "B"} {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v", rel, got, err)
		}
	}
}

func TestMaxAbsDiff(t *testing.T) {
	if d := MaxAbsDiff([]float32{1, -2, 3}, []float32{1.5, 2, 3}); d != 4 {
		t.Errorf("MaxAbsDiff = %g, want 4", d)
	}
	if d := MaxAbsDiff(nil, nil); d != 0 {
		t.Errorf("empty: %g", d)
	}
	if d := MaxAbsDiff([]float32{1}, []float32{1, 2}); !math.IsInf(d, 1) {
		t.Errorf("lengths differ: %g, want +Inf", d)
	}
}

func TestFixtures(t *testing.T) {
	for _, rel := range []string{TinyModels + "/llama_gqa.gguf", TinyBERT + "/config.json", TinyRoBERTa + "/vocab.json"} {
		if p := Fixture(t, rel); !filepath.IsAbs(p) {
			t.Errorf("%s: %q is not absolute", rel, p)
		}
	}
	f := run(func(tb testing.TB) { Fixture(tb, "engine/testdata/none.json") })
	if !strings.Contains(f.failed, "none.json") {
		t.Errorf("missing fixture: failed %q", f.failed)
	}
	for _, name := range GreedyModels {
		g := LoadGreedy(t, name)
		if g.Model != name || len(g.Cases) == 0 || len(g.Cases[0].PromptIDs) == 0 {
			t.Errorf("%s: %+v", name, g)
		}
	}
}
