package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"

	"actor/index"
	"actor/models"
)

// IndexConfig says where a repository's retrieval index lives and what it
// covers: the settings of actor index, search, prompt and recall, and of
// the corpora generation reads.
type IndexConfig struct {
	// DB is the index file ("": IndexPath of the repository).
	DB string
	// Walk chooses the files (its Skip is set by UpdateIndex).
	Walk index.WalkOptions
	// Unit is the candidate unit: "sa" (Split-and-Aggregate) or "window"
	// (RepoCoder's 20/10 windows).
	Unit string
	// Batch is the number of texts per encoder call.
	Batch int
}

// DefaultIndexConfig indexes a repository's Python files in
// Split-and-Aggregate candidates.
func DefaultIndexConfig() IndexConfig {
	return IndexConfig{Walk: index.WalkOptions{Include: []string{"*.py"}, MaxSize: index.DefaultMaxSize}, Unit: "sa", Batch: 32}
}

// IndexPath is the default index file of the repository at repo:
// $ACTOR_HOME/index/<name>-<hash of its absolute path>.db.
func IndexPath(repo string) (string, error) {
	abs, err := filepath.Abs(repo)
	if err != nil {
		return "", err
	}
	home, err := models.Home()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(home, "index", filepath.Base(abs)+"-"+hex.EncodeToString(sum[:6])+".db"), nil
}

// splitter returns the configured candidate unit.
func (c *IndexConfig) splitter() (index.Splitter, error) {
	switch c.Unit {
	case "sa":
		return index.DefaultSplitter, nil
	case "window":
		return index.WindowSplitter, nil
	}
	return index.Splitter{}, fmt.Errorf("--unit %q: want sa or window", c.Unit)
}

// UpdateIndex opens the repository's index and brings it up to date,
// embedding candidates when emb is not nil. Progress bars go to progress
// (nil for none); skipped files are reported on warn. The caller closes
// the store.
func UpdateIndex(ctx context.Context, repo string, cfg IndexConfig, emb index.Embedder, progress, warn io.Writer) (*index.Store, index.Report, error) {
	var rep index.Report
	split, err := cfg.splitter()
	if err != nil {
		return nil, rep, err
	}
	path := cfg.DB
	if path == "" {
		if path, err = IndexPath(repo); err != nil {
			return nil, rep, err
		}
	}
	st, err := index.Open(path)
	if err != nil {
		return nil, rep, err
	}
	walk := cfg.Walk
	walk.Skip = func(rel string, reason error) { fmt.Fprintf(warn, "warning: skipped %s: %v\n", rel, reason) }
	opt := index.Options{Walk: walk, Splitter: split, Embedder: emb, EmbedBatch: cfg.Batch, Progress: progress}
	rep, err = index.Update(ctx, repo, st, opt)
	if err != nil {
		st.Close()
		if ctx.Err() != nil {
			return nil, rep, fmt.Errorf("interrupted: finished work is saved in %s; run again to continue", path)
		}
		return nil, rep, err
	}
	return st, rep, nil
}

// SourcesHash is the SHA-256 of the repository files a corpus is read from
// (the default index walk: every file's path and content, in path order).
// Runs record it per project so that samples retrieved from other sources
// (a project laid out without its tests/, say) are never mixed with
// theirs under one method name.
func SourcesHash(repo string) (string, error) {
	h := sha256.New()
	err := index.Walk(repo, DefaultIndexConfig().Walk, func(f index.File) error {
		sum := sha256.Sum256(f.Data)
		fmt.Fprintf(h, "%s\x00%x\n", f.Path, sum)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
