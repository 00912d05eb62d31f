package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/probe"
	"actor/probe/critical"
	"actor/probe/labelstore"
	"actor/probe/syntax"
)

// tok makes a token record with the given text, statistics and span.
func tok(pos int, text string, mismatch bool, entropy, influence float64, start int) (critical.Stats, int, int) {
	g := text
	if mismatch {
		g = "<other>"
	}
	s := critical.Stats{TargetText: text, GreedyText: g, Entropy: entropy, Influence: influence, LogProb: -1}
	if start < 0 {
		return s, -1, -1
	}
	return s, start, start + len(text)
}

func writeLabels(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "lab")
	rules := critical.DefaultRules()
	h := labelstore.NewHeader(probe.ModelInfo{Arch: "llama", Hidden: 2, TokenizerHash: "x", Name: "tiny"}, rules, "test", 0)
	w, err := labelstore.OpenWriter(dir, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	add := func(id, prefix, target string, promptTokens int, toks [][5]any) {
		var recs []labelstore.Token
		var hid [][]float32
		off := 0
		for i, x := range toks {
			text := x[0].(string)
			start := off
			if x[4].(bool) {
				start = -1
			}
			st, a, b := tok(i, text, x[1].(bool), x[2].(float64), x[3].(float64), start)
			off += len(text)
			recs = append(recs, labelstore.NewToken(id, i, st, rules, a, b))
			hid = append(hid, []float32{float32(i), 1})
		}
		if err := w.Add(labelstore.Sample{ID: id, Prefix: prefix, Target: target, PromptTokens: promptTokens}, recs, hid); err != nil {
			t.Fatal(err)
		}
	}
	// Worked by hand. Sample a: "    return x + 1"
	//   "    return" mismatch, H 1.0      → Mismatch + Uncertainty, keyword
	//   " x"        influence 0.1         → Attention only, identifier
	//   " +"        nothing               → None, operator
	//   " 1"        H 0.9                 → Uncertainty only, literal
	add("a", "def f(x):\n    \"\"\"Doc.\"\"\"\n", "    return x + 1", 30, [][5]any{
		{"    return", true, 1.0, 0.0, false}, {" x", false, 0.1, 0.1, false}, {" +", false, 0.1, 0.0, false}, {" 1", false, 0.9, 0.0, false}})
	// Sample b: "    y = 2\n    return y"
	//   "    y" mismatch only (identifier); " =" all three (operator);
	//   " 2" none (literal); "\n   " mismatch only but whitespace (filtered);
	//   " return" none, span unknown; " y" none (identifier).
	add("b", "def g():\n    \"\"\"G.\"\"\"\n", "    y = 2\n    return y", 50, [][5]any{
		{"    y", true, 0.0, 0.0, false}, {" =", true, 2.0, 0.5, false}, {" 2", false, 0.0, 0.0, false},
		{"\n   ", true, 0.0, 0.0, false}, {" return", false, 0.0, 0.0, true}, {" y", false, 0.0, 0.0, false}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAnalyzeHandWorked(t *testing.T) {
	set, err := labelstore.Open(writeLabels(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	r, err := Analyze(set, set.Header.Rules)
	if err != nil {
		t.Fatal(err)
	}
	M, U, A := critical.Mismatch, critical.Uncertain, critical.Influential
	want := map[critical.Flags]int{M | U: 1, A: 1, 0: 4, U: 1, M: 2, M | U | A: 1}
	for _, f := range Regions {
		if r.Region[f] != want[f] {
			t.Errorf("region %s: %d, want %d", RegionName(f), r.Region[f], want[f])
		}
	}
	if r.Tokens != 10 || r.Critical != 6 || r.Samples != 2 || r.Positions != 90 {
		t.Errorf("tokens %d critical %d samples %d positions %d", r.Tokens, r.Critical, r.Samples, r.Positions)
	}
	if md := r.Markdown(); !strings.Contains(md, "60.00 % of the target tokens and 6.67 % of all 90 positions (prompt + target, 40 prompt tokens a function)") {
		t.Errorf("report lacks the share of all positions:\n%s", md)
	}
	if r.Syntax[M|U][syntax.Keyword] != 1 || r.Syntax[A][syntax.Identifier] != 1 || r.Syntax[U][syntax.Literal] != 1 ||
		r.Syntax[M][syntax.Identifier] != 1 || r.Syntax[M][syntax.Whitespace] != 1 || r.Syntax[M|U|A][syntax.Operator] != 1 ||
		r.Syntax[0][syntax.Operator] != 1 || r.Syntax[0][syntax.Literal] != 1 || r.Syntax[0][syntax.Unknown] != 1 || r.Syntax[0][syntax.Identifier] != 1 {
		t.Errorf("syntax counts %v", r.Syntax)
	}
	// Baseline over the 8 classified tokens: identifier 3, keyword 1,
	// operator 2, literal 2. Critical (5 classified): identifier 2,
	// keyword 1, operator 1, literal 1 → identifier 40 % vs 37.5 %.
	base, n := Distribution(r.AllSyntax)
	crit, m := Distribution(r.CriticalSyntax)
	if n != 8 || m != 5 || base[0] != 37.5 || crit[0] != 40 {
		t.Errorf("baseline %v (%d), critical %v (%d)", base, n, crit, m)
	}
	if rel := Relative(crit, base); rel[0] != 40/37.5 || rel[1] != 20/12.5 {
		t.Errorf("relative %v", rel)
	}
	md := r.Markdown()
	for _, s := range []string{"| **Critical** | 6 | 60.00 % |", "| Mismatch only | 2 | 20.00 % |", "| All three | 1 | 10.00 % |",
		"| Mismatch (with any overlap) | 4 | 40.00 % |", "| All tokens (baseline) | 8 | 37.5 | 12.5 | 25.0 | 0.0 | 25.0 | 0.0 |",
		"| All critical | 5 | 1.07× | 1.60× |", "5.08–10.62 %"} {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown lacks %q:\n%s", s, md)
		}
	}
	// Ablation: without mismatch the criteria are the same, fewer critical.
	r2 := set.Header.Rules
	r2.Enabled = U | A
	ab, _ := Analyze(set, r2)
	if ab.Critical != 4 || ab.Region != r.Region {
		t.Errorf("ablation: critical %d", ab.Critical)
	}
	dir := t.TempDir()
	paths, err := r.Charts(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Fatalf("charts %v", paths)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("%s: not a PNG (%v)", p, err)
		}
	}
}

func TestFlag(t *testing.T) {
	set, err := labelstore.Open(writeLabels(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	// A one-member probe that flags iff hidden[0] (the position) > 2:
	// logit gap = 10·relu(h0 − 1.5) − 5 > 0 ⇔ h0 > 2.
	p := &probe.Probe{Model: set.Header.Model, Units: 1, Threshold: 0.5, Rules: set.Header.Rules,
		Members: []probe.Member{{W1: []float32{1, 0}, B1: []float32{-1.5}, W2: []float32{0, 10}, B2: []float32{5, 0}}}}
	f, err := Flag(set, p, "toy")
	if err != nil {
		t.Fatal(err)
	}
	// Judged: a: pos 1,2,3; b: pos 1,2,4,5 (pos 3 is whitespace) → 7.
	// Flagged (pos > 2): a3, b4, b5. Critical among judged: a1 (A),
	// a3 (U), b1 (all three) → TP a3; FN a1, b1; FP b4, b5; TN a2, b2.
	if f.Judged != 7 || f.Flagged != 3 || f.Metrics.TP != 1 || f.Metrics.FN != 2 || f.Metrics.FP != 2 || f.Metrics.TN != 2 {
		t.Errorf("flagging %+v", f)
	}
	other := *p
	other.Model.Hidden = 3
	if _, err := Flag(set, &other, "x"); err == nil {
		t.Error("probe for another model accepted")
	}
}
