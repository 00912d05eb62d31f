package experiment

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"

	"actor/probe"
	"actor/probe/train"
)

// labelStats are what a trained probe's report says of its labels: the
// share of the training tokens labelled critical and the share of
// held-out teacher-forced tokens the ensemble flags at the paper's
// threshold, both in %.
type labelStats struct{ Labelled, HeldOut float64 }

// probeLabels reads labelStats from the probe file of each run that has
// one (--probe); a run whose file is missing (trained probes are not
// committed: a fresh checkout retrains them on the next run) or carries no
// report gets NaNs, shown as "–".
func (p *Plan) probeLabels(rows []row) (map[string]labelStats, error) {
	out := map[string]labelStats{}
	for _, r := range rows {
		st := labelStats{math.NaN(), math.NaN()}
		if r.Spec.Probe == "" {
			continue
		}
		pr, err := probe.Load(r.Spec.Probe)
		if errors.Is(err, fs.ErrNotExist) {
			out[r.Name] = st
			continue
		}
		if err != nil {
			return nil, err
		}
		var rep train.Report
		if json.Unmarshal(pr.Metrics, &rep) == nil && rep.Tokens > 0 {
			st.Labelled = 100 * float64(rep.Positives) / float64(rep.Tokens)
			if rep.Calibration != nil {
				st.HeldOut = 100 * rep.Calibration.PaperRate
			}
		}
		out[r.Name] = st
	}
	return out, nil
}

// labelTables are the grid of the cells' label shares and held-out flag
// rates, with what they mean.
func (p *Plan) labelTables(rows []row) (string, error) {
	st, err := p.probeLabels(rows)
	if err != nil {
		return "", err
	}
	get := func(f func(labelStats) float64) func(row) float64 {
		return func(r row) float64 {
			s, ok := st[r.Name]
			if !ok {
				return math.NaN()
			}
			return f(s)
		}
	}
	return "## The cells' labels and probes\n\n" +
		p.gridTable(rows, "critical labels %", get(func(s labelStats) float64 { return s.Labelled })) + "\n" +
		p.gridTable(rows, "held-out flag rate %", get(func(s labelStats) float64 { return s.HeldOut })) +
		"\nFrom each cell's probe file (its training report): critical labels is the share of the labels' " +
		"tokens the cell's thresholds call critical (by any rule); held-out flag rate is the share of the held-out " +
		"functions' teacher-forced tokens its ensemble flags at the paper's threshold (" + num(probe.DefaultThreshold) +
		"); the flag rate above is the share of the model's own generated tokens it flagged. – : no probe file " +
		"here (they are not committed; the next run retrains it).\n", nil
}
