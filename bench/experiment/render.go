package experiment

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"actor/bench/chart"
	"actor/bench/report"
	"actor/internal/atomicfile"
)

// titles name the experiments in their reports.
var titles = map[string]string{
	"table1":      "Table I: ACToR against the baselines",
	"ablations":   "Tables III–IV: ablations of the labelling rules and of the modules",
	"sensitivity": "Figure 4: sensitivity to the labelling thresholds",
	"cost":        "Table II: generation cost",
	"trigger":     "Is the probe worth it? ACToR against an entropy trigger at the same rate",
	"context":     "Context that helps: the target file, the model's format, the names in scope",
}

// Render writes the experiment's report.md, figures and README.md into
// ReportDir from what its run folders hold now (untested configurations
// show as "–"; an entropy threshold set from the reference's traces is
// the one its folder recorded).
func (p *Plan) Render(m Machine) error {
	for i, r := range p.Runs {
		if r.Equal && r.Spec.Entropy == 0 {
			thr, err := p.recordedEntropy(r)
			if err != nil {
				return err
			}
			p.Runs[i].Spec.Entropy = thr
		}
	}
	rows, err := p.rows()
	if err != nil {
		return err
	}
	dir := p.ReportDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n%s; %d tasks, n = %d, temperature %s. Conditions and commands: README.md.\n\n",
		titles[p.Experiment], p.Settings.Benchmark, len(p.Settings.Tasks), p.Settings.N, num(p.Settings.Temperature))
	figs, err := p.body(&b, rows)
	if err != nil {
		return err
	}
	for _, f := range figs {
		fmt.Fprintf(&b, "\n![%s](%s)\n", f, f)
	}
	if err := atomicfile.Write(filepath.Join(dir, "report.md"), portable(b.Bytes())); err != nil {
		return err
	}
	readme, err := p.readme(m, rows)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "README.md"), portable(p.placeholders(readme)))
}

// placeholders writes the folders the experiment read outside the working
// folder as the docs name them, for the reader to put their own: the
// repositories (--repos) as DIR, the benchmark's data (--data) as DATA. A
// folder inside the working folder (the checkout's testdata) stays.
func (p *Plan) placeholders(text []byte) []byte {
	wd, err := os.Getwd()
	if err != nil {
		return text
	}
	for _, f := range []struct{ path, name string }{{p.Settings.Repos, "DIR"}, {p.Settings.Data, "DATA"}} {
		if rel, err := filepath.Rel(wd, f.path); f.path == "" || !filepath.IsAbs(f.path) || err == nil && filepath.IsLocal(rel) {
			continue
		}
		// The folder itself or a path under it, not a longer name.
		at := regexp.MustCompile(regexp.QuoteMeta(filepath.Clean(f.path)) + `($|[\s'",/])`)
		text = at.ReplaceAll(text, []byte(f.name+"${1}"))
	}
	return text
}

// portable writes the absolute paths of text under the working folder,
// and under the folder beside it, relative to the working folder: a
// results folder committed with the code then names no path of the
// machine it ran on (the commands still run from the checkout's root).
func portable(text []byte) []byte {
	wd, err := os.Getwd()
	if err != nil || filepath.Dir(wd) == wd || filepath.Dir(filepath.Dir(wd)) == filepath.Dir(wd) {
		return text // the root or a top-level folder: nothing to shorten safely
	}
	text = bytes.ReplaceAll(text, []byte(wd+string(filepath.Separator)), nil)
	return bytes.ReplaceAll(text, []byte(filepath.Dir(wd)+string(filepath.Separator)), []byte(".."+string(filepath.Separator)))
}

