package queue

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"actor/generate"
	"actor/predictions"
	"actor/runrecord"
)

// Item is one unit of work: the samples of one task that a worker
// generates together (pipeline.Groups cuts them).
type Item struct {
	Run     string         `json:"run"`
	Spec    runrecord.Spec `json:"spec"`
	Task    string         `json:"task"`
	Samples []int          `json:"samples"`
}

// ID names the item within all runs.
func (it *Item) ID() string {
	s := make([]string, len(it.Samples))
	for i, n := range it.Samples {
		s[i] = strconv.Itoa(n)
	}
	return it.Run + "/" + it.Task + "/" + strings.Join(s, ",")
}

// Keys are the prediction keys (predictions.Prediction.Key) the item's
// results have.
func (it *Item) Keys() []string {
	out := make([]string, len(it.Samples))
	for i, s := range it.Samples {
		p := predictions.Prediction{TaskID: it.Task, Sample: s, Method: it.Spec.MethodName, Model: it.Spec.Model}
		out[i] = p.Key()
	}
	return out
}

// Output is one generated sample: its prediction record and the sample
// (its trace without attempts unless the run traces).
type Output struct {
	Prediction predictions.Prediction `json:"prediction"`
	Sample     generate.Sample        `json:"sample"`
}

// Result is what a worker publishes for an item: the outputs, or why it
// refused the item.
type Result struct {
	Item    string   `json:"item"`
	Worker  string   `json:"worker"`
	Outputs []Output `json:"outputs,omitempty"`
	Refused string   `json:"refused,omitempty"`
}

// RunID names a run on the queue: a hash of its spec, its tasks and its
// number of samples, so that the same command started again (a
// coordinator restarted) finds its own results.
func RunID(spec runrecord.Spec, tasks []string, samples int) string {
	b, _ := json.Marshal(struct {
		Spec    runrecord.Spec
		Tasks   []string
		Samples int
	}{spec, tasks, samples})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}
