package experiment

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"actor/bench/results"
	"actor/bench/stats"
	"actor/generate"
)

// baseline is the configuration ACToR starts from: its first prompt is
// RawRAG's, so with the same seed a sample whose context never changed is
// RawRAG's sample, and ACToR can differ from RawRAG only where a critical
// token changed the context.
const baseline = "rawrag"

// records are run name's tested samples in the experiment's scope.
func (p *Plan) records(name string) ([]results.Record, error) {
	recs, err := results.Read(filepath.Join(p.RunDir(name), "eval", results.SamplesFile))
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(recs, func(r results.Record) bool { return !p.inScope(r.TaskID, r.Sample) }), nil
}

// departure counts ACToR's samples against RawRAG's of the same task and
// seed, split by whether ACToR's context changed.
type departure struct {
	label string
	// Paired samples with and without a context change; of those without,
	// how many wrote RawRAG's code.
	changed, unchanged, same int
	// Passing samples among the changed (ACToR, RawRAG) and the unchanged.
	changedPass, changedBase, unchangedPass, unchangedBase int
	// Changed samples only ACToR passed (won) or only RawRAG passed (lost).
	won, lost int
	// Context changes and triggers over the changed samples.
	changes, triggers int
}

// departures compares every ACToR configuration's samples with RawRAG's.
func (p *Plan) departures(rows []row) ([]departure, error) {
	if !slices.ContainsFunc(rows, func(r row) bool { return r.Name == baseline }) {
		return nil, nil
	}
	base, err := p.records(baseline)
	if err != nil {
		return nil, err
	}
	byKey := map[sampleKey]results.Record{}
	for _, r := range base {
		byKey[sampleKey{r.TaskID, r.Sample}] = r
	}
	var out []departure
	for _, row := range rows {
		if !strings.HasPrefix(row.Method(), generate.MethodACToR) {
			continue
		}
		recs, err := p.records(row.Name)
		if err != nil {
			return nil, err
		}
		d := departure{label: row.Label}
		for _, a := range recs {
			b, ok := byKey[sampleKey{a.TaskID, a.Sample}]
			if !ok {
				continue
			}
			if a.ContextChanges == 0 {
				d.unchanged++
				d.unchangedPass += b2i(a.Passed)
				d.unchangedBase += b2i(b.Passed)
				d.same += b2i(a.CodeSHA == b.CodeSHA)
				continue
			}
			d.changed++
			d.changes += a.ContextChanges
			d.triggers += a.Triggers
			d.changedPass += b2i(a.Passed)
			d.changedBase += b2i(b.Passed)
			d.won += b2i(a.Passed && !b.Passed)
			d.lost += b2i(b.Passed && !a.Passed)
		}
		out = append(out, d)
	}
	return out, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// departureTable is the departures as a table, with what they mean.
func departureTable(ds []departure) string {
	var b bytes.Buffer
	b.WriteString("| configuration | samples paired with RawRAG's | with a context change | changes / triggers there | passed there: ACToR / RawRAG | samples won / lost there | p (sign test) | without a change: RawRAG's code | passed there: ACToR / RawRAG |\n" +
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, d := range ds {
		fmt.Fprintf(&b, "| %s | %d | %d | %d / %d | %d / %d | %d / %d | %.3g | %d of %d | %d / %d |\n", d.label, d.changed+d.unchanged,
			d.changed, d.changes, d.triggers, d.changedPass, d.changedBase, d.won, d.lost, stats.SignTest(d.won, d.lost),
			d.same, d.unchanged, d.unchangedPass, d.unchangedBase)
	}
	b.WriteString("\nACToR's first prompt is RawRAG's and the seeds are the same, so a sample whose context never changed " +
		"is RawRAG's sample up to rounding (the two runs reuse cached keys and values of other prompts and batch rows " +
		"differently, and on quantised matrices a row's products can round differently in another batch split, which can " +
		"flip a later draw); what ACToR adds or costs is in the samples with a change. Won/lost: samples of the same task and seed that only " +
		"ACToR / only RawRAG passed; p: exact two-sided sign test on them (samples of one task are not independent: read it " +
		"as a guide).\n")
	return b.String()
}
