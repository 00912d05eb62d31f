//go:build unix

package models

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// lockPull takes an exclusive lock on path that serialises pulls of one
// model across processes (several agents and CI share one cache). While
// another pull holds it, waiting is called once and the lock is retried
// until ctx ends. The kernel drops the lock when its holder dies, so a
// killed pull never leaves a stale lock behind.
func lockPull(ctx context.Context, path string, waiting func()) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for first := true; ; first = false {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		if first {
			waiting()
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
