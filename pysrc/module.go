package pysrc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ModuleFile returns the file of a dotted module name under a source root,
// relative to it with slashes: pkg/mod.py, else pkg/mod/__init__.py, as
// Python's import system looks for them. Benchmarks name their targets by
// module; this is the one lookup of both task readers.
func ModuleFile(root, module string) (string, error) {
	if module == "" {
		return "", errors.New("no module name")
	}
	base := strings.ReplaceAll(module, ".", "/")
	tried := []string{base + ".py", base + "/__init__.py"}
	for _, rel := range tried {
		_, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err == nil {
			return rel, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("module %s not found in %s (looked for %s)", module, root, strings.Join(tried, ", "))
}
