package analysis

import (
	"actor/probe"
	"actor/probe/labelstore"
	"actor/probe/mlp"
)

// Flagging is how a trained probe judges the labelled tokens that
// Algorithm 1 would judge (not the first target token, not whitespace-only
// tokens): how many it flags, and its agreement with the labels. Unless the
// probe was trained on other data, these tokens include its training set.
type Flagging struct {
	Probe   string
	Judged  int         // tokens eligible for judging
	Flagged int         // of which the ensemble flags
	Metrics mlp.Metrics // decision against the labels on the judged tokens
}

// Flag runs p over the judged tokens of set, in batches.
func Flag(set *labelstore.Set, p *probe.Probe, name string) (*Flagging, error) {
	if err := p.Model.Check(set.Header.Model); err != nil {
		return nil, err
	}
	f := &Flagging{Probe: name}
	var rows []int64
	var ys []int32
	for _, t := range set.Tokens {
		if probe.Skip(t.Pos, t.Text, false) != "" {
			continue
		}
		rows = append(rows, t.Row)
		y := int32(0)
		if t.Criteria(p.Rules)&p.Rules.Enabled != 0 {
			y = 1
		}
		ys = append(ys, y)
	}
	d := set.Header.Model.Hidden
	const chunk = 512
	x := make([]float32, chunk*d)
	dec := make([]bool, chunk)
	for lo := 0; lo < len(rows); lo += chunk {
		hi := min(lo+chunk, len(rows))
		n := hi - lo
		if err := set.Hidden(rows[lo:hi], x[:n*d]); err != nil {
			return nil, err
		}
		p.CriticalBatch(x[:n*d], dec[:n])
		for i := range n {
			pred := int32(0)
			if dec[i] {
				pred = 1
				f.Flagged++
			}
			f.Metrics.Add(pred, ys[lo+i])
		}
	}
	f.Judged = len(rows)
	f.Metrics.Finish()
	return f, nil
}
