package sandbox

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// worldExecutable reports whether any user can execute path: the file and
// every folder above it grant execute permission to others.
func worldExecutable(path string) bool {
	for p := path; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if p == filepath.Dir(p) {
			return true
		}
	}
}

// worldReadable reports whether any user can open path: every folder on
// the way lets others pass, and path itself lets others read it.
func worldReadable(path string) bool {
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm()&0o004 == 0 {
		return false
	}
	return worldExecutable(filepath.Dir(path))
}

// copyExe copies the helper executable into a folder anyone can enter.
func (s *Sandbox) copyExe() error {
	dir, err := os.MkdirTemp("", "actor-sandbox-")
	if err != nil {
		return err
	}
	dst := filepath.Join(dir, "helper")
	err = os.Chmod(dir, 0o755)
	if err == nil {
		err = copyFile(s.exe, dst, 0o755)
	}
	if err != nil || !worldExecutable(dst) {
		os.RemoveAll(dir)
		return fmt.Errorf("sandbox: cannot make a helper copy that any user can run in %s: %v", dir, err)
	}
	s.exe, s.copyDir = dst, dir
	return nil
}

// copyFile copies src to a new file dst with mode perm.
func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
