package experiment

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"actor/bench/passk"
	"actor/bench/report"
	"actor/bench/results"
	"actor/bench/stats"
)

// row is one configuration's results: its tests (nil until tested),
// traces and blank samples.
type row struct {
	Run
	g     *results.Group
	t     *Traces
	blank int
}

// rows reads every configuration's results.
func (p *Plan) rows() ([]row, error) {
	out := make([]row, len(p.Runs))
	for i, r := range p.Runs {
		g, err := p.group(r.Name)
		if err != nil {
			return nil, err
		}
		t, err := p.readTraces(r.Name)
		if err != nil {
			return nil, err
		}
		blank, err := p.blankSamples(r.Name)
		if err != nil {
			return nil, err
		}
		out[i] = row{r, g, t, blank}
	}
	return out, nil
}

// ks are the k of pass@k defined with N samples.
func (p *Plan) ks() []int {
	var out []int
	for _, k := range results.Ks {
		if k <= p.Settings.N {
			out = append(out, k)
		}
	}
	return out
}

// passCell formats pass@k in % with its 95 % bootstrap interval.
func passCell(r row, k int) string {
	if r.g == nil {
		return "–"
	}
	v, lo, hi := report.PassAtPct(*r.g, k)
	switch {
	case math.IsNaN(v):
		return "–"
	case math.IsNaN(lo):
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", v, lo, hi)
}

// passTable is pass@k per configuration with bootstrap intervals.
func (p *Plan) passTable(rows []row) string {
	var b bytes.Buffer
	b.WriteString("| configuration | tasks | samples tested | blank |")
	sep := "|---|---:|---:|---:|"
	for _, k := range p.ks() {
		fmt.Fprintf(&b, " pass@%d %% [95 %% CI] |", k)
		sep += "---:|"
	}
	b.WriteString("\n" + sep + "\n")
	for _, r := range rows {
		tested := 0
		if r.g != nil {
			tested = r.g.Samples
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d |", r.Label, len(p.Settings.Tasks), tested, r.blank)
		for _, k := range p.ks() {
			fmt.Fprintf(&b, " %s |", passCell(r, k))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nBlank: samples whose code is white space only (the model wrote nothing but blank lines, " +
		"after the blank guard and the retries); they count as failures.\n")
	return b.String()
}

// projectTable is pass@1 per configuration on each project's tasks.
func (p *Plan) projectTable(rows []row) string {
	var projects []string
	tasks := map[string]int{}
	for _, t := range p.Settings.Tasks {
		pr := p.Settings.Projects[t]
		if tasks[pr] == 0 {
			projects = append(projects, pr)
		}
		tasks[pr]++
	}
	if len(projects) < 2 {
		return ""
	}
	var b bytes.Buffer
	b.WriteString("| configuration |")
	sep := "|---|"
	for _, pr := range projects {
		fmt.Fprintf(&b, " %s: %d |", pr, tasks[pr])
		sep += "---:|"
	}
	b.WriteString("\n" + sep + "\n")
	for _, r := range rows {
		if r.g == nil {
			continue
		}
		fmt.Fprintf(&b, "| %s |", r.Label)
		for _, pr := range projects {
			var counts []passk.Count
			for _, c := range r.g.Tasks {
				if p.Settings.Projects[c.Task] == pr {
					counts = append(counts, c)
				}
			}
			if v, ok := passk.Mean(counts, 1); ok {
				fmt.Fprintf(&b, " %.2f |", 100*v)
			} else {
				b.WriteString(" – |")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// pairedTable compares ref with each other row on the same tasks and
// seeds, by per-task pass@1 (see stats.Compare).
func (p *Plan) pairedTable(ref row, others []row) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "| %s vs | Δ pass@1 (points) [95 %% CI] | relative | tasks won | lost | tied | p (sign test) |\n|---|---:|---:|---:|---:|---:|---:|\n", ref.Label)
	for _, o := range others {
		if ref.g == nil || o.g == nil {
			fmt.Fprintf(&b, "| %s | – | – | – | – | – | – |\n", o.Label)
			continue
		}
		c, err := stats.Compare(ref.g.Tasks, o.g.Tasks, stats.Resamples, 1)
		if err != nil {
			fmt.Fprintf(&b, "| %s | %v | | | | | |\n", o.Label, err)
			continue
		}
		rel := "–"
		if base := o.g.PassAt[1]; base > 0 {
			rel = fmt.Sprintf("%+.1f %%", 100*c.Diff/base)
		}
		fmt.Fprintf(&b, "| %s | %+.2f [%+.2f, %+.2f] | %s | %d | %d | %d | %.3g |\n", o.Label, 100*c.Diff, 100*c.DiffCI.Lo,
			100*c.DiffCI.Hi, rel, c.Won, c.Lost, c.Tied, c.P)
	}
	b.WriteString("\nWon/lost: tasks where the first configuration's pass@1 (passing samples / n) is higher/lower. " +
		"p: exact two-sided sign test on won against lost (with n = 1 this is McNemar's exact test). " +
		"Intervals: 95 % percentile bootstrap over tasks, 10,000 resamples, tasks resampled jointly for both configurations. " +
		"Relative: Δ over the other configuration's pass@1.\n")
	return b.String()
}

// costTable is Table II from the traces: time per sample and per token,
// with ACToR's work inside decoding split out.
func (p *Plan) costTable(rows []row) string {
	var b bytes.Buffer
	b.WriteString("| configuration | samples | tokens/sample | s/sample | prefill ms/token | decode ms/token | plain | probe | retrieval | re-prefill | triggers/sample | context changes/sample | flag rate |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		t := r.t
		if t.Samples == 0 {
			fmt.Fprintf(&b, "| %s | 0 | | | | | | | | | | | |\n", r.Label)
			continue
		}
		work := t.ProbeMs + t.RetrieveMs + t.ReprefillMs
		n := float64(t.Samples)
		rate := "–"
		if t.Judged > 0 {
			rate = fmt.Sprintf("%.2f %%", 100*t.FlagRate())
		}
		fmt.Fprintf(&b, "| %s | %d | %.1f | %.2f | %.1f | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f | %.2f | %s |\n", r.Label, t.Samples,
			float64(t.Generated)/n, t.Seconds/n, t.PerToken(t.PrefillMs), t.PerToken(t.DecodeMs), t.PerToken(t.DecodeMs-work),
			t.PerToken(t.ProbeMs), t.PerToken(t.RetrieveMs), t.PerToken(t.ReprefillMs), float64(t.Triggers)/n, float64(t.Changes)/n, rate)
	}
	b.WriteString("\nFrom the traces (the last of each sample): ms per generated token. Decode includes ACToR's work: " +
		"the probe, retrievals after a trigger and re-prefills after a context change; plain is decoding without it. " +
		"Flag rate: triggers per judged token (not the first, not white space).\n")
	if p.Settings.Lanes() > 1 {
		b.WriteString("\nThese samples were decoded in batches (--batch-samples): a sample's times are those of the " +
			"batched steps it took part in, which the other lanes shared, and a step's time grows with the lanes in it " +
			"(compute-bound here), so per-token times depend on how long the task's samples ran side by side. " +
			"Compare configurations' cost on unbatched runs.\n")
	}
	for _, r := range rows {
		if r.t.Unreadable > 0 {
			fmt.Fprintf(&b, "\n%s: %d unreadable trace lines skipped (a run killed while writing).\n", r.Label, r.t.Unreadable)
		}
	}
	return b.String()
}

// gridTable lays value(run) out as the sensitivity grid, with the mean and
// standard deviation over the cells that have one.
func (p *Plan) gridTable(rows []row, what string, value func(row) float64) string {
	var b bytes.Buffer
	s := p.Settings
	fmt.Fprintf(&b, "| %s: entropy ≥ ↓, influence ≥ → |", what)
	sep := "|---|"
	for _, i := range s.Influences {
		fmt.Fprintf(&b, " %s |", num(i))
		sep += "---:|"
	}
	b.WriteString("\n" + sep + "\n")
	var vals []float64
	for _, e := range s.Entropies {
		fmt.Fprintf(&b, "| %s |", num(e))
		for _, i := range s.Influences {
			v := cellValue(rows, Cell{e, i}, value)
			if math.IsNaN(v) {
				b.WriteString(" – |")
				continue
			}
			vals = append(vals, v)
			fmt.Fprintf(&b, " %.2f |", v)
		}
		b.WriteString("\n")
	}
	if len(vals) > 1 {
		mean, sd := meanSD(vals)
		fmt.Fprintf(&b, "\nOver %d cells: mean %.2f, standard deviation %.2f, variance %.2f, range %.2f–%.2f.\n", len(vals), mean, sd, sd*sd, slices.Min(vals), slices.Max(vals))
	}
	return b.String()
}

// cellValue is value of the grid cell's run (NaN when it has none).
func cellValue(rows []row, c Cell, value func(row) float64) float64 {
	for _, r := range rows {
		if r.Cell != nil && *r.Cell == c {
			return value(r)
		}
	}
	return math.NaN()
}

// passValue returns pass@k in % of a row, NaN until all its tasks are
// tested (a missing sample would count as a failure).
func passValue(k int) func(row) float64 {
	return func(r row) float64 {
		if r.g == nil || len(r.g.Missing) > 0 {
			return math.NaN()
		}
		v, _, _ := report.PassAtPct(*r.g, k)
		return v
	}
}

// flagRate is a row's trigger rate in %, NaN without judged tokens.
func flagRate(r row) float64 {
	if r.t.Judged == 0 {
		return math.NaN()
	}
	return 100 * r.t.FlagRate()
}

// meanSD is the mean and sample standard deviation.
func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x / float64(len(v))
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean) / float64(len(v)-1)
	}
	return mean, math.Sqrt(sd)
}
