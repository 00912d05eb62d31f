package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Write replaces the content, leaves no temporary file, and on a folder
// that does not exist fails without creating anything.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	for _, text := range []string{"old", "new"} {
		if err := Write(path, []byte(text)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != text {
			t.Fatalf("after writing %q: %q %v", text, b, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the folder, want 1", len(ents))
	}
	if err := Write(filepath.Join(dir, "none", "f.txt"), []byte("x")); err == nil {
		t.Error("no error for a missing folder")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a failed write left files: %d", len(ents))
	}
}
