package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"actor/index"
	"actor/pipeline"
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
	global      *globalFlags
}

// register adds the flags to fs; g holds the root's encoder flags.
func (f *repoIndexFlags) register(fs *pflag.FlagSet, g *globalFlags) {
	f.global = g
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

// config is the index configuration the flags choose.
func (f *repoIndexFlags) config() pipeline.IndexConfig {
	return pipeline.IndexConfig{DB: f.db, Unit: f.unit, Batch: f.batch,
		Walk: index.WalkOptions{Include: f.include, Exclude: f.exclude, MaxSize: f.maxSize, NoGitignore: f.noGitignore, Hidden: f.hidden}}
}

// openEncoderModel opens the --encoder model (these commands have no
// --threads).
func (f *repoIndexFlags) openEncoderModel() (retrieve.Encoder, error) {
	if f.encoder == "" {
		return nil, errors.New("dense retrieval needs --encoder MODEL")
	}
	return f.global.encoders(0)(f.encoder)
}

// updateIndex opens the repository's index and brings it up to date (see
// pipeline.UpdateIndex).
func (f *repoIndexFlags) updateIndex(ctx context.Context, repo string, emb index.Embedder, progress, warn io.Writer) (*index.Store, index.Report, error) {
	return pipeline.UpdateIndex(ctx, repo, f.config(), emb, progress, warn)
}

// newIndexCmd builds actor index: a repository's retrieval index built or
// refreshed.
func newIndexCmd(g *globalFlags) *cobra.Command {
	var f repoIndexFlags
	cmd := &cobra.Command{
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
			if f.encoder != "" {
				enc, err := f.openEncoderModel()
				if err != nil {
					return err
				}
				emb = pipeline.CandidateEmbedder(enc)
			}
			progress := progressOn(cmd.ErrOrStderr())
			st, rep, err := f.updateIndex(ctx, args[0], emb, progress, cmd.ErrOrStderr())
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
	f.register(cmd.Flags(), g)
	return cmd
}
