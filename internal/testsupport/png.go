package testsupport

import (
	"image/png"
	"os"
	"testing"
)

// CheckPNG fails the test unless path is a PNG image at least minWidth
// pixels wide (a figure that was drawn, not an empty file).
func CheckPNG(t testing.TB, path string, minWidth int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if w := img.Bounds().Dx(); w < minWidth {
		t.Fatalf("%s: %d pixels wide, want at least %d", path, w, minWidth)
	}
}
