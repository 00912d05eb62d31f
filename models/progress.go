package models

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
)

// meter follows one byte stream: bytes written to it advance it, Set64
// moves it (a resumed download starts part-way), Done ends its line.
type meter interface {
	io.Writer
	Set64(n int64) error
	Done()
}

// silent is the meter used when progress is not shown.
type silent struct{}

func (silent) Write(p []byte) (int, error) { return len(p), nil }
func (silent) Set64(int64) error           { return nil }
func (silent) Done()                       {}

// newMeter returns a progress bar on stderr showing bytes, rate and ETA for
// a stream of total bytes, or a silent meter when show is false.
func newMeter(show bool, total int64, desc string) meter {
	if !show {
		return silent{}
	}
	return bar{progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowTotalBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { os.Stderr.WriteString("\n") }),
	)}
}

// bar is a meter drawn on stderr.
type bar struct{ *progressbar.ProgressBar }

// Done ends the bar's line when the stream stopped short of its total (a
// full bar has ended its line already).
func (b bar) Done() {
	if b.IsStarted() && !b.IsFinished() {
		_ = b.Exit()
	}
}
