package serve

import (
	"context"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"actor/codesrc"
	"actor/generate"
	"actor/index"
	"actor/infill"
	"actor/pipeline"
	"actor/pysrc"
)

// repo is one configured repository as the server reads it.
type repo struct {
	Name string
	// root is the folder with its symbolic links resolved: every file
	// the server reads must resolve inside it.
	root   string
	corpus *generate.Corpus
	// texts are the blocks' texts by blockKey, for the events.
	texts     map[string]string
	functions []function
	// cursor is the repository as completions at an editor's cursor read
	// it.
	cursor *infill.Repository
	// seen is the fingerprint of its Python files when it was read.
	seen string
}

// function is a function of a repository the page may choose.
type function struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Name string `json:"name"`
	End  int    `json:"end"`
}

// repos are the configured repositories by name.
type repos struct {
	p      *pipeline.Pipeline
	mu     sync.RWMutex
	byName map[string]*repo
	names  []string
}

// openRepos reads every repository: its corpus (the index refreshed) and
// its functions.
func openRepos(ctx context.Context, p *pipeline.Pipeline, dirs []string) (*repos, error) {
	rs := &repos{p: p, byName: map[string]*repo{}}
	for _, d := range dirs {
		root, err := filepath.EvalSymlinks(d)
		if err == nil {
			root, err = filepath.Abs(root)
		}
		if err != nil {
			return nil, fmt.Errorf("--repo %s: %w", d, err)
		}
		if st, err := os.Stat(root); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--repo %s: not a folder", d)
		}
		name := filepath.Base(root)
		if _, dup := rs.byName[name]; dup {
			return nil, fmt.Errorf("--repo %s: a repository named %s is already served", d, name)
		}
		r := &repo{Name: name, root: root}
		if err := rs.load(ctx, r); err != nil {
			return nil, fmt.Errorf("--repo %s: %w", d, err)
		}
		rs.byName[name] = r
		rs.names = append(rs.names, name)
	}
	slices.Sort(rs.names)
	return rs, nil
}

// load reads r's corpus and functions.
func (rs *repos) load(ctx context.Context, r *repo) error {
	seen := r.fingerprint() // before reading: a change while it reads is seen next time
	c, err := rs.p.Corpus(ctx, r.root)
	if err != nil {
		return err
	}
	r.confine(c)
	texts := make(map[string]string, len(c.Blocks))
	for _, b := range c.Blocks {
		texts[blockKey(b.Path, b.Start, b.End)] = b.Text
	}
	fns, files, err := r.readFiles()
	if err != nil {
		return err
	}
	cur := infill.NewRepository(r.Name, files, c.Symbols)
	rs.mu.Lock()
	r.corpus, r.texts, r.functions, r.cursor, r.seen = c, texts, fns, cur, seen
	rs.mu.Unlock()
	return nil
}

// fingerprint sums the paths, sizes and modification times of the
// repository's source files (hidden folders left out): an edit, a new or
// a removed file changes it.
func (r *repo) fingerprint() string {
	h := fnv.New64a()
	filepath.WalkDir(r.root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && path != r.root && strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		case d.IsDir() || !codesrc.Source(d.Name()):
			return nil
		}
		if info, err := d.Info(); err == nil {
			fmt.Fprintf(h, "%s\x00%d\x00%d\n", path, info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return strconv.FormatUint(h.Sum64(), 16)
}

// changed reports whether the repository's files changed since it was
// read.
func (rs *repos) changed(r *repo) bool {
	now := r.fingerprint()
	rs.mu.RLock()
	defer rs.mu.RUnlock()
	return now != r.seen
}

// confine drops the blocks of files that are links out of the repository
// (the index follows linked files), so retrieval never shows what lies
// outside it.
func (r *repo) confine(c *generate.Corpus) {
	outside := map[string]bool{}
	keep := func(path string) bool {
		out, seen := outside[path]
		if !seen {
			_, _, err := r.file(path)
			out = err != nil
			outside[path] = out
		}
		return !out
	}
	dim := 0
	if c.Dense() {
		dim = c.Encoder.Dim()
	}
	var blocks []index.Candidate
	var vecs []float32
	for i, b := range c.Blocks {
		if keep(b.Path) {
			blocks = append(blocks, b)
			if dim > 0 {
				vecs = append(vecs, c.Vectors[i*dim:(i+1)*dim]...)
			}
		}
	}
	c.Blocks, c.Windows = blocks, slices.DeleteFunc(c.Windows, func(w index.Candidate) bool { return !keep(w.Path) })
	if dim > 0 {
		c.Vectors = vecs
	}
}

func blockKey(path string, start, end int) string { return fmt.Sprintf("%s:%d-%d", path, start, end) }

// readFiles reads the repository's source files of every language (not
// links out of it): the Python files' functions, and every file's
// content by path.
func (r *repo) readFiles() ([]function, map[string][]byte, error) {
	var out []function
	files := map[string][]byte{}
	walk := pipeline.DefaultIndexConfig().Walk
	walk.Include = codesrc.Globs()
	err := index.Walk(r.root, walk, func(f index.File) error {
		if _, _, e := r.file(f.Path); e != nil {
			return nil
		}
		files[f.Path] = f.Data
		if !strings.HasSuffix(f.Path, ".py") {
			return nil
		}
		pf, err := pysrc.Parse(f.Data)
		if err != nil {
			return nil // a file the parser refuses has no functions to offer
		}
		defer pf.Close()
		for _, fn := range pf.Functions() {
			out = append(out, function{File: f.Path, Line: fn.Start, Name: fn.Name, End: fn.End})
		}
		return nil
	})
	return out, files, err
}

// get returns the repository named name, or a 404.
func (rs *repos) get(name string) (*repo, *apiError) {
	rs.mu.RLock()
	defer rs.mu.RUnlock()
	r, ok := rs.byName[name]
	if !ok {
		return nil, &apiError{http.StatusNotFound, "not_found_error", fmt.Sprintf("unknown repository %q: served are %s", name, strings.Join(rs.names, ", "))}
	}
	return r, nil
}

// snapshot returns r's corpus and texts as they are now (a re-index
// replaces them).
func (rs *repos) snapshot(r *repo) (*generate.Corpus, map[string]string) {
	rs.mu.RLock()
	defer rs.mu.RUnlock()
	return r.corpus, r.texts
}

// file resolves rel, a slash-separated path inside the repository, to a
// file path that stays inside it once symbolic links are followed.
func (r *repo) file(rel string) (string, string, *apiError) {
	bad := func(msg string) (string, string, *apiError) {
		return "", "", &apiError{http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("file %q: %s", rel, msg)}
	}
	if rel == "" {
		return bad("give the file's path relative to the repository")
	}
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || clean == ".." || strings.HasPrefix(clean, "../") || slices.Contains(strings.Split(rel, "/"), "..") {
		return bad("outside the repository")
	}
	real, err := filepath.EvalSymlinks(filepath.Join(r.root, filepath.FromSlash(clean)))
	if err != nil {
		return "", "", &apiError{http.StatusNotFound, "not_found_error", fmt.Sprintf("file %q: not in repository %s", rel, r.Name)}
	}
	if in, err := filepath.Rel(r.root, real); err != nil || in == ".." || strings.HasPrefix(in, ".."+string(filepath.Separator)) {
		return bad("a link out of the repository")
	}
	return real, clean, nil
}
