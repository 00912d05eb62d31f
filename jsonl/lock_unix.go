//go:build unix

package jsonl

import (
	"errors"
	"os"
	"syscall"
)

// lock takes an exclusive lock on f without waiting; the kernel drops it
// when f is closed or its process dies, so a killed writer leaves none.
func lock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errors.New("another writer (a second run with the same output?) has it open; wait for it or stop it")
	}
	return err
}
