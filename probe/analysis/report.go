package analysis

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"actor/probe/critical"
	"actor/probe/syntax"
)

// condition is one row of the syntax tables.
type condition struct {
	name   string
	counts [nClasses]int
}

// conditions lists the non-empty criterion regions, then all critical
// tokens and all tokens (the baseline, last).
func (r *Result) conditions() []condition {
	var out []condition
	for _, f := range Regions[:len(Regions)-1] {
		if r.Region[f] > 0 {
			out = append(out, condition{RegionName(f), r.Syntax[f]})
		}
	}
	return append(out, condition{"All critical", r.CriticalSyntax}, condition{"All tokens (baseline)", r.AllSyntax})
}

// rulesText describes the labelling rules in words.
func rulesText(r critical.Rules) string {
	var on []string
	if r.Enabled.Has(critical.Mismatch) {
		on = append(on, "mismatch")
	}
	if r.Enabled.Has(critical.Uncertain) {
		on = append(on, fmt.Sprintf("entropy ≥ %g nats", r.EntropyMin))
	}
	if r.Enabled.Has(critical.Influential) {
		w := "all later positions"
		if r.Window > 0 {
			w = fmt.Sprintf("the next %d positions", r.Window)
		}
		on = append(on, fmt.Sprintf("influence ≥ %g (mean of the top %d attentions over %s)", r.InfluenceMin, r.TopK, w))
	}
	return strings.Join(on, " OR ")
}

// Markdown renders the analysis as Markdown tables with the paper's
// findings beside them.
func (r *Result) Markdown() string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	name := r.Model.Name
	if name == "" {
		name = r.Model.Arch
	}
	p("# Critical-token analysis: %s\n\n", name)
	p("Labels `%s`: %d functions, %d target tokens; model %s.\n", r.Labels, r.Samples, r.Tokens, r.Model)
	p("Critical iff %s.\n\n", rulesText(r.Rules))
	p("Critical tokens are %.2f %% of the target tokens and %.2f %% of all %d positions (prompt + target, %.0f prompt tokens a function).\n\n",
		Share(r.Critical, r.Tokens), Share(r.Critical, r.Positions), r.Positions, float64(r.Positions-r.Tokens)/float64(max(1, r.Samples)))

	p("## Composition (paper Fig. 5)\n\n| tokens | count | share of all |\n|---|---:|---:|\n")
	row := func(label string, n int) { p("| %s | %d | %.2f %% |\n", label, n, Share(n, r.Tokens)) }
	row("**Critical**", r.Critical)
	for _, c := range []struct {
		f    critical.Flags
		name string
	}{{critical.Mismatch, "Mismatch"}, {critical.Uncertain, "Uncertainty"}, {critical.Influential, "Attention"}} {
		n := 0
		for f, k := range r.Region {
			if critical.Flags(f).Has(c.f) {
				n += k
			}
		}
		row(c.name+" (with any overlap)", n)
	}
	for _, f := range Regions {
		row(RegionName(f), r.Region[f])
	}
	p("\nPaper: critical tokens are 5.08–10.62 %% of positions across its four models; mismatch and\n" +
		"high uncertainty overlap consistently, high attention influence overlaps the other two much less,\n" +
		"and tokens meeting all three are very rare (0.02 %% for CodeLlama-7B).\n\n")

	conds := r.conditions()
	base, _ := Distribution(conds[len(conds)-1].counts)
	header := "| condition | n |"
	sep := "|---|---:|"
	for _, c := range syntax.Reported {
		header += " " + c.String() + " |"
		sep += "---:|"
	}
	p("## Syntax classes of critical tokens, %% within each condition (paper Fig. 7)\n\n%s\n%s\n", header, sep)
	for _, c := range conds {
		d, n := Distribution(c.counts)
		p("| %s | %d |", c.name, n)
		for _, v := range d {
			p(" %.1f |", v)
		}
		p("\n")
	}
	p("\n## Relative to the baseline of all tokens (paper Fig. 8)\n\n%s\n%s\n", header, sep)
	for _, c := range conds[:len(conds)-1] {
		d, n := Distribution(c.counts)
		p("| %s | %d |", c.name, n)
		for _, v := range Relative(d, base) {
			p(" %.2f× |", v)
		}
		p("\n")
	}
	ws, unk := r.AllSyntax[syntax.Whitespace], r.AllSyntax[syntax.Unknown]
	p("\nFiltered out: %d whitespace/newline/indent tokens (%.1f %%), %d tokens no syntax leaf covers or without a source span (%.1f %%).\n\n",
		ws, Share(ws, r.Tokens), unk, Share(unk, r.Tokens))
	p("Paper (DSCoder-1.3B): identifiers and keywords dominate the error-related conditions (Mismatch only,\n" +
		"Mismatch + Uncertainty); keywords are 7.64× the baseline in Mismatch + Uncertainty and 6.05× in Mismatch only;\n" +
		"Attention only is more balanced, with operators at 1.86× the baseline and many delimiters.\n")
	if f := r.Flagged; f != nil {
		p("\n## Probe `%s` on these tokens\n\n", f.Probe)
		p("Judged tokens (not the first, not whitespace): %d; flagged critical: %d (%.2f %%).\n", f.Judged, f.Flagged, Share(f.Flagged, f.Judged))
		m := f.Metrics
		p("Against the labels: accuracy %.3f, precision %.3f, recall %.3f (TP %d, FP %d, TN %d, FN %d).\n",
			m.Accuracy, m.Precision, m.Recall, m.TP, m.FP, m.TN, m.FN)
		p("These tokens include the probe's own training data unless it was trained on other labels.\n")
	}
	return b.String()
}

