package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"actor/index"
	"actor/models"
	"actor/retrieve"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// repoIndexFlags are the flags shared by index, search, prompt and recall:
// where the index lives, which files it covers, how they are cut, and the
// encoder for dense retrieval.
type repoIndexFlags struct {
	db          string
	include     []string
	exclude     []string
	maxSize     int64
	noGitignore bool
	hidden      bool
	unit        string
	encoder     string
	batch       int
}

func (f *repoIndexFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.db, "db", "", "index database (default $ACTOR_HOME/index/<repo>-<hash of its path>.db)")
	fs.StringSliceVar(&f.include, "include", []string{"*.py"}, "globs of files to index (gitignore syntax; no '/' matches the file name)")
	fs.StringSliceVar(&f.exclude, "exclude", nil, "globs of files or folders to leave out")
	fs.Int64Var(&f.maxSize, "max-size", index.DefaultMaxSize, "skip files larger than this many bytes")
	fs.BoolVar(&f.noGitignore, "no-gitignore", false, "index files that .gitignore excludes")
	fs.BoolVar(&f.hidden, "hidden", false, "also index files and folders whose names start with '.'")
	fs.StringVar(&f.unit, "unit", "sa", "candidate unit: sa (Split-and-Aggregate, 15 lines) or window (RepoCoder 20/10)")
	fs.StringVar(&f.encoder, "encoder", "", "encoder model for dense retrieval (MiniLM or UniXcoder GGUF)")
	fs.IntVar(&f.batch, "batch", 32, "texts per encoder call")
}

// dbPath returns the index file for the repository at repo.
func (f *repoIndexFlags) dbPath(repo string) (string, error) {
	if f.db != "" {
		return f.db, nil
	}
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

// splitter returns the chosen candidate unit.
func (f *repoIndexFlags) splitter() (index.Splitter, error) {
	switch f.unit {
	case "sa":
		return index.DefaultSplitter, nil
	case "window":
		return index.WindowSplitter, nil
	}
	return index.Splitter{}, fmt.Errorf("--unit %q: want sa or window", f.unit)
}

// openEncoder opens an encoder model for dense retrieval. The engine
// provides it (from its own cmd file); until then it is nil and dense
// retrieval reports errNoEncoder.
var openEncoder func(model string) (retrieve.Encoder, error)

var errNoEncoder = errors.New("dense retrieval needs an encoder model (actor convert a MiniLM or UniXcoder checkpoint to GGUF, then pass --encoder); this build has no encoder yet: use --method bm25 or jaccard")

// openEncoderModel opens the --encoder model, or fails with errNoEncoder.
func (f *repoIndexFlags) openEncoderModel() (retrieve.Encoder, error) {
	if openEncoder == nil {
		return nil, errNoEncoder
	}
	if f.encoder == "" {
		return nil, errors.New("dense retrieval needs --encoder MODEL")
	}
	return openEncoder(f.encoder)
}

// updateIndex opens the repository's index and brings it up to date,
// embedding candidates when emb is not nil. Progress bars go to progress
// (nil for none); skipped files are reported on warn.
func (f *repoIndexFlags) updateIndex(ctx context.Context, repo string, emb index.Embedder, progress, warn io.Writer) (*index.Store, index.Report, error) {
	var rep index.Report
	split, err := f.splitter()
	if err != nil {
		return nil, rep, err
	}
	path, err := f.dbPath(repo)
	if err != nil {
		return nil, rep, err
	}
	st, err := index.Open(path)
	if err != nil {
		return nil, rep, err
	}
	opt := index.Options{
		Walk: index.WalkOptions{Include: f.include, Exclude: f.exclude, MaxSize: f.maxSize, NoGitignore: f.noGitignore, Hidden: f.hidden,
			Skip: func(rel string, reason error) { fmt.Fprintf(warn, "warning: skipped %s: %v\n", rel, reason) }},
		Splitter:   split,
		Embedder:   emb,
		EmbedBatch: f.batch,
		Progress:   progress,
	}
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

// candidateEmbedder is the embedder of stored candidates: mean pooling, as
// the paper keeps for candidates.
func candidateEmbedder(enc retrieve.Encoder) retrieve.Embedder {
	return retrieve.Embedder{Encoder: enc, Pooling: retrieve.MeanPooling}
}

var indexFlags repoIndexFlags

// indexCmd builds or refreshes a repository's retrieval index.
var indexCmd = &cobra.Command{
	Use:   "index REPO",
	Short: "Index a repository for retrieval (incremental, resumable)",
	Long: `Walk the repository (honouring .gitignore and --include/--exclude), cut its
files into Split-and-Aggregate candidates (or RepoCoder windows) and store them
with file hashes in an SQLite index. Running it again re-splits only changed
files and forgets deleted ones. With --encoder, candidate texts without a
vector are embedded (mean pooling), committed batch by batch: an interrupted
run continues where it stopped. Without --encoder only the sparse scorers
(BM25, Jaccard) can search the index.`,
	Args: cobra.ExactArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		var emb index.Embedder
		if indexFlags.encoder != "" {
			enc, err := indexFlags.openEncoderModel()
			if err != nil {
				return err
			}
			emb = candidateEmbedder(enc)
		}
		var progress io.Writer
		if isTerminal(os.Stderr) {
			progress = cmd.ErrOrStderr()
		}
		st, rep, err := indexFlags.updateIndex(ctx, args[0], emb, progress, cmd.ErrOrStderr())
		if err != nil {
			return err
		}
		defer st.Close()
		files, cands, embs, err := st.Counts()
		if err != nil {
			return err
		}
		w := cmd.OutOrStdout()
		fmt.Fprintf(w, "index %s\n", st.Path())
		fmt.Fprintf(w, "%d files (%d new or changed, %d removed, %d skipped); %d candidates, %d embeddings\n",
			files, rep.Changed, rep.Removed, rep.Skipped, cands, embs)
		if emb == nil {
			fmt.Fprintln(w, "no --encoder: candidates only (search with --method bm25 or jaccard)")
		} else if rep.Embedded > 0 {
			fmt.Fprintf(w, "embedded %d snippets in %.1fs (%.1f snippets/s) with %s\n", rep.Embedded,
				rep.EmbedTime.Seconds(), float64(rep.Embedded)/rep.EmbedTime.Seconds(), emb.ID())
		}
		return nil
	},
}

func init() {
	indexFlags.register(indexCmd.Flags())
	rootCmd.AddCommand(indexCmd)
}
