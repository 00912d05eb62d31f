package models

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"actor/gguf"
)

// SHA256File returns the lower-case hex SHA-256 of the file at path: how a
// pulled model is verified, and how encoders name the file their vectors
// came from.
func SHA256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkFile verifies that path has the size and SHA-256 that want records.
func checkFile(path string, want File) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.Size() != want.Size {
		return fmt.Errorf("%s: size %d bytes, want %d", path, st.Size(), want.Size)
	}
	sum, err := SHA256File(path)
	if err != nil {
		return err
	}
	if sum != want.SHA256 {
		return fmt.Errorf("%s: SHA-256 %s, want %s", path, sum, want.SHA256)
	}
	return nil
}

// Verify checks the pulled copy of m in the models folder dir: every file's
// size and SHA-256 and, for a GGUF model, its header and metadata.
func (m *Model) Verify(dir string) error {
	return m.check(m.Path(dir))
}

// check verifies a copy of m at path (the .gguf file or the folder), which
// need not be at its final place yet.
func (m *Model) check(path string) error {
	if m.Format == FormatGGUF {
		if err := checkFile(path, m.Files[0]); err != nil {
			return err
		}
		return m.checkGGUF(path)
	}
	for _, f := range m.Files {
		if err := checkFile(filepath.Join(path, filepath.FromSlash(f.Name)), f); err != nil {
			return err
		}
	}
	return nil
}

// checkGGUF verifies that path is a well-formed GGUF file (header parses,
// every tensor lies inside the file) of the expected architecture with the
// expected metadata values; this catches parts joined in the wrong order.
func (m *Model) checkGGUF(path string) error {
	f, err := gguf.Open(path)
	if err != nil {
		return err
	}
	if a := f.Architecture(); a != m.Architecture {
		return fmt.Errorf("%s: architecture %q, want %q", path, a, m.Architecture)
	}
	for _, key := range slices.Sorted(maps.Keys(m.Metadata)) {
		v, err := f.Uint(key)
		if err != nil {
			return err
		}
		if v != m.Metadata[key] {
			return fmt.Errorf("%s: %s = %d, want %d", path, key, v, m.Metadata[key])
		}
	}
	return nil
}
