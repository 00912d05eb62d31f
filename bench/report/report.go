// Package report renders benchmark results folders side by side as the
// paper's tables: Table I (methods × pass@1/3/5 per benchmark) and Table II
// (ms per token, seconds per sample, generated tokens and the
// generated/ground-truth token ratio on passing samples, plus retrieval
// triggers and context changes), in Markdown, and a PNG bar chart of pass@k
// with bootstrap intervals.
package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"

	"actor/bench/results"
)

// Row is one method and model on one benchmark, from one results folder.
type Row struct {
	Benchmark string
	Dir       string
	results.Group
}

// Label names the row's method and model.
func (r Row) Label() string {
	if r.Model == "" {
		return r.Method
	}
	return r.Method + " (" + r.Model + ")"
}

// Load reads results folders (their run.json and samples.jsonl) and returns
// one row per benchmark, method and model. The same triple in two folders
// is an error: the tables would not say which one they show.
func Load(dirs []string) ([]Row, error) {
	var rows []Row
	seen := map[string]string{}
	for _, dir := range dirs {
		meta, err := results.ReadMeta(dir)
		if err != nil {
			return nil, fmt.Errorf("%s is not a results folder: %v", dir, err)
		}
		recs, err := results.Read(filepath.Join(dir, results.SamplesFile))
		if err != nil {
			return nil, err
		}
		if len(recs) == 0 {
			return nil, fmt.Errorf("%s: no evaluated samples", dir)
		}
		for _, g := range results.Aggregate(recs, meta.Tasks) {
			key := meta.Benchmark + "\x00" + g.Method + "\x00" + g.Model
			if prev, dup := seen[key]; dup {
				return nil, fmt.Errorf("%s %s/%s is in both %s and %s", meta.Benchmark, g.Method, g.Model, prev, dir)
			}
			seen[key] = dir
			rows = append(rows, Row{Benchmark: meta.Benchmark, Dir: dir, Group: g})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Model != rows[j].Model {
			return rows[i].Model < rows[j].Model
		}
		return rows[i].Method < rows[j].Method
	})
	return rows, nil
}

// benchmarks lists the rows' benchmarks in first-seen order.
func benchmarks(rows []Row) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Benchmark] {
			seen[r.Benchmark] = true
			out = append(out, r.Benchmark)
		}
	}
	return out
}

// Markdown renders Table I and Table II.
func Markdown(rows []Row) []byte {
	var b bytes.Buffer
	benches := benchmarks(rows)
	b.WriteString("## Table I: pass@k (%)\n\n| model | method |")
	sep := "|---|---|"
	for _, bn := range benches {
		fmt.Fprintf(&b, " %s pass@1 | %s pass@3 | %s pass@5 |", bn, bn, bn)
		sep += "---:|---:|---:|"
	}
	b.WriteString("\n" + sep + "\n")
	type mm struct{ model, method string }
	var order []mm
	cells := map[mm]map[string]Row{}
	for _, r := range rows {
		k := mm{r.Model, r.Method}
		if cells[k] == nil {
			cells[k] = map[string]Row{}
			order = append(order, k)
		}
		cells[k][r.Benchmark] = r
	}
	for _, k := range order {
		fmt.Fprintf(&b, "| %s | %s |", dash(k.model), k.method)
		for _, bn := range benches {
			r, ok := cells[k][bn]
			for _, kk := range results.Ks {
				v, def := r.PassAt[kk]
				if !ok || !def {
					b.WriteString(" – |")
					continue
				}
				fmt.Fprintf(&b, " %s |", results.FormatPct(v))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\nn = samples per task; tasks with fewer samples count the missing ones as failed.\n")
	b.WriteString("\n## Table II: generation cost\n\n")
	b.WriteString("| benchmark | model | method | tasks | n | ms/token | s/sample | tokens generated | tokens/gold (passing) | triggers/sample | context changes/sample |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		trig, ctx := "–", "–"
		if r.Tokens.N > 0 {
			trig, ctx = results.FormatMean(r.Triggers, 2), results.FormatMean(r.ContextChanges, 2)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %s | %s | %s | %s | %s | %s |\n", r.Benchmark, dash(r.Model), r.Method,
			len(r.Tasks), r.N, na(results.FormatMean(r.MsPerToken, 1)), na(results.FormatMean(r.Seconds, 2)),
			na(results.FormatMean(r.Tokens, 1)), na(results.FormatMean(r.GoldRatio, 2)), trig, ctx)
	}
	b.WriteString("\nSources:\n")
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Dir] {
			seen[r.Dir] = true
			fmt.Fprintf(&b, "- %s\n", r.Dir)
		}
	}
	return b.Bytes()
}

func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func na(s string) string {
	if s == "n/a" {
		return "–"
	}
	return s
}
