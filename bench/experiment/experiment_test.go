package experiment

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"actor/bench/results"
	"actor/generate"
	"actor/internal/testsupport"
	"actor/models"
)

// execute runs the plan with a fresh fake actor and returns its calls.
func execute(t *testing.T, p *Plan, failAt int) ([][]string, error) {
	t.Helper()
	f := &fakeActor{failAt: failAt}
	err := p.Execute(context.Background(), f.exec, io.Discard)
	return f.calls, err
}

func contains(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

func TestPlans(t *testing.T) {
	s := settings(t)
	for name, want := range map[string]struct {
		commands int
		has      []string
	}{
		"table1":      {10, []string{"run --benchmark repoexec --data " + s.Data + " --repos REPOS --model " + s.Model + " --temperature 0.6 --seed 0 --trace --no-eval --method rlcoder --no-context -n 2 --out " + s.Out + "/runs/rlcoder --task 1,2,3", "bench run --benchmark repoexec --data " + s.Data + " --repos REPOS --predictions " + s.Out + "/runs/actor/predictions.jsonl"}},
		"cost":        {10, []string{"--method rawprompt --no-context -n 2"}},
		"ablations":   {4 + 6 + 6, []string{"probe train --labels LABELS --out " + s.Out + "/probes/no-mismatch.probe --no-mismatch", "--method actor --exact --probe " + s.Out + "/probes/no-attention.probe --name actor-no-attention", "--method actor --exact --no-inference", "--mean-pool", "probe train --labels LABELS --out " + s.Out + "/probes/all-rules.probe"}},
		"sensitivity": {2 + 2 + 2, []string{"probe train --labels LABELS --out " + s.Out + "/probes/grid-e0.8-i0.05.probe --entropy 0.8 --influence 0.05", "--probe " + s.Out + "/probes/grid-e0.6-i0.05.probe --name actor-grid-e0.6-i0.05"}},
		"trigger":     {4, []string{"--method actor --exact --entropy-trigger EQUAL_RATE -n 2 --out " + s.Out + "/runs/actor-entropy"}},
	} {
		p, err := New(name, s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cmds := p.Commands()
		var lines []string
		for _, c := range cmds {
			lines = append(lines, Quote(c))
		}
		if len(cmds) != want.commands {
			t.Errorf("%s: %d commands, want %d:\n%s", name, len(cmds), want.commands, strings.Join(lines, "\n"))
		}
		contains(t, name+" plan", strings.Join(lines, "\n"), want.has...)
	}
	bad := s
	bad.Labels = ""
	if _, err := New("ablations", bad); err == nil || !strings.Contains(err.Error(), "--labels DIR is required") {
		t.Errorf("ablations without labels: %v", err)
	}
	if _, err := New("table2", s); err == nil || !strings.Contains(err.Error(), "no experiment") {
		t.Errorf("unknown experiment: %v", err)
	}
}

// --only keeps the named configurations and the probes they read; the
// reference stays, and a name the experiment lacks is refused.
func TestOnly(t *testing.T) {
	s := settings(t)
	s.Only = []string{"rawrag", "actor"}
	p, err := New("table1", s)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range p.Runs {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"rawrag", "actor"}) || !strings.Contains(p.cuts(), "only the configurations rawrag, actor") {
		t.Errorf("table1 --only rawrag,actor: runs %v, cuts %q", names, p.cuts())
	}
	s.Only = []string{"actor", "actor-no-mismatch"}
	if p, err = New("ablations", s); err != nil {
		t.Fatal(err)
	}
	var probes []string
	for _, j := range p.Probes {
		probes = append(probes, j.Name)
	}
	if len(p.Runs) != 2 || !slices.Equal(probes, []string{"all-rules", "no-mismatch"}) {
		t.Errorf("ablations --only actor,actor-no-mismatch: %d runs, probes %v", len(p.Runs), probes)
	}
	for only, want := range map[string]string{"rawrag": "must keep actor", "actor,rawrg": "--only rawrg: no such configuration"} {
		s.Only = strings.Split(only, ",")
		if _, err := New("table1", s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--only %s: %v, want %q", only, err, want)
		}
	}
}

func TestVariants(t *testing.T) {
	v, err := ParseVariant("stable-reuse= --layout stable  --kv-reuse ")
	if err != nil || v.Name != "stable-reuse" || !slices.Equal(v.Args, []string{"--layout", "stable", "--kv-reuse"}) {
		t.Fatalf("ParseVariant: %+v %v", v, err)
	}
	for _, bad := range []string{"stable", "=--kv-reuse", "x=", "a/b=--kv-reuse", "p=--probe other.probe", "n=--name x", "e=--exact --kv-reuse"} {
		if _, err := ParseVariant(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	s := settings(t)
	s.Variants = []Variant{v}
	p, err := New("table1", s)
	if err != nil {
		t.Fatal(err)
	}
	last := p.Runs[len(p.Runs)-1]
	want := []string{"--method", "actor", "--exact", "--probe", s.Probe, "--name", "actor-stable-reuse", "--layout", "stable", "--kv-reuse"}
	if len(p.Runs) != 6 || last.Name != "actor-stable-reuse" || last.Label != "ACToR stable-reuse" || !slices.Equal(last.args(), want) {
		t.Errorf("variant run %+v of %d", last, len(p.Runs))
	}
	if _, err := New("trigger", s); err == nil || !strings.Contains(err.Error(), "--variant is for table1 and cost") {
		t.Errorf("trigger with a variant: %v", err)
	}
}

func TestTable1RunsInTurnsResumesAndReports(t *testing.T) {
	s := settings(t)
	p, _ := New("table1", s)
	calls, err := execute(t, p, -1)
	if err != nil {
		t.Fatal(err)
	}
	// Two turns (tasks 1–2, then 3) over the five methods, then five tests.
	if len(calls) != 15 {
		t.Fatalf("%d calls", len(calls))
	}
	for i, c := range calls[:10] {
		wantTasks := map[bool]string{true: "1,2", false: "3"}[i < 5]
		if c[0] != "run" || flag(c, "--task") != wantTasks || flag(c, "--out") != p.RunDir(p.Runs[i%5].Name) {
			t.Errorf("call %d: %q", i, c)
		}
	}
	// Each test reuses the outcomes of the configurations tested before it.
	for i, c := range calls[10:] {
		own := filepath.Join(p.RunDir(p.Runs[i].Name), "eval")
		if c[0] != "bench" || flag(c, "--out") != own || strings.Count(strings.Join(c, " "), "--reuse") != i {
			t.Errorf("test %d: %q", i, c)
		}
		for j, a := range c {
			if a == "--reuse" && (c[j+1] == own || !strings.HasPrefix(c[j+1], filepath.Join(s.Out, "runs"))) {
				t.Errorf("test %d reuses %s", i, c[j+1])
			}
		}
	}
	summary, _ := os.ReadFile(filepath.Join(p.RunDir("actor"), "eval", results.SummaryMD))
	if string(summary) != "data: "+filepath.Join("data", "tasks.jsonl")+"\n" {
		t.Errorf("eval summary %q names a path of this machine", summary)
	}
	if m, err := results.ReadMeta(filepath.Join(p.RunDir("actor"), "eval")); err != nil || m.Data != filepath.Join("data", "tasks.jsonl") {
		t.Errorf("eval run.json: data %q (%v) names a path of this machine", m.Data, err)
	}
	if again, err := execute(t, p, -1); err != nil || len(again) != 0 {
		t.Fatalf("second run made %d calls (%v): %q", len(again), err, again)
	}
	if err := p.Render(ThisMachine()); err != nil {
		t.Fatal(err)
	}
	rep, _ := os.ReadFile(filepath.Join(p.ReportDir(), "report.md"))
	// ACToR passes every sample, the baselines none: won 3 of 3 tasks,
	// sign test p = 2·(½)³ = 0.25.
	contains(t, "report.md", string(rep), "| ACToR | 3 | 6 | 0 | 100.00 [100.00, 100.00] |", "| RawPrompt | 3 | 6 | 3 | 0.00 [0.00, 0.00] |",
		"| RawPrompt | +100.00 [+100.00, +100.00] | – | 3 | 0 | 0 | 0.25 |", "![table1.png](table1.png)",
		// Samples 0 changed context (3 changes, 3 triggers; ACToR passed 3,
		// RawRAG 0: 3 won, p = 0.25); samples 1 are RawRAG's code, one of
		// them from other first blocks.
		"## Where ACToR departs from RawRAG", "| ACToR: with a context change (3 changes, 3 of them the same blocks reordered; 3 triggers) | 3 | 3 / 0 | 3 / 0 | 0.25 |",
		"| ACToR: no change, RawRAG's first blocks (2 wrote RawRAG's code) | 2 | 2 / 0 | 2 / 0 | 0.5 |",
		"| ACToR: no change, other first blocks | 1 | 1 / 0 | 1 / 0 | 1 |",
		"| configuration | alpha: 2 | beta: 1 |", "| ACToR | 100.00 | 100.00 |", "| RawPrompt | 0.00 | 0.00 |",
		"## Where the probe fires", "| ACToR | 0.0 % (0) | 100.0 % (3) | 0.0 % (0) | 0.0 % (0) | 0.0 % (0) |")
	testsupport.CheckPNG(t, filepath.Join(p.ReportDir(), "table1.png"), 300)
	readme, _ := os.ReadFile(filepath.Join(p.ReportDir(), "README.md"))
	sum, _ := models.SHA256File(s.ModelFile)
	contains(t, "README.md", string(readme), "actor experiment x", "3 of the 5 in the data", "holds them whole): alpha a0123456789a, beta b0123456789a\n", "n = 2 instead of 5", sum,
		"| ACToR | runs/actor | 6 of 6 | 6 |", "actor run --benchmark repoexec", "logical cores")
	// The same folder with other flags is refused before anything runs.
	other := s
	other.Temperature = 0.2
	q, _ := New("table1", other)
	if calls, err := execute(t, q, -1); err == nil || len(calls) != 0 || !strings.Contains(err.Error(), "holds samples made with other flags") {
		t.Errorf("other temperature: %d calls, %v", len(calls), err)
	}
}

// A results folder moved to another machine, where the data and the
// repositories lie elsewhere, continues; other data in a folder of the
// same name is refused, and so are another probe and other sources.
func TestRunFoldersMoveWithTheirResults(t *testing.T) {
	s := settings(t)
	p, _ := New("table1", s)
	if _, err := execute(t, p, -1); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	out := filepath.Join(elsewhere, "results")
	if err := os.Rename(s.Out, out); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(elsewhere, "shared", "repoexec-dev")
	os.MkdirAll(data, 0o755)
	tasks, _ := os.ReadFile(filepath.Join(s.Data, "tasks.jsonl"))
	os.WriteFile(filepath.Join(data, "tasks.jsonl"), tasks, 0o644)
	moved := s
	moved.Out, moved.Data, moved.Repos = out, data, "../elsewhere/REPOS"
	q, _ := New("table1", moved)
	if calls, err := execute(t, q, -1); err != nil || len(calls) != 0 {
		t.Fatalf("moved folder: %d calls, %v", len(calls), err)
	}
	os.WriteFile(filepath.Join(data, "tasks.jsonl"), append(tasks, tasks...), 0o644)
	if calls, err := execute(t, q, -1); err == nil || len(calls) != 0 || !strings.Contains(err.Error(), "other benchmark data") {
		t.Errorf("other data: %d calls, %v", len(calls), err)
	}
	os.WriteFile(filepath.Join(data, "tasks.jsonl"), tasks, 0o644)
	probeBytes, _ := os.ReadFile(moved.Probe)
	os.WriteFile(moved.Probe, []byte("another probe"), 0o644)
	if calls, err := execute(t, q, -1); err == nil || len(calls) != 0 || !strings.Contains(err.Error(), "another probe") {
		t.Errorf("other probe: %d calls, %v", len(calls), err)
	}
	// The projects laid out otherwise (beta without its tests/): refused,
	// naming the project; a project the record has not seen is added.
	os.WriteFile(moved.Probe, probeBytes, 0o644)
	relaid := moved
	relaid.Sources = map[string]string{"alpha": s.Sources["alpha"], "beta": "b-without-tests", "gamma": "g1"}
	r, _ := New("table1", relaid)
	if calls, err := execute(t, r, -1); err == nil || len(calls) != 0 || !strings.Contains(err.Error(), "retrieved from other sources (beta SHA-256 b0123456789a, now b-without-te, under") {
		t.Errorf("other sources: %d calls, %v", len(calls), err)
	}
	relaid.Sources["beta"] = s.Sources["beta"]
	r, _ = New("table1", relaid)
	if calls, err := execute(t, r, -1); err != nil || len(calls) != 0 {
		t.Fatalf("a new project: %d calls, %v", len(calls), err)
	}
	rec, _ := os.ReadFile(filepath.Join(r.RunDir("actor"), configFile))
	if !strings.Contains(string(rec), `"gamma": "g1"`) || !strings.Contains(string(rec), `"beta": "b0123456789abcdef"`) {
		t.Errorf("record:\n%s", rec)
	}
}

// A run folder recorded with absolute paths and no data digest (before
// records were portable) is accepted and rewritten in the portable form.
func TestOldRunRecordIsRewritten(t *testing.T) {
	s := settings(t)
	p, _ := New("table1", s)
	r := p.Runs[0]
	old, _ := json.Marshal(runConfig{Key: p.key(r)})
	os.MkdirAll(p.RunDir(r.Name), 0o755)
	file := filepath.Join(p.RunDir(r.Name), configFile)
	os.WriteFile(file, old, 0o644)
	if err := p.claim(r); err != nil {
		t.Fatal(err)
	}
	var now runConfig
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &now); err != nil || now.DataSHA256 == "" || strings.Contains(string(b), s.Out) ||
		flag(now.Key, "--data") != "repoexec-dev" || flag(now.Key, "--model") != "m.gguf" {
		t.Errorf("rewritten record: %s (%v)", b, err)
	}
}

// A run folder recorded before ACToR took its levers by default (version
// 0, when --method actor was the exact ACToR) is read as --exact and
// rewritten; a version-1 record without --exact is another configuration.
func TestVersion0RecordMeansExactACToR(t *testing.T) {
	s := settings(t)
	p, _ := New("table1", s)
	var r Run
	for _, x := range p.Runs {
		if x.Name == p.Reference {
			r = x
		}
	}
	key := portableKey(p.key(r))
	i := slices.Index(key, "--exact")
	if i < 0 || key[i-1] != "actor" {
		t.Fatalf("ACToR's key %q has no --exact after --method actor", key)
	}
	before := slices.Delete(slices.Clone(key), i, i+1)
	file, write := recordWriter(p, r)
	write(runConfig{Key: before})
	if err := p.claim(r); err != nil {
		t.Fatal(err)
	}
	var now runConfig
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &now); err != nil || now.Version != keyVersion || !slices.Equal(now.Key, key) {
		t.Errorf("rewritten record: %s (%v)", b, err)
	}
	write(runConfig{Key: before, Version: 1})
	if err := p.claim(r); err == nil || !strings.Contains(err.Error(), "other flags") {
		t.Errorf("a version-1 record without --exact: %v", err)
	}
}

// Batched samples are shared between experiments only at equal lanes:
// the ablations at n = 1 get their own reference beside Table I's batched
// n = 5; a folder refuses other lanes; one lane is the same samples
// batched or not; a record from before lanes (--batch-samples in its key)
// adopts them.
func TestBatchedSamplesShareFoldersAtEqualLanes(t *testing.T) {
	s := settings(t)
	s.RunArgs, s.N = []string{"--batch-samples"}, DefaultSamples
	table1, _ := New("table1", s)
	one := s
	one.N = 1
	abl, _ := New("ablations", one)
	if table1.Reference != "actor" || abl.Reference != "actor-n1" || abl.Runs[0].Name != "actor-n1" {
		t.Fatalf("references: table1 %s, ablations at n = 1 %s (first run %s)", table1.Reference, abl.Reference, abl.Runs[0].Name)
	}
	unbatched := one
	unbatched.RunArgs = nil
	if p, _ := New("ablations", unbatched); p.Reference != "actor" {
		t.Errorf("unbatched ablations: reference %s, want actor (sample 0 is the same at any n)", p.Reference)
	}
	rawprompt := table1.Runs[0]
	if err := table1.claim(rawprompt); err != nil {
		t.Fatal(err)
	}
	three := s
	three.N = 3
	other, _ := New("table1", three)
	if err := other.claim(rawprompt); err == nil || !strings.Contains(err.Error(), "decoded 5 side by side, not 3") {
		t.Errorf("claim at other lanes: %v", err)
	}
	ablRef := abl.Runs[0]
	if err := abl.claim(ablRef); err != nil {
		t.Fatal(err)
	}
	same := unbatched
	same.Probe = s.Probe
	if p, _ := New("table1", same); p.claim(Run{Name: "actor-n1", Spec: ablRef.Spec}) != nil {
		t.Errorf("unbatched n = 1 refused a batched n = 1 folder: %v", p.claim(Run{Name: "actor-n1", Spec: ablRef.Spec}))
	}
	// A version-1 record: --batch-samples in the key, no lanes.
	file := filepath.Join(table1.RunDir(rawprompt.Name), configFile)
	want, _ := table1.identity(rawprompt)
	old := want
	old.Key = append(slices.Clone(want.Key[:slices.Index(want.Key, "--method")]), "--batch-samples", "--method", "rawprompt")
	old.Lanes, old.Version = 0, 1
	b, _ := json.Marshal(old)
	os.WriteFile(file, b, 0o644)
	if err := other.claim(rawprompt); err != nil {
		t.Fatalf("a record without lanes: %v", err)
	}
	var now runConfig
	b, _ = os.ReadFile(file)
	if err := json.Unmarshal(b, &now); err != nil || now.Lanes != 3 || now.Version != keyVersion || !slices.Equal(now.Key, want.Key) {
		t.Errorf("rewritten record: %s (%v)", b, err)
	}
}

func TestInterruptedExperimentContinues(t *testing.T) {
	p, _ := New("table1", settings(t))
	if _, err := execute(t, p, 1); err == nil || !strings.Contains(err.Error(), "rawrag: killed") {
		t.Fatalf("interrupted: %v", err)
	}
	calls, err := execute(t, p, -1)
	if err != nil {
		t.Fatal(err)
	}
	// RawPrompt's first turn was done: the first call is RawRAG's.
	if len(calls) != 14 || flag(calls[0], "--method") != "rawrag" || flag(calls[0], "--task") != "1,2" {
		t.Errorf("resumed with %d calls, first %q", len(calls), calls[0])
	}
}

func TestTriggerSetsAnEqualRate(t *testing.T) {
	p, _ := New("trigger", settings(t))
	calls, err := execute(t, p, -1)
	if err != nil {
		t.Fatal(err)
	}
	// The probe fired at 1 of 4 judged tokens (entropies 0.5, 1, 1.5, 2) in
	// each of 6 samples: 6 of 24 fire when the threshold lies between the
	// sixth and seventh largest entropies, 2 and 1.5.
	if len(calls) != 6 || flag(calls[2], "--entropy-trigger") != "1.75" || flag(calls[2], "--out") != p.RunDir("actor-entropy") {
		t.Fatalf("calls %q", calls)
	}
	// Again: the recorded threshold, nothing to run.
	q, _ := New("trigger", p.Settings)
	if again, err := execute(t, q, -1); err != nil || len(again) != 0 || q.entropyThreshold() != "1.75" {
		t.Fatalf("again: %d calls, %v, threshold %s", len(again), err, q.entropyThreshold())
	}
	if err := q.Render(ThisMachine()); err != nil {
		t.Fatal(err)
	}
	rep, _ := os.ReadFile(filepath.Join(q.ReportDir(), "report.md"))
	// Entropy run: sample 1 of 2 passes on each task: pass@1 50 %.
	contains(t, "report.md", string(rep), "Entropy threshold: 1.75 nats.", "| ACToR, entropy trigger | 3 | 6 | 0 | 50.00 [50.00, 50.00] |",
		"| ACToR, entropy trigger | +50.00 [+50.00, +50.00] | +100.0 % | 3 | 0 | 0 | 0.25 |",
		"## What the context changes brought\n\nNot computed: ")
	testsupport.CheckPNG(t, filepath.Join(q.ReportDir(), "trigger.png"), 300)
}

func TestSensitivityAblationsAndCostReports(t *testing.T) {
	s := settings(t)
	for name, wants := range map[string][]string{
		"sensitivity": {"| pass@1 %: entropy ≥ ↓, influence ≥ → | 0.05 |", "| 0.6 | 100.00 |", "| flag rate %: entropy ≥ ↓, influence ≥ → | 0.05 |",
			"| 0.8 | 66.67 |", "| 0.8 | 25.00 |", "Over 2 cells: mean 83.33, standard deviation 23.57",
			"## Tasks across the cells\n\n| task | cells with a pass | distinct codes |\n|---|---:|---:|\n| 1 | 2 of 2 | 2 |",
			"| 3 | 1 of 2 | 2 |\n\nOf the 3 tasks tested, 2 pass in every cell that tested them, 0 in none and 1 in some",
			// From the probe files; the 0.8 cell's is removed before rendering.
			"| critical labels %: entropy ≥ ↓, influence ≥ → | 0.05 |\n|---|---:|\n| 0.6 | 60.00 |\n| 0.8 | – |",
			"| held-out flag rate %: entropy ≥ ↓, influence ≥ → | 0.05 |\n|---|---:|\n| 0.6 | 10.00 |\n| 0.8 | – |"},
		"ablations": {"## Table III: labelling rules", "| ACToR w/o mismatch | 3 | 6 | 0 | 100.00 [100.00, 100.00] |",
			"## Table IV: modules", "| ACToR w/o critical-token inference | +0.00 [+0.00, +0.00] | +0.0 % | 0 | 0 | 3 | 1 |"},
		// Per token: prefill 10/4, decode 40/4 of which probe 2/4, retrieval
		// 4/4 and re-prefill 8/4; plain (40-14)/4.
		"context": {"| RawPrompt + file vs | Δ pass@1", "| RawPrompt, FIM + file + symbols |", "## Against the best configuration",
			"| configuration | prompt tokens (mean per attempt) | prefill s/sample |",
			"| ACToR, FIM + file + symbols + name lookup |"},
		"cost": {"| ACToR | 6 | 4.0 | 1.00 | 2.5 | 10.0 | 6.5 | 0.50 | 1.0 | 2.0 | 1.00 | 0.00 | 25.00 % |",
			"| RawRAG | 6 | 4.0 | 1.00 | 2.5 | 10.0 | 10.0 | 0.00 | 0.0 | 0.0 | 0.00 | 0.00 | 0.00 % |"},
	} {
		p, err := New(name, s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := execute(t, p, -1); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "sensitivity" {
			os.Remove(p.ProbeFile("grid-e0.8-i0.05"))
		}
		if err := p.Render(ThisMachine()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rep, _ := os.ReadFile(filepath.Join(p.ReportDir(), "report.md"))
		contains(t, name+"/report.md", string(rep), wants...)
		ents, _ := os.ReadDir(p.ReportDir())
		var pngs []string
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".png") {
				pngs = append(pngs, e.Name())
				testsupport.CheckPNG(t, filepath.Join(p.ReportDir(), e.Name()), 300)
			}
		}
		if len(pngs) == 0 || !slices.ContainsFunc(pngs, func(n string) bool {
			return strings.HasPrefix(n, map[string]string{"sensitivity": "sensitivity", "ablations": "ablations", "cost": "cost", "context": "context"}[name])
		}) {
			t.Errorf("%s figures %v", name, pngs)
		}
	}
}

func TestEqualRateThreshold(t *testing.T) {
	ents := []float64{0.1, 0.5, 0.9, 1.3, 2.0}
	for rate, want := range map[float64]float64{0.4: 1.1, 0.2: 1.65, 1: 0.1, 0: 3.0} {
		if got, err := EqualRateThreshold(ents, rate); err != nil || got != want {
			t.Errorf("rate %v: %v %v, want %v", rate, got, err, want)
		}
	}
	if _, err := EqualRateThreshold(nil, 0.1); err == nil {
		t.Error("no entropies: no error")
	}
}

// Paths under the working folder and beside it are written relative to
// it; others stay as they are.
func TestPortablePaths(t *testing.T) {
	root := t.TempDir()
	wd := filepath.Join(root, "checkout")
	os.MkdirAll(wd, 0o755)
	t.Chdir(wd)
	in := "--out " + wd + "/results/x --data " + root + "/shared/data --repos /elsewhere/data " + root + "other"
	want := "--out results/x --data ../shared/data --repos /elsewhere/data " + root + "other"
	if got := string(portable([]byte(in))); got != want {
		t.Errorf("portable:\n%s\nwant\n%s", got, want)
	}
}

// A README names the repositories and the data outside the working folder
// as DIR and DATA, a folder under them relative to those, and leaves a
// longer name and the checkout's own data alone.
func TestPlaceholders(t *testing.T) {
	root := t.TempDir()
	wd := filepath.Join(root, "checkout")
	os.MkdirAll(wd, 0o755)
	t.Chdir(wd)
	p := &Plan{Settings: Settings{Repos: root + "/data", Data: root + "/shared/tasks"}}
	in := "--repos " + root + "/data --data '" + root + "/shared/tasks'\nrepositories " + root + "/data, " +
		root + "/data/test-apps/x.py " + root + "/data2 " + root + "/data"
	want := "--repos DIR --data 'DATA'\nrepositories DIR, DIR/test-apps/x.py " + root + "/data2 DIR"
	if got := string(p.placeholders([]byte(in))); got != want {
		t.Errorf("placeholders:\n%s\nwant\n%s", got, want)
	}
	p.Settings.Data = wd + "/testdata/tasks"
	if in := "--data " + p.Settings.Data; string(p.placeholders([]byte(in))) != in {
		t.Errorf("the checkout's own data was replaced: %s", p.placeholders([]byte(in)))
	}
}

// Critical tokens by where they stand, worked by hand.
func TestTokenKind(t *testing.T) {
	for _, c := range []struct{ prefix, tok, want string }{
		{"    ", " #", kindComment},
		{"    # Check", " if", kindComment},
		{"    ", " if", kindStatement},
		{"", "return", kindStatement},
		{"    x = ", " parts", kindName},
		{"    x = foo.", "_p", kindName},
		{"    if x ", " not", kindKeyword},
		{"    x = ", " '@", kindOther},
		{"    x = ", " 42", kindOther},
		{"    x = y ", " !=", kindOther},
	} {
		if got := tokenKind(c.prefix, c.tok); got != c.want {
			t.Errorf("tokenKind(%q, %q) = %q, want %q", c.prefix, c.tok, got, c.want)
		}
	}
	// A sample: "    # Check\n    if x:" with critical tokens at " Check"
	// (changing the context: the dropped token counts) and " if".
	tr := generate.Trace{Attempts: []generate.Attempt{{Events: []generate.TokenEvent{
		{Text: "    #"}, {Text: " Look", Critical: true, Changed: true, Dropped: &generate.TokenRef{Text: " Check"}},
		{Text: "\n"}, {Text: "    "}, {Text: " if", Critical: true}, {Text: " x"}, {Text: ":"}}}}}
	crit, changed := map[string]int{}, map[string]int{}
	tokenKinds(tr, crit, changed)
	if crit[kindComment] != 1 || crit[kindStatement] != 1 || changed[kindComment] != 1 || len(changed) != 1 {
		t.Errorf("critical %v, changed %v", crit, changed)
	}
}

// TestReadmeNamesRecordedProbes: trained probes are not committed, so a
// results folder rendered where they are missing names each probe by the
// SHA-256 its run folder recorded.
func TestReadmeNamesRecordedProbes(t *testing.T) {
	p, _ := New("ablations", settings(t))
	if _, err := execute(t, p, -1); err != nil {
		t.Fatal(err)
	}
	file := p.ProbeFile("no-mismatch")
	sum, err := models.SHA256File(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := p.Render(ThisMachine()); err != nil {
		t.Fatal(err)
	}
	readme, _ := os.ReadFile(filepath.Join(p.ReportDir(), "README.md"))
	contains(t, "README.md", string(readme), "no-mismatch.probe (trained: ", "SHA-256 "+sum+" (as runs/actor-no-mismatch recorded it")
}

// A grid cell shows pass@k only once every task of it is tested: a task
// not tested yet would count as a failure.
func TestPassValueWaitsForAllTasks(t *testing.T) {
	recs := []results.Record{{TaskID: "1", Sample: 0, Method: "actor", Model: "m", Passed: true, Status: results.StatusPassed}}
	partial := results.Aggregate(recs, []string{"1", "2"})[0]
	whole := results.Aggregate(recs, []string{"1"})[0]
	if v := passValue(1)(row{g: &partial}); !math.IsNaN(v) {
		t.Errorf("task 2 untested: pass@1 %v, want –", v)
	}
	if v := passValue(1)(row{g: &whole}); v != 100 {
		t.Errorf("every task tested: pass@1 %v, want 100", v)
	}
}

// A version-2 record of ACToR over the default context of its day (no
// --exact, no --no-context: --in-file --symbols added) is read as the same
// switches with --no-context and rewritten; a version-3 record without
// --no-context is another configuration.
func TestVersion2RecordMeansOldDefaultContext(t *testing.T) {
	checkOldRecord(t, "actor-file-sym", []string{"--no-context", "--symbols"}, 2, 3)
}

// A version-3 record of a baseline (no --no-context: until version 4 the
// baselines showed only what their switches said) is read as the same
// switches with --no-context and rewritten; a version-4 record without
// --no-context is another configuration (the default context).
func TestVersion3BaselineRecordMeansNoContext(t *testing.T) {
	checkOldRecord(t, contextReference, []string{"--no-context"}, 3, 4)
}

// checkOldRecord writes the context experiment's run name a record whose
// key lacks the flags dropped, once at version old, which claim must read
// as today's key and rewrite, and once at version newer, which claim must
// refuse.
func checkOldRecord(t *testing.T, name string, dropped []string, old, newer int) {
	t.Helper()
	p, _ := New("context", settings(t))
	var r Run
	for _, x := range p.Runs {
		if x.Name == name {
			r = x
		}
	}
	key := portableKey(p.key(r))
	for _, f := range dropped {
		if !slices.Contains(key, f) {
			t.Fatalf("%s's key %q has no %s", name, key, f)
		}
	}
	before := slices.DeleteFunc(slices.Clone(key), func(a string) bool { return slices.Contains(dropped, a) })
	file, write := recordWriter(p, r)
	write(runConfig{Key: before, Version: old})
	if err := p.claim(r); err != nil {
		t.Fatal(err)
	}
	var now runConfig
	b, _ := os.ReadFile(file)
	if err := json.Unmarshal(b, &now); err != nil || now.Version != keyVersion || !slices.Equal(now.Key, key) {
		t.Errorf("rewritten record: %s (%v), want key %q", b, err, key)
	}
	write(runConfig{Key: before, Version: newer})
	if err := p.claim(r); err == nil || !strings.Contains(err.Error(), "other flags") {
		t.Errorf("a version-%d record without %v: %v", newer, dropped, err)
	}
}

// recordWriter returns run r's record file and a function writing c there
// with the run's current data and probe digests (what an older actor
// would have recorded besides the key and version).
func recordWriter(p *Plan, r Run) (string, func(runConfig)) {
	file := filepath.Join(p.RunDir(r.Name), configFile)
	os.MkdirAll(p.RunDir(r.Name), 0o755)
	return file, func(c runConfig) {
		want, _ := p.identity(r)
		c.DataSHA256, c.ProbeSHA256 = want.DataSHA256, want.ProbeSHA256
		b, _ := json.Marshal(c)
		os.WriteFile(file, b, 0o644)
	}
}
