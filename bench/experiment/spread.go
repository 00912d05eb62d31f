package experiment

import (
	"bytes"
	"fmt"
	"slices"

	"actor/predictions"
)

// taskSpread tells, task by task, how much the configurations (the grid's
// cells) changed what was written and whether it passed: the cells whose
// samples of the task include a pass, out of the cells that tested all of
// them, and the distinct codes the cells wrote. A task that passes in every
// cell or in none adds the same to every cell's pass@1; only the others
// move it, so their number bounds what the thresholds can be said to do.
func (p *Plan) taskSpread(rows []row) (string, error) {
	type spread struct {
		tested, passing int
		codes           map[string]bool
	}
	tasks := map[string]*spread{}
	for _, t := range p.Settings.Tasks {
		tasks[t] = &spread{codes: map[string]bool{}}
	}
	for _, r := range rows {
		ps, _, err := predictions.Read(p.PredictionsFile(r.Name))
		if err != nil {
			return "", err
		}
		for _, pr := range ps {
			if p.inScope(pr.TaskID, pr.Sample) {
				tasks[pr.TaskID].codes[pr.Code] = true
			}
		}
		if r.g == nil {
			continue
		}
		for _, c := range r.g.Tasks {
			if s := tasks[c.Task]; s != nil && !slices.Contains(r.g.Missing, c.Task) {
				s.tested++
				if c.C > 0 {
					s.passing++
				}
			}
		}
	}
	var b bytes.Buffer
	b.WriteString("| task | cells with a pass | distinct codes |\n|---|---:|---:|\n")
	var all, none, some int
	for _, t := range p.Settings.Tasks {
		s := tasks[t]
		if s.tested == 0 {
			fmt.Fprintf(&b, "| %s | – | %d |\n", t, len(s.codes))
			continue
		}
		fmt.Fprintf(&b, "| %s | %d of %d | %d |\n", t, s.passing, s.tested, len(s.codes))
		switch s.passing {
		case s.tested:
			all++
		case 0:
			none++
		default:
			some++
		}
	}
	fmt.Fprintf(&b, "\nOf the %d tasks tested, %d pass in every cell that tested them, %d in none and %d in some: only those %d "+
		"move pass@1 from cell to cell. Distinct codes: the different functions the cells wrote for the task "+
		"(n = %d per cell); 1 means every cell wrote the same.\n", all+none+some, all, none, some, some, p.Settings.N)
	return b.String(), nil
}
