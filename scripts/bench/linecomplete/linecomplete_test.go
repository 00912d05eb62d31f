package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"actor/infill"
	"actor/internal/testsupport"
	"actor/pipeline"
)

// TestPrepare masks lines of function bodies only, with the plugins'
// prefix and suffix around them and the same chunks for a file's lines.
func TestPrepare(t *testing.T) {
	dir := t.TempDir()
	src := "package a\n\n// F adds.\nfunc F(a, b int) int {\n\tsum := a + b\n\tif sum > 100 {\n\t\tsum = 100\n\t}\n\treturn sum\n}\n"
	other := "package a\n\nfunc G() string {\n\treturn \"other file\"\n}\n"
	os.WriteFile(filepath.Join(dir, "a.go"), []byte(src), 0o644)
	os.WriteFile(filepath.Join(dir, "b.go"), []byte(other), 0o644)
	out := filepath.Join(dir, "tasks.jsonl")
	if err := prepare([]string{"-src", dir, "-lang", "go", "-n", "5", "-out", out}); err != nil {
		t.Fatal(err)
	}
	tasks, err := readLines[task](out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(src, "\n")
	var ids []string
	for _, k := range tasks {
		ids = append(ids, k.ID)
		if k.Prefix+k.Target+k.Suffix != src && k.Path == "a.go" {
			t.Errorf("%s: prefix, line and suffix are not the file", k.ID)
		}
		if k.Path == "a.go" && k.Target != lines[k.Line-1] || len(k.Chunks) == 0 || k.Chunks[0].Filename == k.Path {
			t.Errorf("%s: target %q, chunks %+v", k.ID, k.Target, k.Chunks)
		}
	}
	if strings.Join(ids, " ") != "a.go:5 a.go:6 a.go:9 b.go:4" {
		t.Errorf("masked %v", ids)
	}
}

// TestPrepareExclude: -exclude leaves out another tasks file's lines
// after the choice, so the lines kept and their chunks are those of the
// seed: with every line of the first file chosen left out (its chunks
// still drawn) and fewer lines asked than there are, the rest equals the
// full run's.
func TestPrepareExclude(t *testing.T) {
	dir := t.TempDir()
	var long strings.Builder
	long.WriteString("package a\n\nfunc H() int {\n")
	for i := range 45 {
		fmt.Fprintf(&long, "\tvalue%02d := %d * 3\n", i, i)
	}
	long.WriteString("\treturn value00\n}\n")
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc F(a, b int) int {\n\tsum := a + b\n\tif sum > 100 {\n\t\tsum = 100\n\t}\n\treturn sum\n}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.go"), []byte(long.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "c.go"), []byte(strings.ReplaceAll(long.String(), "H()", "K()")), 0o644)
	ask := func(out string, extra ...string) []task {
		args := append([]string{"-src", dir, "-lang", "go", "-n", "30", "-seed", "3", "-out", filepath.Join(dir, out)}, extra...)
		if err := prepare(args); err != nil {
			t.Fatal(err)
		}
		tasks, err := readLines[task](filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		return tasks
	}
	all := ask("all.jsonl")
	var first, rest []task
	for _, k := range all {
		if k.Path == all[0].Path {
			first = append(first, k)
		} else {
			rest = append(rest, k)
		}
	}
	if len(first) == 0 || len(rest) == 0 || len(all) != 30 {
		t.Fatalf("the choice: %d lines of %s, %d others", len(first), all[0].Path, len(rest))
	}
	var reported strings.Builder
	for _, k := range first {
		fmt.Fprintf(&reported, "{\"id\":%q}\n", k.ID)
	}
	os.WriteFile(filepath.Join(dir, "reported.jsonl"), []byte(reported.String()), 0o644)
	if got := ask("rest.jsonl", "-exclude", filepath.Join(dir, "reported.jsonl")); !reflect.DeepEqual(got, rest) {
		t.Errorf("-exclude: %d tasks, not the full run's %d others with their chunks", len(got), len(rest))
	}
}

// TestProse marks docstring and block-comment lines.
func TestProse(t *testing.T) {
	lines := []string{"def f():", `    """Doc`, "    more doc", `    """`, "    x = 1  # ok", "    /* c */ y", "    z = '''a''' + b"}
	got := prose(lines)
	want := []bool{false, true, true, true, false, true, true}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d %q: %v", i, lines[i], got[i])
		}
	}
}

