package index

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/internal/testsupport"
)

// fakeEmbedder gives each text a deterministic 4-dim vector and records
// every text it was asked to embed; failAfter > 0 makes call number
// failAfter+1 fail.
type fakeEmbedder struct {
	calls     int
	failAfter int
	seen      map[string]int
}

func (f *fakeEmbedder) ID() string { return "fake-4" }
func (f *fakeEmbedder) Dim() int   { return 4 }
func (f *fakeEmbedder) Embed(texts []string) ([][]float32, error) {
	if f.failAfter > 0 && f.calls == f.failAfter {
		return nil, errors.New("encoder crashed")
	}
	f.calls++
	if f.seen == nil {
		f.seen = map[string]int{}
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		f.seen[t]++
		out[i] = fakeVec(t)
	}
	return out, nil
}

func fakeVec(t string) []float32 {
	h := sha256.Sum256([]byte(t))
	return []float32{float32(h[0]), float32(h[1]), float32(h[2]), float32(h[3])}
}

// repoFiles has 3 files; the same 2-line function appears in two files.
var repoFiles = map[string]string{
	"a.py":     "import os\nimport sys\n\ndef f():\n    return 1\n",
	"b.py":     "def f():\n    return 1\n\nclass B:\n    pass\n",
	"pkg/c.py": "X = 1\n\nY = 2\n",
	"notes.md": "not python\n",
}