// Charts writes composition.png, syntax_absolute.png and
// syntax_relative.png into dir and returns their paths.
func (r *Result) Charts(dir string) ([]string, error) {
	var paths []string
	save := func(p *plot.Plot, name string, w vg.Length) error {
		path := filepath.Join(dir, name)
		if err := p.Save(w, 4.5*vg.Inch, path); err != nil {
			return fmt.Errorf("chart %s: %w", path, err)
		}
		paths = append(paths, path)
		return nil
	}

	comp := plot.New()
	comp.Title.Text = fmt.Sprintf("Critical tokens: %.2f %% of %d (criteria overlap)", Share(r.Critical, r.Tokens), r.Tokens)
	comp.Y.Label.Text = "% of all target tokens"
	var vals plotter.Values
	var names []string
	for _, f := range Regions[:len(Regions)-1] {
		vals = append(vals, Share(r.Region[f], r.Tokens))
		names = append(names, chartLabel(RegionName(f)))
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(30))
	if err != nil {
		return nil, err
	}
	bars.Color = plotutil.Color(0)
	bars.LineStyle.Width = 0
	comp.Add(bars)
	comp.NominalX(names...)
	if err := save(comp, "composition.png", 9*vg.Inch); err != nil {
		return nil, err
	}

	conds := r.conditions()
	base, _ := Distribution(conds[len(conds)-1].counts)
	var abs, rel [][]float64
	var condNames []string
	for _, c := range conds {
		d, _ := Distribution(c.counts)
		abs = append(abs, d)
		rel = append(rel, Relative(d, base))
		condNames = append(condNames, chartLabel(c.name))
	}
	a, err := grouped("Syntax classes within each condition (absolute)", "% of the condition's tokens", condNames, abs, 0)
	if err != nil {
		return nil, err
	}
	if err := save(a, "syntax_absolute.png", 13*vg.Inch); err != nil {
		return nil, err
	}
	rp, err := grouped("Syntax classes relative to all tokens", "share / baseline share", condNames[:len(condNames)-1], rel[:len(rel)-1], 1)
	if err != nil {
		return nil, err
	}
	if err := save(rp, "syntax_relative.png", 13*vg.Inch); err != nil {
		return nil, err
	}
	return paths, nil
}

// grouped draws one group of bars per condition, one bar per syntax
// class; ref > 0 draws a dashed horizontal reference line.
func grouped(title, ylabel string, conds []string, vals [][]float64, ref float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	w := vg.Points(9)
	k := len(syntax.Reported)
	for i, c := range syntax.Reported {
		v := make(plotter.Values, len(conds))
		for j := range conds {
			v[j] = vals[j][i]
		}
		b, err := plotter.NewBarChart(v, w)
		if err != nil {
			return nil, err
		}
		b.LineStyle.Width = 0
		b.Color = plotutil.Color(i)
		b.Offset = vg.Length(float64(i)-float64(k-1)/2) * w
		p.Add(b)
		p.Legend.Add(c.String(), b)
	}
	if ref > 0 {
		l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: ref}, {X: float64(len(conds)) - 0.5, Y: ref}})
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{Y: 80}
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
	}
	p.NominalX(conds...)
	return p, nil
}

// chartLabel breaks a condition name over lines so that axis labels do not
// run into each other.
func chartLabel(name string) string {
	name = strings.ReplaceAll(name, " + ", "\n+ ")
	return strings.Replace(name, " (baseline)", "\n(baseline)", 1)
}
