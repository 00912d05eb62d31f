package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"actor/index"
	"actor/pipeline"
	"actor/retrieve"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// retrievalFlags choose the scorer and how many blocks to keep.
type retrievalFlags struct {
	method string
	keep   int
	depth  int
	sigma  float64
	mean   bool
}

// register adds the flags to fs, -k defaulting to keep.
func (f *retrievalFlags) register(fs *pflag.FlagSet, keep int) {
	fs.StringVar(&f.method, "method", "bm25", "scorer: bm25 (RLCoder), jaccard (RepoCoder, word tokens) or dense (needs --encoder)")
	fs.IntVarP(&f.keep, "k", "k", keep, "blocks to keep")
	fs.IntVar(&f.depth, "depth", 50, "candidates ranked before keeping k (the authors' top 50)")
	fs.Float64Var(&f.sigma, "sigma", retrieve.DefaultSigma, "σ of the position-aware query pooling (dense)")
	fs.BoolVar(&f.mean, "mean-query", false, "pool the dense query by mean instead of position-aware weights")
}

// retriever is a ready retriever over one repository's index.
type retriever struct {
	*retrieve.Retriever
	store *index.Store
}

// openRetriever refreshes the repository's index (embedding for dense) and
// builds the scorer. Progress bars are shown on a terminal only.
func openRetriever(ctx context.Context, repo string, ix *repoIndexFlags, rf *retrievalFlags, stderr io.Writer) (*retriever, error) {
	var enc retrieve.Encoder
	var emb index.Embedder
	if rf.method == "dense" {
		var err error
		if enc, err = ix.openEncoderModel(); err != nil {
			return nil, err
		}
		emb = pipeline.CandidateEmbedder(enc)
	} else if rf.method != "bm25" && rf.method != "jaccard" {
		return nil, fmt.Errorf("--method %q: want bm25, jaccard or dense", rf.method)
	}
	progress := progressOn(stderr)
	st, _, err := ix.updateIndex(ctx, repo, emb, progress, stderr)
	if err != nil {
		return nil, err
	}
	name := ""
	if emb != nil {
		name = emb.ID()
	}
	corpus, err := st.Load(name)
	if err != nil {
		st.Close()
		return nil, err
	}
	texts := make([]string, len(corpus.Candidates))
	for i, c := range corpus.Candidates {
		texts[i] = c.Text
	}
	var scorer retrieve.Scorer
	switch rf.method {
	case "bm25":
		scorer = retrieve.NewBM25(texts, retrieve.DefaultBM25)
	case "jaccard":
		scorer = retrieve.NewJaccard(texts, retrieve.Words)
	case "dense":
		m, err := retrieve.NewMatrix(corpus.Vectors, corpus.Dim)
		if err != nil {
			st.Close()
			return nil, err
		}
		pool := retrieve.WeightedPooling(rf.sigma)
		if rf.mean {
			pool = retrieve.MeanPooling
		}
		scorer = retrieve.Dense{Query: retrieve.Embedder{Encoder: enc, Pooling: pool}, Matrix: m}
	}
	r := retrieve.New(corpus.Candidates, scorer)
	r.Keep = rf.keep
	r.Depth = max(rf.depth, rf.keep)
	return &retriever{Retriever: r, store: st}, nil
}

// jsonBlock is a retrieved block in --json output.
type jsonBlock struct {
	Rank  int     `json:"rank"`
	Path  string  `json:"path"`
	Start int     `json:"start"`
	End   int     `json:"end"`
	Score float64 `json:"score"`
	Text  string  `json:"text"`
}

// jsonBlocks are results as --json prints them, ranked from 1.
func jsonBlocks(results []retrieve.Result) []jsonBlock {
	out := make([]jsonBlock, len(results))
	for i, r := range results {
		out[i] = jsonBlock{i + 1, r.Path, r.Start, r.End, r.Score, r.Text}
	}
	return out
}

// newSearchCmd builds actor search: a repository's snippets ranked for a
// query.
func newSearchCmd(g *globalFlags) *cobra.Command {
	var (
		ix     repoIndexFlags
		rf     retrievalFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   `search REPO "query"`,
		Short: "Rank a repository's snippets for a query (refreshes the index first)",
		Long: `Refresh the repository's index (as actor index does) and print the best
snippets for the query with their path, lines and score, best first.
--method bm25 is RLCoder's BM25 (k1 1.5, b 0.75, lower-cased whitespace
tokens); jaccard is RepoCoder's set similarity (on word tokens here); dense
embeds the query with --encoder (position-aware pooling, --sigma) and searches
the mean-pooled candidate vectors by cosine.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			r, err := openRetriever(ctx, args[0], &ix, &rf, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer r.store.Close()
			results, err := r.Retrieve(args[1], retrieve.Exclusion{})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(jsonBlocks(results))
			}
			if len(results) == 0 {
				fmt.Fprintln(w, "no candidates")
			}
			for i, res := range results {
				fmt.Fprintf(w, "%d. %s:%d-%d  score %.4f\n", i+1, res.Path, res.Start, res.End, res.Score)
				for _, line := range strings.Split(res.Text, "\n") {
					fmt.Fprintf(w, "    %s\n", line)
				}
			}
			return nil
		},
	}
	ix.register(cmd.Flags(), g)
	rf.register(cmd.Flags(), 10)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the results as JSON")
	return cmd
}
