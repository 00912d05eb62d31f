// Package jsonl is the project's one JSON-lines package: it appends records
// to a file one line at a time, each line written whole and synced to disk
// before Append returns, so that a process killed at any moment leaves
// every finished record readable (a torn last line, from a kill in the
// middle of a write, is cut off when the file is opened again); and it
// reads the rows of outside JSON data files (rows.go).
package jsonl

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// Appender appends records to one file; it is safe for concurrent use.
type Appender struct {
	mu sync.Mutex
	f  *os.File
}

// OpenAppend opens (creating it if needed) path for appending, first cutting
// off a torn last line. It returns how many bytes it cut. The file stays
// locked until Close: a second appender, in this process or another (two
// runs given the same folder), is refused instead of interleaving lines.
func OpenAppend(path string) (*Appender, int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, 0, err
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	cut, err := repair(f)
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %v", path, err)
	}
	return &Appender{f: f}, cut, nil
}

// repair truncates f after its last newline and leaves the offset at the end.
func repair(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	keep := size
	buf := make([]byte, 64*1024)
	for keep > 0 {
		n := int64(len(buf))
		if n > keep {
			n = keep
		}
		if _, err := f.ReadAt(buf[:n], keep-n); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			keep = keep - n + int64(i) + 1
			break
		}
		keep -= n
	}
	if keep != size {
		if err := f.Truncate(keep); err != nil {
			return 0, err
		}
		if err := f.Sync(); err != nil {
			return 0, err
		}
	}
	_, err = f.Seek(keep, io.SeekStart)
	return size - keep, err
}

// Append writes v as one JSON line and syncs the file.
func (a *Appender) Append(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.f.Write(line); err != nil {
		return err
	}
	return a.f.Sync()
}

// Close closes the file.
func (a *Appender) Close() error { return a.f.Close() }

// Scan calls fn with the 1-based number and bytes of every non-blank line
// of path, stopping at the first error fn returns. A missing file has no
// lines; a file whose name ends in .gz is gunzipped (results folders keep
// their large traces compressed).
func Scan(path string, fn func(line int, raw []byte) error) error {
	data, err := readAll(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for n := 1; len(data) > 0; n++ {
		i := bytes.IndexByte(data, '\n')
		var line []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if err := fn(n, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// readAll reads path whole, gunzipping it when its name ends in .gz.
func readAll(path string) ([]byte, error) {
	if !strings.HasSuffix(path, ".gz") {
		return os.ReadFile(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	data, err := io.ReadAll(z)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}
