package labelstore

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/probe"
	"actor/probe/critical"
)

const dim = 6

func header() Header {
	return NewHeader(probe.ModelInfo{Arch: "llama", Hidden: dim, TokenizerHash: "h1"}, critical.DefaultRules(), "no retrieval", 0)
}

// sample builds sample number k with n tokens whose hidden values encode
// (k, position, index) exactly in float16.
func sample(k, n int) (Sample, []Token, [][]float32) {
	s := Sample{ID: fmt.Sprintf("repo/%d", k), Repo: "repo", Path: "a.py", Prefix: "def f():\n", Target: strings.Repeat("x", n)}
	var toks []Token
	var hid [][]float32
	for i := range n {
		st := critical.Stats{Target: int32(i), Greedy: int32(i % 2), TargetText: "x", GreedyText: []string{"x", "y"}[i%2],
			Entropy: float64(i) / 4, LogProb: -float64(i), Influence: 0.01 * float64(i)}
		toks = append(toks, NewToken(s.ID, i, st, critical.DefaultRules(), i, i+1))
		h := make([]float32, dim)
		for j := range h {
			h[j] = float32(k*100+i*10+j) / 8
		}
		hid = append(hid, h)
	}
	return s, toks, hid
}

func writeSamples(t *testing.T, dir string, from, to int) {
	t.Helper()
	w, err := OpenWriter(dir, header(), func(m string) { t.Log("warn:", m) })
	if err != nil {
		t.Fatal(err)
	}
	for k := from; k < to; k++ {
		s, toks, hid := sample(k, 3+k)
		if w.Done(s.ID) {
			continue
		}
		if err := w.Add(s, toks, hid); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// check opens dir and verifies samples 0..n-1 exactly.
func check(t *testing.T, dir string, n int, warn func(string)) {
	t.Helper()
	set, err := Open(dir, warn)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if len(set.Samples) != n {
		t.Fatalf("%d samples, want %d", len(set.Samples), n)
	}
	row := int64(0)
	for k, s := range set.Samples {
		ws, wt, wh := sample(k, 3+k)
		if s.ID != ws.ID || s.Target != ws.Target || s.Tokens != len(wt) || s.FirstRow != row {
			t.Fatalf("sample %d: %+v", k, s)
		}
		for i := range wt {
			got := set.Tokens[row+int64(i)]
			want := wt[i]
			want.Row, want.Sample = row+int64(i), ws.ID
			if got != want {
				t.Fatalf("token %d/%d: %+v, want %+v", k, i, got, want)
			}
			if set.SampleOf(got).ID != ws.ID {
				t.Fatalf("SampleOf row %d", got.Row)
			}
			h := make([]float32, dim)
			if err := set.Hidden([]int64{got.Row}, h); err != nil {
				t.Fatal(err)
			}
			for j := range h {
				if h[j] != wh[i][j] {
					t.Fatalf("hidden %d/%d[%d] = %v, want %v", k, i, j, h[j], wh[i][j])
				}
			}
		}
		row += int64(len(wt))
	}
}

func TestWriteReadAndLabels(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab")
	writeSamples(t, dir, 0, 3)
	check(t, dir, 3, func(m string) { t.Errorf("unexpected warning %s", m) })
	set, _ := Open(dir, nil)
	defer set.Close()
	// Token 1 of sample 0: mismatch (x vs y), entropy .25, influence .01.
	tok := set.Tokens[1]
	if !tok.Mismatch || tok.Uncertain || tok.Influential || !tok.Critical {
		t.Errorf("token flags %+v", tok)
	}
	r := critical.DefaultRules()
	r.EntropyMin = 0.2
	if f := tok.Criteria(r); f != critical.Mismatch|critical.Uncertain {
		t.Errorf("relabelled criteria %v", f)
	}
	if math.Abs(tok.SelfInfo-1/math.Ln2) > 1e-12 {
		t.Errorf("self-info %v", tok.SelfInfo)
	}
}

func appendBytes(t *testing.T, path string, b string) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(b)
	f.Close()
}

// An interrupted run leaves hidden rows and token lines of a sample whose
// samples.jsonl line is missing or incomplete: readers ignore it, a resumed
// writer cuts it and continues, and the result equals an uninterrupted run.
func TestResumeAfterInterruption(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab")
	writeSamples(t, dir, 0, 2)
	_, toks, _ := sample(2, 5)
	appendBytes(t, filepath.Join(dir, HiddenFile), strings.Repeat("\x01", 2*dim*2+3))
	appendBytes(t, filepath.Join(dir, TokensFile), `{"sample":"repo/2","pos":0,"row":7}`+"\n"+`{"sample":"repo/2","po`)
	appendBytes(t, filepath.Join(dir, SamplesFile), `{"id":"repo/2","tok`)
	_ = toks
	var warned []string
	check(t, dir, 2, func(m string) { warned = append(warned, m) })
	if len(warned) != 1 || !strings.Contains(warned[0], "ignoring the incomplete tail") {
		t.Fatalf("reader warnings %q", warned)
	}
	warned = nil
	w, err := OpenWriter(dir, header(), func(m string) { warned = append(warned, m) })
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "cutting the incomplete tail") {
		t.Fatalf("writer warnings %q", warned)
	}
	if n, rows := w.Count(); n != 2 || rows != 7 || !w.Done("repo/1") || w.Done("repo/2") {
		t.Fatalf("count %d %d", n, rows)
	}
	w.Close()
	writeSamples(t, dir, 0, 4)
	check(t, dir, 4, func(m string) { t.Errorf("unexpected warning %s", m) })

	fresh := filepath.Join(t.TempDir(), "fresh")
	writeSamples(t, fresh, 0, 4)
	for _, name := range []string{HiddenFile, TokensFile, SamplesFile, HeaderFile} {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, _ := os.ReadFile(filepath.Join(fresh, name))
		if string(a) != string(b) {
			t.Errorf("%s differs between resumed and uninterrupted runs", name)
		}
	}
}

