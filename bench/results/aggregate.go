package results

import (
	"sort"

	"actor/bench/passk"
)

// Ks are the k of pass@k the harness reports (the paper's 1, 3 and 5).
var Ks = []int{1, 3, 5}

// Mean accumulates a mean over the samples that report a value.
type Mean struct {
	Sum float64
	N   int
}

func (m *Mean) add(v float64) {
	m.Sum += v
	m.N++
}

// Value returns the mean; ok is false when no sample reported a value.
func (m Mean) Value() (v float64, ok bool) {
	if m.N == 0 {
		return 0, false
	}
	return m.Sum / float64(m.N), true
}

// Group is the aggregate of one method and model over a task set.
type Group struct {
	Method, Model string
	// N is the number of samples per task (the most any task has); a task
	// with fewer counts its missing samples as failed.
	N int
	// Tasks holds each task's sample and pass counts, in task order.
	Tasks []passk.Count
	// PassAt maps k to the mean pass@k, for the k of Ks with k <= N.
	PassAt map[int]float64
	// Samples, Passed, Timeouts and Errors count evaluated samples.
	Samples, Passed, Timeouts, Errors int
	// Missing lists tasks with fewer than N evaluated samples.
	Missing []string
	// Generation figures (Table II): ms per token, seconds per sample,
	// generated tokens, retrieval triggers and context changes per sample,
	// and generated/ground-truth tokens on passing samples.
	MsPerToken, Seconds, Tokens, Triggers, ContextChanges, GoldRatio Mean
}

// Aggregate groups records by method and model and computes each group's
// pass@k over taskIDs (all tasks seen in records when taskIDs is nil).
func Aggregate(recs []Record, taskIDs []string) []Group {
	if taskIDs == nil {
		seen := map[string]bool{}
		for _, r := range recs {
			if !seen[r.TaskID] {
				seen[r.TaskID] = true
				taskIDs = append(taskIDs, r.TaskID)
			}
		}
	}
	type key struct{ method, model string }
	byGroup := map[key][]Record{}
	for _, r := range recs {
		k := key{r.Method, r.Model}
		byGroup[k] = append(byGroup[k], r)
	}
	var out []Group
	for k, rs := range byGroup {
		out = append(out, aggregateGroup(k.method, k.model, rs, taskIDs))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Method != out[j].Method {
			return out[i].Method < out[j].Method
		}
		return out[i].Model < out[j].Model
	})
	return out
}

func aggregateGroup(method, model string, rs []Record, taskIDs []string) Group {
	g := Group{Method: method, Model: model, PassAt: map[int]float64{}}
	n, c := map[string]int{}, map[string]int{}
	inSet := map[string]bool{}
	for _, id := range taskIDs {
		inSet[id] = true
	}
	for _, r := range rs {
		if !inSet[r.TaskID] {
			continue
		}
		n[r.TaskID]++
		g.Samples++
		switch r.Status {
		case StatusTimeout:
			g.Timeouts++
		case StatusError:
			g.Errors++
		}
		if r.Passed {
			c[r.TaskID]++
			g.Passed++
			if r.Tokens > 0 && r.GoldTokens > 0 {
				g.GoldRatio.add(float64(r.Tokens) / float64(r.GoldTokens))
			}
		}
		if r.MsPerToken > 0 {
			g.MsPerToken.add(r.MsPerToken)
		}
		if r.Seconds > 0 {
			g.Seconds.add(r.Seconds)
		}
		if r.Tokens > 0 {
			g.Tokens.add(float64(r.Tokens))
		}
		g.Triggers.add(float64(r.Triggers))
		g.ContextChanges.add(float64(r.ContextChanges))
		g.N = max(g.N, n[r.TaskID])
	}
	for _, id := range taskIDs {
		if n[id] < g.N {
			g.Missing = append(g.Missing, id)
		}
		g.Tasks = append(g.Tasks, passk.Count{Task: id, N: g.N, C: c[id]})
	}
	for _, k := range Ks {
		if v, ok := passk.Mean(g.Tasks, k); ok {
			g.PassAt[k] = v
		}
	}
	return g
}

// estimate is passk.Estimate with a defined flag.
func estimate(n, c, k int) (float64, bool) {
	v, err := passk.Estimate(n, c, k)
	return v, err == nil
}
