package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"actor/internal/atomicfile"
)

// File names in a results folder besides SamplesFile.
const (
	MetaFile    = "run.json"
	SummaryMD   = "summary.md"
	SummaryCSV  = "summary.csv"
	maxFailures = 300
)

// Meta describes a run; it is written to run.json.
type Meta struct {
	Benchmark   string   `json:"benchmark"`
	Data        string   `json:"data"`
	Repos       string   `json:"repos"`
	Predictions string   `json:"predictions"`
	Gold        bool     `json:"gold"`
	Command     string   `json:"command"`
	Python      string   `json:"python"`
	Isolation   string   `json:"isolation"`
	Timeout     float64  `json:"timeout_seconds"`
	Workers     int      `json:"workers"`
	Tasks       []string `json:"tasks"`
	// InputErrors are malformed dataset rows and predictions lines.
	InputErrors []string `json:"input_errors,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
	Started     string   `json:"started"`
	Finished    string   `json:"finished,omitempty"`
}

// WriteMeta writes m to dir/run.json atomically.
func WriteMeta(dir string, m Meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, MetaFile), append(b, '\n'))
}

// ReadMeta reads dir/run.json.
func ReadMeta(dir string) (Meta, error) {
	var m Meta
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%s: %v", filepath.Join(dir, MetaFile), err)
	}
	return m, nil
}

// FormatPct formats a pass rate in [0,1] as a percentage with two decimals.
func FormatPct(v float64) string { return strconv.FormatFloat(100*v, 'f', 2, 64) }

// FormatMean formats a mean with prec decimals, or "n/a".
func FormatMean(m Mean, prec int) string {
	if v, ok := m.Value(); ok {
		return strconv.FormatFloat(v, 'f', prec, 64)
	}
	return "n/a"
}

// passCell formats pass@k of g, or "n/a" when undefined.
func passCell(g Group, k int) string {
	v, ok := g.PassAt[k]
	return pctOrNA(v, ok)
}

// pctOrNA formats v as a percentage when ok, else "n/a".
func pctOrNA(v float64, ok bool) string {
	if !ok {
		return "n/a"
	}
	return FormatPct(v)
}

// WriteSummary writes summary.md and summary.csv for the groups of a run.
func WriteSummary(dir string, m Meta, groups []Group, recs []Record) error {
	if err := atomicfile.Write(filepath.Join(dir, SummaryMD), summaryMarkdown(m, groups, recs)); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, SummaryCSV), summaryCSV(groups))
}

func summaryMarkdown(m Meta, groups []Group, recs []Record) []byte {
	var b bytes.Buffer
	what := "predictions " + m.Predictions
	if m.Gold {
		what = "gold solutions (harness self-check)"
	}
	fmt.Fprintf(&b, "# %s: %s\n\n", m.Benchmark, what)
	fmt.Fprintf(&b, "- command: `%s`\n", m.Command)
	fmt.Fprintf(&b, "- data: %s; repositories: %s\n", m.Data, m.Repos)
	fmt.Fprintf(&b, "- python: %s; timeout %gs; %d workers\n", m.Python, m.Timeout, m.Workers)
	fmt.Fprintf(&b, "- sandbox: %s\n", m.Isolation)
	fmt.Fprintf(&b, "- tasks: %d; started %s, finished %s\n", len(m.Tasks), m.Started, m.Finished)
	twins := 0
	for _, r := range recs {
		if r.Twin != "" {
			twins++
		}
	}
	if twins > 0 {
		fmt.Fprintf(&b, "- %d of %d samples took the outcome of a tested sample of the same task with the same code (`twin` in %s)\n",
			twins, len(recs), SamplesFile)
	}
	for _, w := range m.Warnings {
		fmt.Fprintf(&b, "- warning: %s\n", w)
	}
	fmt.Fprintf(&b, "\n| method | model | tasks | n | samples | passed | timeouts | errors | pass@1 | pass@3 | pass@5 |\n")
	fmt.Fprintf(&b, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, g := range groups {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d | %s | %s | %s |\n", g.Method, g.Model, len(g.Tasks), g.N,
			g.Samples, g.Passed, g.Timeouts, g.Errors, passCell(g, 1), passCell(g, 3), passCell(g, 5))
	}
	fmt.Fprintf(&b, "\n| method | model | ms/token | s/sample | tokens | triggers/sample | context changes/sample | tokens/gold (passing) |\n")
	fmt.Fprintf(&b, "|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, g := range groups {
		trig, ctx := "n/a", "n/a"
		if g.Tokens.N > 0 {
			trig, ctx = FormatMean(g.Triggers, 2), FormatMean(g.ContextChanges, 2)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", g.Method, g.Model, FormatMean(g.MsPerToken, 1),
			FormatMean(g.Seconds, 2), FormatMean(g.Tokens, 1), trig, ctx, FormatMean(g.GoldRatio, 2))
	}
	for _, g := range groups {
		if len(g.Missing) > 0 {
			fmt.Fprintf(&b, "\n%s/%s: %d tasks have fewer than %d samples (missing ones count as failed): %s\n",
				g.Method, g.Model, len(g.Missing), g.N, strings.Join(g.Missing, ", "))
		}
	}
	if len(m.InputErrors) > 0 {
		fmt.Fprintf(&b, "\n## Input errors (%d, skipped)\n\n", len(m.InputErrors))
		for _, e := range m.InputErrors {
			fmt.Fprintf(&b, "- %s\n", e)
		}
	}
	var failed []Record
	for _, r := range recs {
		if !r.Passed {
			failed = append(failed, r)
		}
	}
	sort.Slice(failed, func(i, j int) bool { return lessRecord(failed[i], failed[j]) })
	fmt.Fprintf(&b, "\n## Samples that did not pass (%d)\n\n", len(failed))
	if len(failed) > 0 {
		fmt.Fprintf(&b, "| method | model | task | sample | status | reason |\n|---|---|---|---:|---|---|\n")
	}
	for i, r := range failed {
		if i == maxFailures {
			fmt.Fprintf(&b, "\n... %d more in %s\n", len(failed)-maxFailures, SamplesFile)
			break
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s |\n", r.Method, r.Model, r.TaskID, r.Sample, r.Status, mdCell(r.Reason))
	}
	return b.Bytes()
}

// lessRecord orders records by method, model, numeric-aware task id, sample.
func lessRecord(a, b Record) bool {
	if a.Method != b.Method {
		return a.Method < b.Method
	}
	if a.Model != b.Model {
		return a.Model < b.Model
	}
	if a.TaskID != b.TaskID {
		ai, aerr := strconv.Atoi(a.TaskID)
		bi, berr := strconv.Atoi(b.TaskID)
		if aerr == nil && berr == nil {
			return ai < bi
		}
		return a.TaskID < b.TaskID
	}
	return a.Sample < b.Sample
}

// mdCell makes s safe inside a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return strings.Join(strings.Fields(s), " ")
}

func summaryCSV(groups []Group) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	// Per task: n samples (missing ones count as failed), c passed; the ALL
	// row counts evaluated and passed samples and gives the mean pass@k.
	w.Write([]string{"method", "model", "task_id", "n", "c", "pass@1", "pass@3", "pass@5"})
	for _, g := range groups {
		for _, t := range g.Tasks {
			row := []string{g.Method, g.Model, t.Task, strconv.Itoa(t.N), strconv.Itoa(t.C)}
			for _, k := range Ks {
				row = append(row, pctOrNA(estimate(t.N, t.C, k)))
			}
			w.Write(row)
		}
		w.Write([]string{g.Method, g.Model, "ALL", strconv.Itoa(g.Samples), strconv.Itoa(g.Passed), passCell(g, 1), passCell(g, 3), passCell(g, 5)})
	}
	w.Flush()
	return b.Bytes()
}