func TestInBackticks(t *testing.T) {
	lines := []string{"func F() string {", "\ts := `one line`", "\t// a `quote", "\tbuf.WriteString(\"```\\n\")",
		"\tr := '`' // and `", "\treturn `#!/bin/sh", "echo `x` \"", "done`", "}"}
	got := inBackticks(lines, false)
	want := []bool{false, false, false, false, false, true, true, true, false}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("go line %d %q: %v", i, lines[i], got[i])
		}
	}
	js := []string{"function f() {", "  const s = `a \\` still", "  in ${x}`;", "  return s;", "}"}
	got = inBackticks(js, true)
	want = []bool{false, true, true, false, false}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("javascript line %d %q: %v", i, js[i], got[i])
		}
	}
}

// TestRunCompletions asks a stand-in server in mode completions: the
// prefix and suffix go out as prompt and suffix without the repository's
// context and without a repeat penalty, the answer's first line is scored, the label names the mode,
// and a second run skips what the results already hold.
func TestRunCompletions(t *testing.T) {
	var asked []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/completions" {
			http.NotFound(w, r)
			return
		}
		var req map[string]any
		json.NewDecoder(r.Body).Decode(&req)
		asked = append(asked, req)
		fmt.Fprint(w, `{"choices":[{"text":"\tsum := a + b\nmore"}],"usage":{"prompt_tokens":17}}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(tasks, []byte(`{"id":"a.go:5","lang":"go","prefix":"func F() {\n","suffix":"\n}\n","target":"\tsum := a + b"}`+"\n"+
		`{"id":"a.go:6","lang":"go","prefix":"p","suffix":"s","target":"return sum"}`+"\n"), 0o644)
	out := filepath.Join(dir, "res.jsonl")
	args := []string{"-tasks", tasks, "-url", srv.URL, "-mode", "completions", "-label", "other-server", "-out", out}
	for range 2 {
		if err := run(args); err != nil {
			t.Fatal(err)
		}
	}
	if len(asked) != 2 || asked[0]["prompt"] != "func F() {\n" || asked[0]["suffix"] != "\n}\n" {
		t.Fatalf("requests %v, want the two tasks' prefix and suffix once each", asked)
	}
	// the same prompt as another server's: actor serve must not add the
	// repository's context
	if asked[0]["context"] != false {
		t.Errorf("request %v: want \"context\": false", asked[0])
	}
	// the same decoding as another server's: llama-cpp-python's server
	// penalises repeats unless told not to
	if asked[0]["repeat_penalty"] != 1.0 {
		t.Errorf("request %v: want \"repeat_penalty\": 1", asked[0])
	}
	res, err := readLines[result](out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || !res[0].Exact || res[1].Exact || res[0].Mode != "other-server" || res[0].PromptN != 17 {
		t.Fatalf("results %+v: want the first exact, the second not, mode other-server, 17 prompt tokens", res)
	}
	// -first 1: the first task only, however often run
	one := filepath.Join(dir, "one.jsonl")
	for range 2 {
		if err := run([]string{"-tasks", tasks, "-url", srv.URL, "-mode", "completions", "-first", "1", "-out", one}); err != nil {
			t.Fatal(err)
		}
	}
	if res, _ := readLines[result](one); len(res) != 1 || res[0].ID != "a.go:5" {
		t.Errorf("-first 1: results %+v", res)
	}
	// -fim-text: the prompt laid out in the model's tokens, no suffix
	asked = nil
	if err := run([]string{"-tasks", tasks, "-url", srv.URL, "-mode", "completions", "-fim-text", "-first", "1",
		"-out", filepath.Join(dir, "text.jsonl")}); err != nil {
		t.Fatal(err)
	}
	want := "<|fim_prefix|>func F() {\n<|fim_suffix|>\n}\n<|fim_middle|>"
	if _, has := asked[0]["suffix"]; len(asked) != 1 || asked[0]["prompt"] != want || has {
		t.Errorf("-fim-text: requests %v, want one with prompt %q and no suffix", asked, want)
	}
}

// TestRunInfillModes asks a stand-in /infill in each mode: the
// repository's context, the editor's chunks and ACToR are asked for as
// the mode says, and the answer's first line is scored, and so are the
// two completions the server chose between.
func TestRunInfillModes(t *testing.T) {
	var asked []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		json.NewDecoder(r.Body).Decode(&req)
		asked = append(asked, req)
		fmt.Fprint(w, `{"content":"\tsum := a + b\nmore","timings":{"cache_n":3,"prompt_n":4},`+
			`"context_choice":{"context":true,"without":{"content":"sum := 0","mean_logprob":-2},"with":{"content":"\tsum := a + b\nmore","mean_logprob":-1}}}`)
	}))
	defer srv.Close()
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(tasks, []byte(`{"id":"a.go:5","lang":"go","prefix":"p","suffix":"s","target":"\tsum := a + b","chunks":[{"filename":"b.go","text":"x"}]}`+"\n"), 0o644)
	// mode → context, ACToR, chunks sent
	want := map[string][3]bool{"none": {}, "chunks": {false, false, true}, "repo": {true, false, false},
		"both": {true, false, true}, "actor": {true, true, false}}
	for _, mode := range infillModes {
		asked = nil
		out := filepath.Join(dir, mode+".jsonl")
		if err := run([]string{"-tasks", tasks, "-url", srv.URL, "-mode", mode, "-out", out}); err != nil {
			t.Fatal(err)
		}
		_, chunks := asked[0]["input_extra"]
		if got := [3]bool{asked[0]["context"] == true, asked[0]["actor"] == true, chunks}; len(asked) != 1 || got != want[mode] {
			t.Errorf("mode %s: context, actor, chunks %v, want %v", mode, got, want[mode])
		}
		res, _ := readLines[result](out)
		if len(res) != 1 || !res[0].Exact || res[0].Mode != mode || res[0].CacheN != 3 {
			t.Fatalf("mode %s: results %+v", mode, res)
		}
		if c := res[0].Choice; c == nil || !c.Context || c.Without.Exact || c.Without.Got != "sum := 0" || !c.With.Exact || *c.With.MeanLogProb != -1 {
			t.Errorf("mode %s: choice %+v", mode, c)
		}
	}
	if err := run([]string{"-tasks", tasks, "-url", srv.URL, "-mode", "fast", "-out", filepath.Join(dir, "x.jsonl")}); err == nil {
		t.Error("-mode fast accepted")
	}
}

// TestReportChoice: repo answers chosen between two completions give
// the row "always" (the completions with the context, without times),
// compared with none like the others; a none answer unlike its line's
// candidate without the context is counted in a warning; a line without
// a none answer takes its candidate without the context (its time not
// counted); the choices are counted by language.
func TestReportChoice(t *testing.T) {
	dir := t.TempDir()
	lp := func(v float64) *float64 { return &v }
	rs := []result{
		{ID: "a", Lang: "go", Mode: "none", Got: "x", EditSim: 0.5, Seconds: 1},
		{ID: "b", Lang: "go", Mode: "none", Got: "y", EditSim: 0.5, Seconds: 1},
		{ID: "a", Lang: "go", Mode: "repo", Got: "t", Exact: true, EditSim: 1, Seconds: 4, Choice: &choice{Context: true,
			Without: candidate{Got: "x", EditSim: 0.5, MeanLogProb: lp(-2)}, With: candidate{Got: "t", Exact: true, EditSim: 1, MeanLogProb: lp(-1)}}},
		{ID: "b", Lang: "go", Mode: "repo", Got: "z", EditSim: 0.5, Seconds: 4, Choice: &choice{
			Without: candidate{Got: "z", EditSim: 0.5, MeanLogProb: lp(-1)}, With: candidate{Got: "w", EditSim: 0, MeanLogProb: lp(-3)}}},
		{ID: "c", Lang: "go", Mode: "repo", Got: "v", EditSim: 0.5, Seconds: 4, Choice: &choice{
			Without: candidate{Got: "v", EditSim: 0.5, MeanLogProb: lp(-1)}, With: candidate{Got: "u", EditSim: 1, Exact: true, MeanLogProb: lp(-2)}}},
	}
	var out strings.Builder
	if err := report(&out, []string{writeResults(t, dir, "go.jsonl", rs...)}); err != nil {
		t.Fatal(err)
	}
	reportHas(t, out.String(),
		"Warning: on 1 of 2 lines none's answer is not the chosen answer's candidate without the context.",
		"| go | none | 3 | 0.0 | 50.0 | 1.00 | 0 |",
		"| go | always | 3 | 66.7 | 66.7 | – | – |",
		"| go | repo | 3 | 33.3 | 66.7 | 4.00 | 0 |",
		"| go | always | 3 | +66.7 [+0.0, +100.0] | +16.7 [-50.0, +50.0] | 2 / 1 |",
		"| go | 3 | 1 (33 %) |")
}

// writeResults writes results into a JSON-lines file in dir.
func writeResults(t *testing.T, dir, name string, rs ...result) string {
	t.Helper()
	var b strings.Builder
	for _, r := range rs {
		j, _ := json.Marshal(r)
		b.Write(append(j, '\n'))
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// reportHas checks that a report holds each of the texts.
func reportHas(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
}

// TestCountNames works one masked line by hand: `return sum / unitFactor`
// needs return and unitFactor, which the text around it lacks; the
// repository's context shows Scale (named in the line above), whose body
// holds both; the editor's one chunk holds return only.
func TestCountNames(t *testing.T) {
	tok, err := pipeline.OpenTokenizer(testsupport.Model(t, "qwen2.5-coder-0.5b"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"a.go": []byte("package a\n\nfunc Total(xs []float64) float64 {\n\tsum := 0.0\n\tfor _, x := range xs {\n\t\tsum += Scale(x)\n\t}\n\treturn sum / unitFactor\n}\n"),
		"b.go": []byte("package a\n\nconst unitFactor = 0.3048\n\n// Scale converts feet.\nfunc Scale(v float64) float64 { return v * unitFactor }\n"),
	}
	lines := strings.SplitAfter(string(files["a.go"]), "\n")
	k := task{ID: "a.go:8", Lang: "go", Path: "a.go", Line: 8, Target: strings.TrimSuffix(lines[7], "\n"),
		Prefix: strings.Join(lines[:7], ""), Suffix: "\n" + strings.Join(lines[8:], ""),
		Chunks: []chunk{{Filename: "c.go", Text: "func Nothing() error {\n\treturn nil\n}\n"}}}
	c, err := countNames(tok, files, []task{k}, infill.DefaultContextBudget)
	if err != nil {
		t.Fatal(err)
	}
	want := nameCounts{lines: 1, needing: 1, needed: 2, inPackage: 2, inRepo: 2, inChunks: 1}
	if len(c.needingLines) != 1 || c.needingLines[0].lineKey != (lineKey{"go", "a.go:8"}) ||
		!slices.Equal(c.needingLines[0].marked, []string{"return:prc", "unitFactor:pr"}) {
		t.Errorf("lines needing a name %+v, want go a.go:8 needing return:prc and unitFactor:pr", c.needingLines)
	}
	c.repoTokens, c.chunkTokens, c.needingLines = 0, 0, nil
	if !reflect.DeepEqual(c, want) {
		t.Errorf("counts %+v, want %+v", c, want)
	}
}

// TestBlockOrder keeps blocks of consecutive tasks whole, takes every
// task once, in an order that is not the tasks' and is the same each time.
func TestBlockOrder(t *testing.T) {
	var tasks []task
	for i := range 95 {
		tasks = append(tasks, task{ID: fmt.Sprint(i)})
	}
	got := blockOrder(tasks, 10)
	var ids []string
	prev := -1
	for i, k := range got {
		ids = append(ids, k.ID)
		var n int
		fmt.Sscan(k.ID, &n)
		// a task follows its predecessor, or starts a block after a block's end
		if n != prev+1 && (n%10 != 0 || prev >= 0 && prev%10 != 9 && prev != 94) {
			t.Errorf("position %d holds task %d after %d: a block was cut", i, n, prev)
		}
		prev = n
	}
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	again := blockOrder(tasks, 10)
	if len(got) != 95 || len(seen) != 95 || got[0].ID == "0" && got[10].ID == "10" || again[0].ID != got[0].ID || again[50].ID != got[50].ID {
		t.Errorf("order %v", ids)
	}
}

// TestReport compares the /infill modes over the lines all answered and
// the other modes among themselves, and works the paired differences
// from none by hand: go's repo is exact where none is not on one line of
// two (+50 points), and 0.5 more similar on it (+25 points); split by
// -needing, that line alone (+100, +50) and the other (0, 0).
func TestReport(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, rs ...result) string { return writeResults(t, dir, name, rs...) }
	files := []string{
		write("go-none.jsonl", result{ID: "a", Lang: "go", Mode: "none", EditSim: 0.5, Seconds: 1},
			result{ID: "b", Lang: "go", Mode: "none", Exact: true, EditSim: 1, Seconds: 3}),
		write("go-repo.jsonl", result{ID: "a", Lang: "go", Mode: "repo", Exact: true, EditSim: 1, Seconds: 2},
			result{ID: "b", Lang: "go", Mode: "repo", Exact: true, EditSim: 1, Seconds: 2},
			result{ID: "c", Lang: "go", Mode: "repo", EditSim: 0, Seconds: 2}),
		write("go-llama.jsonl", result{ID: "a", Lang: "go", Mode: "llama", EditSim: 0.25, Seconds: 4}),
		write("rust-none.jsonl", result{ID: "a", Lang: "rust", Mode: "none", Seconds: 1}),
		write("rust-repo.jsonl", result{ID: "a", Lang: "rust", Mode: "repo", EditSim: 0.5, Seconds: 1}),
	}
	needing := filepath.Join(dir, "needing.jsonl")
	if err := writeNeeding(needing, []needingLine{{lineKey: lineKey{"go", "a"}}, {lineKey: lineKey{"python", "b"}}}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := report(&out, append([]string{"-needing", needing}, files...)); err != nil {
		t.Fatal(err)
	}
	// rust has no line in the -needing file: its row is in the first
	// table and the differences, not split
	if n := strings.Count(out.String(), "| rust | repo | 1 |"); n != 2 {
		t.Errorf("rust's repo rows: %d, want 2 (not split):\n%s", n, out.String())
	}
	reportHas(t, out.String(),
		"| go | none | 2 | 50.0 | 75.0 | 2.00 | 0 |",
		"| go | repo | 2 | 100.0 | 100.0 | 2.00 | 0 |",
		"| go | llama | 1 | 0.0 | 25.0 | 4.00 | 0 |",
		"| go | repo | 2 | +50.0 [+0.0, +100.0] | +25.0 [+0.0, +50.0] | 1 / 0 |",
		"Lines needing a name the prompt's file text lacks:\n\n| language | context − none | lines | exact match, points [95 %] | edit similarity, points [95 %] | lines more / less similar |\n|---|---|---|---|---|---|\n| go | repo | 1 | +100.0 [+100.0, +100.0] | +50.0 [+50.0, +50.0] | 1 / 0 |",
		"The other lines:\n\n| language | context − none | lines | exact match, points [95 %] | edit similarity, points [95 %] | lines more / less similar |\n|---|---|---|---|---|---|\n| go | repo | 1 | +0.0 [+0.0, +0.0] | +0.0 [+0.0, +0.0] | 0 / 0 |")
}