func TestErrorsNameTheFile(t *testing.T) {
	base := t.TempDir()
	mk := func(name string) string {
		dir := filepath.Join(base, name)
		writeSamples(t, dir, 0, 2)
		return dir
	}
	truncate := func(dir, file string, by int64) {
		p := filepath.Join(dir, file)
		fi, _ := os.Stat(p)
		os.Truncate(p, fi.Size()-by)
	}
	replace := func(dir, file, old, new string) {
		p := filepath.Join(dir, file)
		b, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644)
	}
	cases := []struct {
		name, file, want string
		damage           func(dir string)
	}{
		{"hidden-short", HiddenFile, "truncated", func(d string) { truncate(d, HiddenFile, 5) }},
		{"hidden-magic", HiddenFile, "bad magic", func(d string) { replace(d, HiddenFile, "ACTRHF16", "GGUFxxxx") }},
		{"tokens-short", TokensFile, "truncated or corrupt", func(d string) {
			b, _ := os.ReadFile(filepath.Join(d, TokensFile))
			lines := strings.SplitAfter(string(b), "\n")
			os.WriteFile(filepath.Join(d, TokensFile), []byte(strings.Join(lines[:4], "")), 0o644)
		}},
		{"tokens-json", TokensFile, "line 2: invalid JSON", func(d string) { replace(d, TokensFile, "\n{", "\n{{") }},
		{"tokens-order", TokensFile, "line 1: row 5", func(d string) { replace(d, TokensFile, `"row":0`, `"row":5`) }},
		{"samples-json", SamplesFile, "line 1: invalid JSON", func(d string) { replace(d, SamplesFile, "{", "[") }},
		{"samples-dup", SamplesFile, "repeated", func(d string) { replace(d, SamplesFile, `"repo/1"`, `"repo/0"`) }},
		{"header", HeaderFile, "version 7 not supported", func(d string) { replace(d, HeaderFile, `"version": 1`, `"version": 7`) }},
		{"header-missing", HeaderFile, "no such file", func(d string) { os.Remove(filepath.Join(d, HeaderFile)) }},
		{"tokens-missing", TokensFile, "no such file", func(d string) { os.Remove(filepath.Join(d, TokensFile)) }},
	}
	for _, c := range cases {
		dir := mk(c.name)
		c.damage(dir)
		_, err := Open(dir, nil)
		path := filepath.Join(dir, c.file)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming %s and containing %q", c.name, err, path, c.want)
		}
		if c.name != "header-missing" {
			if _, err := OpenWriter(dir, header(), nil); err == nil {
				t.Errorf("%s: writer resumed a damaged directory", c.name)
			}
		}
	}
	// Resuming with other settings is refused.
	dir := mk("other")
	h := header()
	h.Rules.EntropyMin = 1.5
	if _, err := OpenWriter(dir, h, nil); err == nil || !strings.Contains(err.Error(), "another setting") {
		t.Errorf("header mismatch: %v", err)
	}
	// Bad Adds.
	w, _ := OpenWriter(filepath.Join(base, "adds"), header(), nil)
	defer w.Close()
	s, toks, hid := sample(0, 3)
	if err := w.Add(s, toks, hid[:2]); err == nil {
		t.Error("token/hidden count mismatch accepted")
	}
	hid[1] = hid[1][:3]
	if err := w.Add(s, toks, hid); err == nil {
		t.Error("short hidden state accepted")
	}
	s, toks, hid = sample(1, 2)
	hid[1][2] = float32(math.Inf(1))
	if err := w.Add(s, toks, hid); err == nil || !strings.Contains(err.Error(), "outside float16's range") {
		t.Errorf("infinite hidden value: %v", err)
	}
	hid[1][2] = 70000
	if err := w.Add(s, toks, hid); err == nil {
		t.Error("hidden value beyond float16 accepted")
	}
	if err := w.Add(Sample{ID: "e"}, nil, nil); err == nil {
		t.Error("empty sample accepted")
	}
}

