package models

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// copyMember writes the zip member called name of the wheel file at path to
// w and returns the number of bytes written. archive/zip checks the
// member's CRC-32 as it reads.
func copyMember(path, name string, w io.Writer) (int64, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return 0, fmt.Errorf("%s: %s: %v", path, name, err)
		}
		defer r.Close()
		n, err := io.Copy(w, r)
		if err != nil {
			return n, fmt.Errorf("%s: %s: %v", path, name, err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("%s: no member %s", path, name)
}

// extractFolder copies every file of the wheel at path whose name starts
// with prefix into dir, keeping the sub-folders below prefix, and returns
// the number of bytes written. Names that would land outside dir are
// refused.
func extractFolder(path, prefix, dir string, w io.Writer) (int64, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", path, err)
	}
	defer zr.Close()
	var total int64
	found := false
	for _, f := range zr.File {
		rel, ok := strings.CutPrefix(f.Name, prefix)
		if !ok || strings.HasSuffix(f.Name, "/") {
			continue
		}
		if !filepath.IsLocal(rel) {
			return total, fmt.Errorf("%s: member %s escapes the model folder", path, f.Name)
		}
		found = true
		n, err := extractFile(f, filepath.Join(dir, filepath.FromSlash(rel)), w)
		total += n
		if err != nil {
			return total, fmt.Errorf("%s: %s: %v", path, f.Name, err)
		}
	}
	if !found {
		return 0, fmt.Errorf("%s: no files under %s", path, prefix)
	}
	return total, nil
}

// extractFile writes the zip member f to the new file dst, also copying its
// bytes to w (a progress meter).
func extractFile(f *zip.File, dst string, w io.Writer) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, err
	}
	r, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer r.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(io.MultiWriter(out, w), r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}
