package models

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// HomeEnv is the environment variable that moves the actor cache folder.
const HomeEnv = "ACTOR_HOME"

// Home returns the actor cache folder: $ACTOR_HOME when set, otherwise
// <user cache dir>/actor (e.g. ~/.cache/actor on Linux).
func Home() (string, error) {
	if h := os.Getenv(HomeEnv); h != "" {
		return h, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder: set %s (%v)", HomeEnv, err)
	}
	return filepath.Join(c, "actor"), nil
}

// Dir returns the folder pulled models live in: <Home>/models.
func Dir() (string, error) {
	h, err := Home()
	if err != nil {
		return "", err
	}
	return filepath.Join(h, "models"), nil
}

// Path returns where model m lives inside the models folder dir:
// dir/<name>.gguf for a GGUF model, dir/<name> for a folder model.
func (m *Model) Path(dir string) string {
	if m.Format == FormatGGUF {
		return filepath.Join(dir, m.Name+".gguf")
	}
	return filepath.Join(dir, m.Name)
}

// filePath returns where expected file f of m lives inside dir.
func (m *Model) filePath(dir string, f File) string {
	if m.Format == FormatGGUF {
		return m.Path(dir)
	}
	return filepath.Join(m.Path(dir), filepath.FromSlash(f.Name))
}

// Present reports whether every file of m exists in dir with its expected
// size. It is the cheap check used by list and Resolve; Pull additionally
// checks digests.
func (m *Model) Present(dir string) (bool, error) {
	for _, f := range m.Files {
		st, err := os.Stat(m.filePath(dir, f))
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if !st.Mode().IsRegular() || st.Size() != f.Size {
			return false, nil
		}
	}
	return true, nil
}
