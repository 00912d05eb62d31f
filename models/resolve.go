package models

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Resolve turns a --model argument into a path: an existing file or folder
// is returned as given; a known model name that has been pulled returns its
// path in the cache; a known name not yet pulled, or anything else, is an
// error telling the user what to do.
func Resolve(nameOrPath string) (string, error) {
	if nameOrPath == "" {
		return "", fmt.Errorf("no model given; known models: %s (or pass a file path)", Names())
	}
	_, err := os.Stat(nameOrPath)
	if err == nil {
		return nameOrPath, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("model %s: %v", nameOrPath, err)
	}
	m := Lookup(nameOrPath)
	if m == nil {
		return "", fmt.Errorf("model %q is neither an existing file nor a known model (known: %s)", nameOrPath, Names())
	}
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	ok, err := m.Present(dir)
	if err != nil {
		return "", fmt.Errorf("model %s: %v", m.Name, err)
	}
	if !ok {
		return "", fmt.Errorf("model %s is not downloaded; run: actor models pull %s", m.Name, m.Name)
	}
	return m.Path(dir), nil
}