// body writes the experiment's tables and draws its figures; it returns
// the figures' file names.
func (p *Plan) body(b *bytes.Buffer, rows []row) ([]string, error) {
	dir := p.ReportDir()
	ref, others := p.split(rows)
	switch p.Experiment {
	case "table1":
		b.WriteString("## pass@k\n\n" + p.passTable(rows))
		if t := p.projectTable(rows); t != "" {
			b.WriteString("\n### pass@1 % by project (project: tasks)\n\n" + t)
		}
		b.WriteString("\n## ACToR against each baseline\n\n" + p.pairedTable(ref, others))
		ds, err := p.departures(rows)
		if err != nil {
			return nil, err
		}
		if len(ds) > 0 {
			b.WriteString("\n## Where ACToR departs from RawRAG\n\n" + departureTable(ds))
		}
		b.WriteString("\n## Where the probe fires\n\n" + kindTable(rows))
		gold, err := p.goldSection(rows)
		if err != nil {
			return nil, err
		}
		b.WriteString("\n## What retrieval showed the model\n\n" + gold)
		return []string{"table1.png"}, p.passFigure(rows, filepath.Join(dir, "table1.png"))
	case "ablations":
		for _, g := range []struct{ group, title string }{{"rules", "Table III: labelling rules"}, {"modules", "Table IV: modules"}} {
			part := []row{ref}
			for _, o := range others {
				if o.Group == g.group {
					part = append(part, o)
				}
			}
			fmt.Fprintf(b, "## %s\n\n%s\n%s\n", g.title, p.passTable(part), p.pairedTable(ref, part[1:]))
		}
		b.WriteString("## Triggers\n\n" + p.costTable(rows))
		return []string{"ablations.png"}, p.passFigure(rows, filepath.Join(dir, "ablations.png"))
	case "sensitivity":
		for _, k := range p.ks() {
			b.WriteString(p.gridTable(rows, fmt.Sprintf("pass@%d %%", k), passValue(k)) + "\n– : not all of the cell's samples are tested yet.\n\n")
		}
		b.WriteString(p.gridTable(rows, "flag rate %", flagRate))
		labels, err := p.labelTables(rows)
		if err != nil {
			return nil, err
		}
		spread, err := p.taskSpread(rows)
		if err != nil {
			return nil, err
		}
		b.WriteString("\n" + labels + "\n## Tasks across the cells\n\n" + spread)
		return []string{"sensitivity.png", "sensitivity-rate.png"}, p.heatFigures(rows)
	case "cost":
		b.WriteString("## Table II\n\n" + p.costTable(rows) + "\n## pass@k of the same samples\n\n" + p.passTable(rows))
		return []string{"cost.png"}, p.costFigure(rows, filepath.Join(dir, "cost.png"))
	case "context":
		b.WriteString("## pass@k\n\n" + p.passTable(rows))
		if t := p.projectTable(rows); t != "" {
			b.WriteString("\n### pass@1 % by project (project: tasks)\n\n" + t)
		}
		b.WriteString("\n## Against RawPrompt with the file's code\n\n" + p.pairedTable(ref, others))
		if best, rest := bestRow(rows); best.g != nil {
			b.WriteString("\n## Against the best configuration\n\n" + p.pairedTable(best, rest))
		}
		b.WriteString("\n## Cost\n\n" + p.costTable(rows) + "\n" + promptTable(rows))
		return []string{"context.png"}, p.passFigure(rows, filepath.Join(dir, "context.png"))
	case "trigger":
		b.WriteString("## pass@k\n\n" + p.passTable(rows) + "\n## The probe against the entropy trigger\n\n" + p.pairedTable(ref, others))
		fmt.Fprintf(b, "\n## Triggers\n\nEntropy threshold: %s nats.\n\n%s\n%s", p.entropyThreshold(), p.costTable(rows), kindTable(rows))
		gold, err := p.goldSection(rows)
		if err != nil {
			return nil, err
		}
		b.WriteString("\n## What the context changes brought\n\n" + gold)
		return []string{"trigger.png"}, p.passFigure(rows, filepath.Join(dir, "trigger.png"))
	}
	return nil, fmt.Errorf("no experiment %q", p.Experiment)
}

// split returns the reference row and the others.
func (p *Plan) split(rows []row) (row, []row) {
	var ref row
	var others []row
	for _, r := range rows {
		if r.Name == p.Reference {
			ref = r
		} else {
			others = append(others, r)
		}
	}
	return ref, others
}

// entropyThreshold is the entropy trigger's threshold in the plan.
func (p *Plan) entropyThreshold() string {
	for _, r := range p.Runs {
		if r.Spec.Entropy > 0 {
			return num(r.Spec.Entropy)
		}
		if r.Equal {
			return EqualRate
		}
	}
	return "–"
}

