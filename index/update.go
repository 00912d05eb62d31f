package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Embedder turns texts into unit-length vectors of a fixed dimension. ID
// names the model, its input layout and its pooling; vectors are stored
// under it, so a different embedder never mixes with stored ones.
type Embedder interface {
	ID() string
	Dim() int
	Embed(texts []string) ([][]float32, error)
}

// Options controls Update.
type Options struct {
	Walk     WalkOptions
	Splitter Splitter
	// Embedder, when not nil, embeds every candidate text that has no
	// vector from it yet.
	Embedder Embedder
	// FileBatch is the number of changed files per transaction (default 100).
	FileBatch int
	// EmbedBatch is the number of texts per Embed call and transaction
	// (default 32).
	EmbedBatch int
	// Progress receives progress bars (with rates and ETA); nil shows none.
	Progress io.Writer
}

// Report says what an Update did.
type Report struct {
	Files     int // source files in the repository now
	Changed   int // new or modified files (re-split)
	Removed   int // files gone from the repository (or now excluded)
	Skipped   int // files left out for their content or errors
	Embedded  int // texts embedded by this run
	EmbedTime time.Duration
}

// Update brings the store in line with the repository at root: new and
// changed files (by content hash) are split again, vanished files are
// removed with their candidates, and, with an Embedder, texts without a
// vector are embedded. Work is committed in batches, so an interrupted
// update (error or cancelled ctx) keeps what it finished and the next run
// does only the rest.
func Update(ctx context.Context, root string, st *Store, opt Options) (Report, error) {
	var rep Report
	if err := opt.Splitter.Validate(); err != nil {
		return rep, err
	}
	if opt.FileBatch <= 0 {
		opt.FileBatch = 100
	}
	if opt.EmbedBatch <= 0 {
		opt.EmbedBatch = 32
	}
	if err := resetOnSplitterChange(st, opt.Splitter); err != nil {
		return rep, err
	}
	old, err := st.FileHashes()
	if err != nil {
		return rep, err
	}
	seen := map[string]bool{}
	var batch []FileEntry
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := st.PutFiles(batch)
		batch = batch[:0]
		return err
	}
	bar := newBar(opt.Progress, -1, "scanning", "files")
	userSkip := opt.Walk.Skip
	walkOpt := opt.Walk
	walkOpt.Skip = func(rel string, reason error) {
		rep.Skipped++
		if userSkip != nil {
			userSkip(rel, reason)
		}
	}
	err = Walk(root, walkOpt, func(f File) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		bar.Add(1)
		rep.Files++
		seen[f.Path] = true
		h := sha256.Sum256(f.Data)
		if prev, ok := old[f.Path]; ok && bytes.Equal(prev, h[:]) {
			return nil
		}
		rep.Changed++
		batch = append(batch, FileEntry{
			Path: f.Path, Hash: h[:], Size: int64(len(f.Data)),
			Candidates: opt.Splitter.Split(f.Path, string(f.Data)),
		})
		if len(batch) >= opt.FileBatch {
			return flush()
		}
		return nil
	})
	bar.Finish()
	if err == nil {
		err = flush()
	}
	if err != nil {
		return rep, err
	}
	var gone []string
	for p := range old {
		if !seen[p] {
			gone = append(gone, p)
		}
	}
	rep.Removed = len(gone)
	if len(gone) > 0 {
		if err := st.RemoveFiles(gone, false); err != nil {
			return rep, err
		}
	}
	if rep.Changed > 0 || rep.Removed > 0 {
		if err := st.DropOrphanEmbeddings(); err != nil {
			return rep, err
		}
	}
	if opt.Embedder == nil {
		return rep, nil
	}
	return rep, embedMissing(ctx, st, opt, &rep)
}

// resetOnSplitterChange empties the store when it was built with another
// splitter, so every file is split again; embeddings of texts that come
// out the same are kept by the orphan sweep only if still referenced.
func resetOnSplitterChange(st *Store, s Splitter) error {
	prev, err := st.Meta("splitter")
	if err != nil {
		return err
	}
	if prev == s.String() {
		return nil
	}
	if prev != "" {
		if err := st.RemoveFiles(nil, true); err != nil {
			return err
		}
	}
	return st.SetMeta("splitter", s.String())
}

// embedMissing embeds, in batches of similar length (less padding for the
// encoder), every text lacking a vector from opt.Embedder, committing each
// batch.
func embedMissing(ctx context.Context, st *Store, opt Options, rep *Report) error {
	e := opt.Embedder
	encID, err := st.EncoderID(e.ID(), e.Dim())
	if err != nil {
		return err
	}
	todo, err := st.MissingEmbeddings(encID)
	if err != nil {
		return err
	}
	sort.SliceStable(todo, func(i, j int) bool { return len(todo[i].Text) < len(todo[j].Text) })
	bar := newBar(opt.Progress, len(todo), "embedding", "snippets")
	defer bar.Finish()
	start := time.Now()
	defer func() { rep.EmbedTime = time.Since(start) }()
	texts := make([]string, 0, opt.EmbedBatch)
	for i := 0; i < len(todo); i += opt.EmbedBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		part := todo[i:min(len(todo), i+opt.EmbedBatch)]
		texts = texts[:0]
		for _, t := range part {
			texts = append(texts, t.Text)
		}
		vecs, err := e.Embed(texts)
		if err != nil {
			return fmt.Errorf("embedding with %s: %w", e.ID(), err)
		}
		if len(vecs) != len(part) {
			return fmt.Errorf("embedding with %s: %d vectors for %d texts", e.ID(), len(vecs), len(part))
		}
		for _, v := range vecs {
			if len(v) != e.Dim() {
				return fmt.Errorf("embedding with %s: vector of length %d, want %d", e.ID(), len(v), e.Dim())
			}
		}
		if err := st.PutEmbeddings(encID, part, vecs); err != nil {
			return err
		}
		rep.Embedded += len(part)
		bar.Add(len(part))
	}
	return nil
}

// newBar returns a progress bar on w counting unit with its rate (and ETA
// when total >= 0), or a silent one when w is nil.
func newBar(w io.Writer, total int, desc, unit string) *progressbar.ProgressBar {
	if w == nil {
		w = io.Discard
	}
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetPredictTime(total >= 0),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	)
}
