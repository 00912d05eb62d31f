package testsupport

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile writes content to dir/rel ('/'-separated), making the folders
// on the way, and returns the file's path.
func WriteFile(t testing.TB, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// WriteTree writes files (relative path → content) under dir and returns
// dir.
func WriteTree(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	for rel, content := range files {
		WriteFile(t, dir, rel, content)
	}
	return dir
}
