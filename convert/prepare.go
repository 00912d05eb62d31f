package convert

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// convertVersion changes when the converter's output for the same folder
// changes, so cached conversions are redone.
const convertVersion = "1"

// Prepare returns a GGUF encoder file for path: path itself when it is a
// file; for a Hugging Face checkpoint folder, its F32 conversion in
// cacheDir, made on first use (a note goes to log) and reused while the
// folder's files keep their names, sizes and modification times.
func Prepare(path, cacheDir string, log io.Writer) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("convert: %v", err)
	}
	if !st.IsDir() {
		return path, nil
	}
	key, err := folderKey(path)
	if err != nil {
		return "", fmt.Errorf("convert: %v", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	out := filepath.Join(cacheDir, filepath.Base(abs)+"-"+key[:12]+".gguf")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("convert: %v", err)
	}
	if log != nil {
		fmt.Fprintf(log, "converting %s to %s (once)\n", path, out)
	}
	if _, err := Convert(path, out, Options{Type: F32}); err != nil {
		return "", err
	}
	return out, nil
}

// folderKey hashes the names, sizes and modification times of the files
// of a folder (one level), and the converter version.
func folderKey(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "actor-encoder-convert-v%s\n", convertVersion)
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	for _, n := range names {
		st, err := os.Stat(filepath.Join(dir, n))
		if err != nil {
			return "", err
		}
		if st.Mode().IsRegular() {
			fmt.Fprintf(h, "%s\x00%d\x00%d\n", n, st.Size(), st.ModTime().UnixNano())
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
