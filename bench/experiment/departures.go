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

// baseline is the configuration ACToR is paired with: with the same seed,
// an ACToR sample whose context never changed and whose first prompt has
// RawRAG's blocks is RawRAG's sample up to rounding. ACToR's first
// retrieval pools the query with position-aware weights where RawRAG
// mean-pools it, so its first blocks can differ too.
const baseline = "rawrag"

// records are run name's tested samples in the experiment's scope.
func (p *Plan) records(name string) ([]results.Record, error) {
	recs, err := results.Read(filepath.Join(p.RunDir(name), "eval", results.SamplesFile))
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(recs, func(r results.Record) bool { return !p.inScope(r.TaskID, r.Sample) }), nil
}

// pairs counts ACToR's samples against RawRAG's of the same task and seed.
type pairs struct {
	samples int
	// pass, basePass: samples ACToR / RawRAG passed; won, lost: samples
	// only ACToR / only RawRAG passed.
	pass, basePass, won, lost int
}

func (c *pairs) add(a, b results.Record) {
	c.samples++
	c.pass += b2i(a.Passed)
	c.basePass += b2i(b.Passed)
	c.won += b2i(a.Passed && !b.Passed)
	c.lost += b2i(b.Passed && !a.Passed)
}

// departure splits one ACToR configuration's paired samples by where they
// can differ from RawRAG's: a context change, or only the first blocks.
type departure struct {
	label string
	// changed: samples with a context change (changes and triggers
	// there); sameStart: no change and RawRAG's first blocks (sameCode of
	// them wrote RawRAG's code); otherStart: no change, other first
	// blocks.
	changed, sameStart, otherStart        pairs
	changes, reorders, triggers, sameCode int
}

// departures compares every ACToR configuration's samples with RawRAG's.
func (p *Plan) departures(rows []row) ([]departure, error) {
	i := slices.IndexFunc(rows, func(r row) bool { return r.Name == baseline })
	if i < 0 {
		return nil, nil
	}
	baseCtx := rows[i].t.contexts
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
			k := sampleKey{a.TaskID, a.Sample}
			b, ok := byKey[k]
			switch {
			case !ok:
			case a.ContextChanges > 0:
				d.changed.add(a, b)
				d.changes += a.ContextChanges
				d.reorders += row.t.contexts[k].reorders()
				d.triggers += a.Triggers
			case row.t.contexts[k].firstKey() == baseCtx[k].firstKey():
				d.sameStart.add(a, b)
				d.sameCode += b2i(a.CodeSHA == b.CodeSHA)
			default:
				d.otherStart.add(a, b)
			}
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
	b.WriteString("| configuration: samples | paired with RawRAG's | passed: ACToR / RawRAG | won / lost | p (sign test) |\n" +
		"|---|---:|---:|---:|---:|\n")
	line := func(what string, c pairs) {
		fmt.Fprintf(&b, "| %s | %d | %d / %d | %d / %d | %.3g |\n", what, c.samples, c.pass, c.basePass, c.won, c.lost,
			stats.SignTest(c.won, c.lost))
	}
	for _, d := range ds {
		line(fmt.Sprintf("%s: with a context change (%d changes, %d of them the same blocks reordered; %d triggers)",
			d.label, d.changes, d.reorders, d.triggers), d.changed)
		line(fmt.Sprintf("%s: no change, RawRAG's first blocks (%d wrote RawRAG's code)", d.label, d.sameCode), d.sameStart)
		line(fmt.Sprintf("%s: no change, other first blocks", d.label), d.otherStart)
	}
	b.WriteString("\nSamples of the same task and seed. ACToR's first retrieval pools the query's token embeddings " +
		"with position-aware weights, RawRAG's with their mean, so ACToR can start from other blocks; after that it " +
		"departs from RawRAG only at a context change: new blocks, or (under the authors' change rule, with the ranked layout) the same blocks in another order, after which the token is drawn again with the same information. A sample with neither is RawRAG's up to rounding (the two runs " +
		"reuse cached keys and values of other prompts and batch rows differently, and on quantised matrices a row's " +
		"products can round differently in another batch split, which can flip a later draw). Won/lost: samples only " +
		"ACToR / only RawRAG passed; p: exact two-sided sign test on them (samples of one task are not independent: " +
		"read it as a guide).\n")
	return b.String()
}
