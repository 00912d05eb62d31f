package models

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// member is one file of a synthetic wheel.
type member struct {
	name string
	data []byte
}

// wheelBytes builds a zip archive holding the members in order.
func wheelBytes(t *testing.T, members ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range members {
		w, err := zw.Create(m.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// ggufBytes builds a minimal GGUF v3 file without tensors: its architecture
// and the given uint32 metadata, padded with filler bytes to at least size
// bytes so that it can be split into several parts.
func ggufBytes(arch string, meta map[string]uint32, size int) []byte {
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { le(uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	le(uint32(3))
	le(uint64(0))                 // tensors
	le(uint64(1 + len(meta) + 1)) // kv pairs
	str("general.architecture")
	le(uint32(8)) // string
	str(arch)
	for k, v := range meta {
		str(k)
		le(uint32(4)) // uint32
		le(v)
	}
	// A filler string value makes the header as long as asked for.
	str("test.filler")
	le(uint32(8))
	pad := max(size-b.Len()-8, 0)
	str(strings.Repeat("x", pad))
	return b.Bytes()
}

// sum returns the lower-case hex SHA-256 of data.
func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// fakeIndex is an httptest server speaking PEP 691 for the wheels it holds
// and serving their files with Range support. breakAfter, when positive,
// makes the next file response stop after that many bytes. Tests set the
// knobs before making requests.
type fakeIndex struct {
	*httptest.Server
	mu         sync.Mutex
	projects   map[string][]map[string]any // normalized name -> files
	files      map[string][]byte           // file name -> content
	breakAfter int
	noRange    bool     // answer every file request with 200 and all bytes
	ranges     []string // Range headers seen, "" for none
	fileHits   int
}

func newFakeIndex(t *testing.T) *fakeIndex {
	fi := &fakeIndex{projects: map[string][]map[string]any{}, files: map[string][]byte{}}
	fi.Server = httptest.NewServer(http.HandlerFunc(fi.serve))
	t.Cleanup(fi.Close)
	return fi
}

// add publishes data as the wheel file name of project; digest overrides
// the advertised sha256 when not empty.
func (fi *fakeIndex) add(project, name string, data []byte, digest string) {
	if digest == "" {
		digest = sum(data)
	}
	fi.mu.Lock()
	defer fi.mu.Unlock()
	p := normalize(project)
	fi.projects[p] = append(fi.projects[p], map[string]any{
		"filename": name,
		"url":      "../../files/" + name, // relative, as PEP 691 allows
		"size":     len(data),
		"hashes":   map[string]string{"sha256": digest},
	})
	fi.files[name] = data
}

func (fi *fakeIndex) serve(w http.ResponseWriter, r *http.Request) {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	if p, ok := strings.CutPrefix(r.URL.Path, "/simple/"); ok {
		files, ok := fi.projects[strings.TrimSuffix(p, "/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.pypi.simple.v1+json")
		_ = json.NewEncoder(w).Encode(map[string]any{"files": files})
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/files/")
	data, ok := fi.files[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	fi.fileHits++
	fi.ranges = append(fi.ranges, r.Header.Get("Range"))
	if fi.noRange {
		_, _ = w.Write(data)
		return
	}
	var content io.ReadSeeker = bytes.NewReader(data)
	if fi.breakAfter > 0 {
		content = &brokenReader{ReadSeeker: content, left: fi.breakAfter}
		fi.breakAfter = 0
	}
	http.ServeContent(w, r, name, time.Time{}, content)
}

// brokenReader fails after left bytes, which cuts the HTTP response short.
type brokenReader struct {
	io.ReadSeeker
	left int
}

func (b *brokenReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errors.New("connection lost")
	}
	p = p[:min(len(p), b.left)]
	n, err := b.ReadSeeker.Read(p)
	b.left -= n
	return n, err
}

// index returns the simple-API base URL of the server.
func (fi *fakeIndex) index() string { return fi.URL + "/simple" }

// noLeftovers fails the test when dir holds anything but the listed names.
func noLeftovers(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s holds %v, want %v", dir, got, want)
	}
}

// writeFile writes data to dir/name and returns the path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
