package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// uidCount is how many user ids from UIDBase sandboxes may reserve.
const uidCount = 4096

// uidLockDir holds the lock files of reserved user ids. It is a fixed path,
// not $TMPDIR, so that every sandbox on the machine sees the same locks.
const uidLockDir = "/tmp/actor-sandbox-uids"

// reserveUID takes the first user id from UIDBase whose lock file no other
// process holds, ends any process a crashed earlier run left under it, and
// returns the locked file (named after the id); closing it releases the id.
func reserveUID() (*os.File, error) {
	dir := uidLockDir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	for uid := UIDBase; uid < UIDBase+uidCount; uid++ {
		f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(uid)+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			continue
		}
		killUID(uid)
		return f, nil
	}
	return nil, fmt.Errorf("sandbox: all %d user ids from %d are in use", uidCount, UIDBase)
}

// uidOfLock returns the user id a lock file from reserveUID stands for.
func uidOfLock(f *os.File) int {
	uid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(f.Name()), ".lock"))
	if err != nil {
		return -1
	}
	return uid
}