// passFigure draws pass@k per configuration with bootstrap intervals.
func (p *Plan) passFigure(rows []row, path string) error {
	what := "pass@k"
	if ks := p.ks(); len(ks) == 1 {
		what = fmt.Sprintf("pass@%d", ks[0])
	}
	c := chart.Bars{Title: fmt.Sprintf("%s on %d tasks, n = %d (95 %% bootstrap intervals over tasks)", what, len(p.Settings.Tasks), p.Settings.N),
		YLabel: what + " (%)"}
	for _, r := range rows {
		c.Groups = append(c.Groups, r.Label)
	}
	for _, k := range p.ks() {
		s := chart.Series{Name: fmt.Sprintf("pass@%d", k)}
		for _, r := range rows {
			v, lo, hi := math.NaN(), math.NaN(), math.NaN()
			if r.g != nil {
				v, lo, hi = report.PassAtPct(*r.g, k)
			}
			s.Values, s.Lo, s.Hi = append(s.Values, v), append(s.Lo, lo), append(s.Hi, hi)
		}
		c.Series = append(c.Series, s)
	}
	return c.Save(path)
}

// costFigure stacks each configuration's ms per token: plain decoding and
// ACToR's work.
func (p *Plan) costFigure(rows []row, path string) error {
	c := chart.Bars{Title: "decoding time per generated token", YLabel: "ms/token", Stacked: true}
	parts := []struct {
		name string
		ms   func(*Traces) float64
	}{
		{"plain decoding", func(t *Traces) float64 { return t.DecodeMs - t.ProbeMs - t.RetrieveMs - t.ReprefillMs }},
		{"probe", func(t *Traces) float64 { return t.ProbeMs }},
		{"retrieval", func(t *Traces) float64 { return t.RetrieveMs }},
		{"re-prefill", func(t *Traces) float64 { return t.ReprefillMs }},
	}
	for _, r := range rows {
		c.Groups = append(c.Groups, r.Label)
	}
	for _, part := range parts {
		s := chart.Series{Name: part.name}
		for _, r := range rows {
			v := math.NaN()
			if r.t.Samples > 0 {
				v = r.t.PerToken(part.ms(r.t))
			}
			s.Values = append(s.Values, v)
		}
		c.Series = append(c.Series, s)
	}
	return c.Save(path)
}

// heatFigures draws the grid's pass@1 and flag rate as heatmaps.
func (p *Plan) heatFigures(rows []row) error {
	s := p.Settings
	for _, f := range []struct {
		file, title string
		value       func(row) float64
	}{{"sensitivity.png", "pass@1 (%)", passValue(1)}, {"sensitivity-rate.png", "flag rate (% of judged tokens)", flagRate}} {
		h := chart.Heat{Title: f.title, XLabel: "attention influence threshold", YLabel: "entropy threshold (nats)", Format: "%.2f"}
		for _, i := range s.Influences {
			h.X = append(h.X, num(i))
		}
		for _, e := range s.Entropies {
			h.Y = append(h.Y, num(e))
			var line []float64
			for _, i := range s.Influences {
				line = append(line, cellValue(rows, Cell{e, i}, f.value))
			}
			h.Values = append(h.Values, line)
		}
		if err := h.Save(filepath.Join(p.ReportDir(), f.file)); err != nil {
			return err
		}
	}
	return nil
}

// bestRow returns the row with the highest pass@1 among those tested (the
// first of equals) and the others.
func bestRow(rows []row) (row, []row) {
	bi := -1
	for i, r := range rows {
		if r.g != nil && (bi < 0 || r.g.PassAt[1] > rows[bi].g.PassAt[1]) {
			bi = i
		}
	}
	if bi < 0 {
		return row{}, nil
	}
	rest := append(slices.Clone(rows[:bi]), rows[bi+1:]...)
	return rows[bi], rest
}

// promptTable is what each configuration's prompts cost: their length and
// the prefill time per sample.
func promptTable(rows []row) string {
	var b strings.Builder
	b.WriteString("| configuration | prompt tokens (mean per attempt) | prefill s/sample |\n|---|---:|---:|\n")
	for _, r := range rows {
		t := r.t
		if t.Samples == 0 || t.Attempts == 0 {
			fmt.Fprintf(&b, "| %s | – | – |\n", r.Label)
			continue
		}
		fmt.Fprintf(&b, "| %s | %.0f | %.2f |\n", r.Label, float64(t.PromptTokens)/float64(t.Attempts), t.PrefillMs/1000/float64(t.Samples))
	}
	b.WriteString("\nPrefill: the prompts' first computation in every attempt (re-prefills after a context change are in the table above).\n")
	return b.String()
}