func openTemp(t *testing.T) *Store {
	t.Helper()
	st, err := Open(filepath.Join(t.TempDir(), "idx", "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

var pyOnly = WalkOptions{Include: []string{"*.py"}}

func TestUpdateIncremental(t *testing.T) {
	root := testsupport.WriteTree(t, t.TempDir(), repoFiles)
	st := openTemp(t)
	emb := &fakeEmbedder{}
	opt := Options{Walk: pyOnly, Splitter: DefaultSplitter, Embedder: emb, EmbedBatch: 2}
	rep, err := Update(context.Background(), root, st, opt)
	if err != nil {
		t.Fatal(err)
	}
	// a.py: "import os\nimport sys\ndef f():\n    return 1" (2+2 lines merge)
	// b.py: "def f():\n    return 1\nclass B:\n    pass"
	// c.py: "X = 1\nY = 2": 3 distinct texts.
	if rep.Files != 3 || rep.Changed != 3 || rep.Embedded != 3 {
		t.Fatalf("first run %+v", rep)
	}
	corp, err := st.Load("fake-4")
	if err != nil {
		t.Fatal(err)
	}
	if len(corp.Candidates) != 3 || len(corp.Vectors) != 12 || corp.Dim != 4 {
		t.Fatalf("corpus %+v", corp)
	}
	if c := corp.Candidates[0]; c.Path != "a.py" || c.Start != 1 || c.End != 5 {
		t.Errorf("first candidate %+v", c)
	}
	for i, c := range corp.Candidates {
		want := fakeVec(c.Text)
		for j := range want {
			if corp.Vectors[4*i+j] != want[j] {
				t.Fatalf("vector %d = %v, want %v", i, corp.Vectors[4*i:4*i+4], want)
			}
		}
	}

	// Nothing changed: nothing is split or embedded again.
	rep, err = Update(context.Background(), root, st, opt)
	if err != nil || rep.Changed != 0 || rep.Embedded != 0 || rep.Removed != 0 {
		t.Fatalf("idle rerun %+v %v", rep, err)
	}

	// Edit b.py (one new block), delete pkg/c.py, add d.py whose block
	// equals a stored text: only the truly new text is embedded.
	os.WriteFile(filepath.Join(root, "b.py"), []byte("def f():\n    return 1\n\nclass B:\n    x = 2\n"), 0o644)
	os.Remove(filepath.Join(root, "pkg", "c.py"))
	os.WriteFile(filepath.Join(root, "d.py"), []byte("import os\nimport sys\n\ndef f():\n    return 1\n"), 0o644)
	rep, err = Update(context.Background(), root, st, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != 3 || rep.Changed != 2 || rep.Removed != 1 || rep.Embedded != 1 {
		t.Fatalf("incremental run %+v", rep)
	}
	corp, err = st.Load("fake-4")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range corp.Candidates {
		paths = append(paths, c.Path)
	}
	// d.py duplicates a.py's block, so only a.py's copy is kept.
	if strings.Join(paths, ",") != "a.py,b.py" {
		t.Errorf("paths after update: %v", paths)
	}
	for text, n := range emb.seen {
		if n != 1 {
			t.Errorf("%q embedded %d times", text, n)
		}
	}
	if _, _, embs, _ := st.Counts(); embs != 2 {
		t.Errorf("%d embeddings stored, want 2 (stale ones dropped)", embs)
	}
}

func TestUpdateResumesEmbedding(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 10; i++ {
		files[filepath.Join("m", string(rune('a'+i))+".py")] = strings.Repeat(string(rune('a'+i)), i+1) + " = 1\n"
	}
	root := testsupport.WriteTree(t, t.TempDir(), files)
	st := openTemp(t)
	emb := &fakeEmbedder{failAfter: 2}
	opt := Options{Walk: pyOnly, Splitter: DefaultSplitter, Embedder: emb, EmbedBatch: 3}
	rep, err := Update(context.Background(), root, st, opt)
	if err == nil || !strings.Contains(err.Error(), "encoder crashed") || rep.Embedded != 6 {
		t.Fatalf("interrupted run: %+v, %v", rep, err)
	}
	emb.failAfter = 0
	rep, err = Update(context.Background(), root, st, opt)
	if err != nil || rep.Embedded != 4 || rep.Changed != 0 {
		t.Fatalf("resumed run: %+v, %v", rep, err)
	}
	if len(emb.seen) != 10 {
		t.Errorf("%d distinct texts embedded", len(emb.seen))
	}
	for text, n := range emb.seen {
		if n != 1 {
			t.Errorf("%q embedded %d times", text, n)
		}
	}
}

func TestUpdateResumesScanning(t *testing.T) {
	files := map[string]string{"a.py": "a = 1\n", "b.py": "b = 1\n", "c_bin.py": "\x00", "d.py": "d = 1\n", "e.py": "e = 1\n"}
	root := testsupport.WriteTree(t, t.TempDir(), files)
	st := openTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	opt := Options{Walk: pyOnly, Splitter: DefaultSplitter, FileBatch: 1}
	opt.Walk.Skip = func(string, error) { cancel() } // interrupt at the binary file
	_, err := Update(ctx, root, st, opt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("want cancellation, got %v", err)
	}
	opt.Walk.Skip = nil
	rep, err := Update(context.Background(), root, st, opt)
	if err != nil || rep.Changed != 2 || rep.Files != 4 {
		t.Fatalf("resumed scan %+v %v", rep, err)
	}
}

func TestUpdateSplitterChange(t *testing.T) {
	root := testsupport.WriteTree(t, t.TempDir(), map[string]string{"a.py": strings.Repeat("x = 1\n", 30)})
	st := openTemp(t)
	if _, err := Update(context.Background(), root, st, Options{Splitter: DefaultSplitter}); err != nil {
		t.Fatal(err)
	}
	rep, err := Update(context.Background(), root, st, Options{Splitter: WindowSplitter})
	if err != nil || rep.Changed != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	corp, err := st.Load("")
	if err != nil {
		t.Fatal(err)
	}
	// Windows 1-10, 1-20, 11-30: the texts of 1-20 and 11-30 are equal (20
	// identical lines), so 2 stay.
	if len(corp.Candidates) != 2 || corp.Candidates[0].End != 10 || corp.Candidates[1].End != 20 {
		t.Errorf("%+v", corp.Candidates)
	}
}

func TestLoadErrors(t *testing.T) {
	root := testsupport.WriteTree(t, t.TempDir(), repoFiles)
	st := openTemp(t)
	if _, err := Update(context.Background(), root, st, Options{Walk: pyOnly, Splitter: DefaultSplitter}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load("fake-4"); err == nil || !strings.Contains(err.Error(), "no embeddings") {
		t.Errorf("unknown encoder: %v", err)
	}
	id, err := st.EncoderID("fake-4", 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.EncoderID("fake-4", 8); err == nil {
		t.Error("dimension change accepted")
	}
	texts, _ := st.MissingEmbeddings(id)
	st.PutEmbeddings(id, texts[:1], [][]float32{{1, 2, 3, 4}})
	if _, err := st.Load("fake-4"); err == nil || !strings.Contains(err.Error(), "have no embedding") {
		t.Errorf("partly embedded: %v", err)
	}
}

func TestOpenBadFiles(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte(strings.Repeat("this is not sqlite\n", 100)), 0o644)
	if _, err := Open(garbage); err == nil || !strings.Contains(err.Error(), garbage) || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("garbage: %v", err)
	}

	foreign := filepath.Join(dir, "foreign.db")
	db, _ := sql.Open("sqlite", foreign)
	db.Exec(`CREATE TABLE t(x)`)
	db.Close()
	if _, err := Open(foreign); err == nil || !strings.Contains(err.Error(), "not an actor index") {
		t.Errorf("foreign: %v", err)
	}

	old := filepath.Join(dir, "old.db")
	st, err := Open(old)
	if err != nil {
		t.Fatal(err)
	}
	st.SetMeta("schema", "0")
	st.Close()
	if _, err := Open(old); err == nil || !strings.Contains(err.Error(), "schema version") {
		t.Errorf("old schema: %v", err)
	}
}

// A database whose pages were overwritten must give an error, not a panic.
func TestDamagedDatabase(t *testing.T) {
	root := testsupport.WriteTree(t, t.TempDir(), repoFiles)
	path := filepath.Join(t.TempDir(), "index.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Update(context.Background(), root, st, Options{Walk: pyOnly, Splitter: DefaultSplitter}); err != nil {
		t.Fatal(err)
	}
	st.Close() // checkpoints the WAL into the main file
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 4096; i < len(data); i++ {
		data[i] = 0xA5
	}
	os.WriteFile(path, data, 0o644)
	st, err = Open(path)
	if err == nil {
		_, err = st.Load("")
		st.Close()
	}
	t.Log(err)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("damaged database: %v", err)
	}
}
