package sandbox

import (
	"fmt"
	"syscall"
)

// Passed reports whether the run exited with status 0 within its limits.
func (r Result) Passed() bool {
	return r.Err == nil && !r.TimedOut && !r.Canceled && r.Signal == 0 && r.Exit == 0
}

// Reason says in a few words why a run did not pass ("" when it passed).
func (r Result) Reason() string {
	switch {
	case r.Err != nil:
		return "could not start: " + r.Err.Error()
	case r.Canceled:
		return "canceled"
	case r.TimedOut:
		return fmt.Sprintf("timeout: killed after %s", r.Duration.Round(100_000_000))
	case r.Signal == syscall.SIGXCPU:
		return "CPU time limit exceeded (SIGXCPU)"
	case r.Signal == syscall.SIGXFSZ:
		return "file size limit exceeded (SIGXFSZ)"
	case r.Signal != 0:
		return fmt.Sprintf("killed by signal %s", r.Signal)
	case r.Exit != 0:
		return fmt.Sprintf("exit status %d", r.Exit)
	}
	return ""
}