// FuzzOpen feeds arbitrary token and sample files to the reader: it must
// return a result or an error, never panic.
func FuzzOpen(f *testing.F) {
	seed := filepath.Join(f.TempDir(), "seed")
	w, err := OpenWriter(seed, header(), nil)
	if err != nil {
		f.Fatal(err)
	}
	for k := range 2 {
		s, toks, hid := sample(k, 2)
		w.Add(s, toks, hid)
	}
	w.Close()
	sb, _ := os.ReadFile(filepath.Join(seed, SamplesFile))
	tb, _ := os.ReadFile(filepath.Join(seed, TokensFile))
	hb, _ := os.ReadFile(filepath.Join(seed, HiddenFile))
	f.Add(sb, tb, int64(len(hb)))
	f.Add(sb[:10], tb, int64(10))
	f.Add([]byte(`{"id":"a","tokens":1,"first_row":0}`+"\n"), []byte(`{"sample":"a","pos":0,"row":0,"start":-1,"end":-1}`+"\n"), int64(100))
	f.Fuzz(func(t *testing.T, samples, tokens []byte, hiddenLen int64) {
		dir := t.TempDir()
		hj, _ := os.ReadFile(filepath.Join(seed, HeaderFile))
		os.WriteFile(filepath.Join(dir, HeaderFile), hj, 0o644)
		os.WriteFile(filepath.Join(dir, SamplesFile), samples, 0o644)
		os.WriteFile(filepath.Join(dir, TokensFile), tokens, 0o644)
		hl := min(max(hiddenLen, 0), 1<<16)
		h := make([]byte, hl)
		copy(h, hb)
		os.WriteFile(filepath.Join(dir, HiddenFile), h, 0o644)
		set, err := Open(dir, func(string) {})
		if err != nil {
			return
		}
		defer set.Close()
		buf := make([]float32, dim)
		for _, tok := range set.Tokens {
			if err := set.Hidden([]int64{tok.Row}, buf); err != nil {
				t.Fatalf("row %d of an accepted set unreadable: %v", tok.Row, err)
			}
			if set.SampleOf(tok) == nil {
				t.Fatal("token without sample")
			}
		}
	})
}

// A creation killed while writing the header leaves the empty data files
// and a torn header beside labels.json, never in it: the next run creates
// the directory afresh and labels as an uninterrupted run does.
func TestCreationKilledInTheHeader(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "killed")
	os.MkdirAll(dir, 0o755)
	for name, content := range map[string]string{HiddenFile: "", TokensFile: "", SamplesFile: "", HeaderFile + ".tmp": `{"format": "actor-la`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeSamples(t, dir, 0, 2)
	check(t, dir, 2, func(m string) { t.Errorf("unexpected warning %s", m) })
	if _, err := os.Stat(filepath.Join(dir, HeaderFile+".tmp")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the torn header is still there: %v", err)
	}
}
