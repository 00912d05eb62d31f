package bench

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"actor/bench/results"
)

// progress reports finished samples: a bar with rate and ETA on a
// terminal, else a log line every 5% (and for every sample that did not
// pass) with the same figures.
type progress struct {
	w      io.Writer
	bar    *progressbar.ProgressBar
	total  int
	n      int
	passed int
	start  time.Time
	next   int
}

func newProgress(w io.Writer, bar bool, total int) *progress {
	p := &progress{w: w, total: total, start: time.Now()}
	if bar && total > 0 {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("testing"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("samples"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionFullWidth(),
		)
	}
	return p
}

// done counts one recorded sample.
func (p *progress) done(r results.Record) {
	p.n++
	if r.Passed {
		p.passed++
	}
	if p.bar != nil {
		p.bar.Add(1)
		p.bar.Describe(fmt.Sprintf("testing (%d passed)", p.passed))
		return
	}
	if !r.Passed {
		fmt.Fprintf(p.w, "task %s sample %d (%s): %s: %s\n", r.TaskID, r.Sample, r.Method, r.Status, r.Reason)
	}
	if p.n >= p.next || p.n == p.total {
		el := time.Since(p.start)
		rate := float64(p.n) / el.Seconds()
		eta := time.Duration(float64(p.total-p.n) / rate * float64(time.Second))
		fmt.Fprintf(p.w, "%d/%d samples tested, %d passed, %.2f samples/s, elapsed %s, ETA %s\n",
			p.n, p.total, p.passed, rate, el.Round(time.Second), eta.Round(time.Second))
		p.next = p.n + max(1, p.total/20)
	}
}

// finish ends the bar's line.
func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}
