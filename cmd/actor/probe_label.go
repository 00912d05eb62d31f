package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"actor/engine"
	"actor/pipeline"
	"actor/probe/critical"
	"actor/probe/labeler"
	"actor/probe/labelstore"
	"actor/probe/trainset"
	"actor/retrieve"
	"actor/tokenizer"
)

// probeDatasetFlags are the options of actor probe dataset.
type probeDatasetFlags struct {
	repos                         []string
	out                           string
	reposUnder, exclude           []string
	minPerRepo, maxPerRepo, limit int
	minBody, maxBody, minDoc      int
	skipTests                     bool
	seed                          uint64
}

// newProbeDatasetCmd builds actor probe dataset: training functions
// extracted from repositories.
func newProbeDatasetCmd() *cobra.Command {
	f := &probeDatasetFlags{}
	cmd := &cobra.Command{
		Use:   "dataset (--repo DIR... | --repos-under DIR...) --out FILE.jsonl",
		Short: "Extract training functions (signature + complete docstring + body) from repositories",
		Long: `Walk Python repositories with tree-sitter and keep module- and class-level
functions that have a complete docstring and a body, with the paper's filters:
at least --min-per-repo functions per repository (paper: more than 15), no
benchmark repositories (--exclude). Writes RepoST-formatted JSONL, the format
'actor probe label --data' reads (as it reads the authors' RepoST-Train file).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd.ErrOrStderr()) },
	}
	d := cmd.Flags()
	def := trainset.DefaultOptions()
	d.StringSliceVar(&f.repos, "repo", nil, "repository directory (repeatable; its base name is the repository name)")
	d.StringSliceVar(&f.reposUnder, "repos-under", nil, "directory whose subdirectories are repositories (repeatable)")
	d.StringVar(&f.out, "out", "", "JSONL file to write (required)")
	d.StringSliceVar(&f.exclude, "exclude", nil, "repository names to leave out (the benchmarks' projects)")
	d.IntVar(&f.minPerRepo, "min-per-repo", def.MinPerRepo, "keep repositories with at least this many functions")
	d.IntVar(&f.maxPerRepo, "max-per-repo", 0, "at most this many functions per repository, seeded sample (0: all)")
	d.IntVar(&f.limit, "limit", 0, "at most this many functions in total, seeded sample (0: all)")
	d.IntVar(&f.minBody, "min-body-lines", def.MinBodyLines, "non-blank body lines required")
	d.IntVar(&f.maxBody, "max-body-lines", 0, "skip longer bodies (0: no limit)")
	d.IntVar(&f.minDoc, "min-doc-chars", def.MinDocChars, "non-space docstring characters required")
	d.BoolVar(&f.skipTests, "skip-tests", false, "skip test directories and test files")
	d.Uint64Var(&f.seed, "seed", def.Seed, "seed of the samples")
	return cmd
}

// run extracts the functions and writes them as RepoST JSONL.
func (f *probeDatasetFlags) run(stderr io.Writer) error {
	if f.out == "" {
		return errors.New("probe dataset: --out FILE.jsonl is required")
	}
	dirs := append([]string(nil), f.repos...)
	for _, parent := range f.reposUnder {
		entries, err := os.ReadDir(parent)
		if err != nil {
			return fmt.Errorf("probe dataset: %w", err)
		}
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				dirs = append(dirs, filepath.Join(parent, e.Name()))
			}
		}
	}
	if len(dirs) == 0 {
		return errors.New("probe dataset: no repositories (--repo or --repos-under)")
	}
	o := trainset.Options{MinPerRepo: f.minPerRepo, MaxPerRepo: f.maxPerRepo, Limit: f.limit, Exclude: f.exclude,
		MinBodyLines: f.minBody, MaxBodyLines: f.maxBody, MinDocChars: f.minDoc, SkipTests: f.skipTests, Seed: f.seed}
	samples, rep, err := trainset.ExtractRepos(dirs, o)
	if err != nil {
		return err
	}
	if len(samples) == 0 {
		return fmt.Errorf("probe dataset: no function passed the filters (%s)", rep)
	}
	out, err := os.Create(f.out)
	if err != nil {
		return fmt.Errorf("probe dataset: %w", err)
	}
	if err := trainset.WriteRepoST(out, samples); err != nil {
		out.Close()
		return fmt.Errorf("probe dataset: %s: %w", f.out, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("probe dataset: %s: %w", f.out, err)
	}
	fmt.Fprintf(stderr, "%s\nwrote %d functions to %s\n", rep, len(samples), f.out)
	return nil
}

// labelFlags are actor probe label's flags.
type labelFlags struct {
	modelFlags
	data, out           string
	rules               ruleFlags
	topK, window        int
	maxTarget, limit    int
	bos, strict         bool
	repos, encoder      string
	noRetrieval, noHeal bool
	sigma               float64
	budget, maxBlocks   int
}

// newProbeLabelCmd builds actor probe label: each function's body
// teacher-forced and its critical tokens labelled.
func newProbeLabelCmd(g *globalFlags) *cobra.Command {
	f := &labelFlags{}
	cmd := &cobra.Command{
		Use:   "label --data FILE.jsonl --out DIR",
		Short: "Teacher-force each function's body and label its critical tokens (resumable)",
		Long: `For each function of a RepoST-formatted JSONL file, one teacher-forced pass of
the model over prompt + body records, per body token, the greedy prediction,
the entropy (nats), log p(target), the final-norm hidden state and the
influence (mean of the top-k head-averaged last-layer attentions later body
tokens pay it); tokens are critical by mismatch OR entropy ≥ --entropy OR
influence ≥ --influence.

The prompt is the one ACToR starts generating from: the function is located
in its repository (--repos DIR holds one folder per repository of the
dataset), the repository's blocks are retrieved for its signature and
docstring (dense all-MiniLM-L6-v2 with position-aware query pooling, its own
lines and the rest of its file hidden), laid out best first under the token
budget, then "# file path: PATH" and the signature and docstring; the
prompt's final newline is left to the body, as generation leaves it to the
model. --no-retrieval labels with the path, signature and docstring only.
Results go to DIR (hidden states as float16 + JSONL); rerunning continues
after the last complete function.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd, cmd.ErrOrStderr())
		},
	}
	l := cmd.Flags()
	r := critical.DefaultRules()
	f.modelFlags.register(l, g, modelFlagSet{
		ctxHelp: fmt.Sprintf("context length (0: min(%d, the model's)); longer bodies are cut", engine.DefaultContextLength)})
	l.StringVar(&f.data, "data", "", "RepoST-formatted JSONL of functions (required)")
	l.StringVar(&f.out, "out", "", "labels directory to create or resume (required)")
	f.rules.register(l)
	l.IntVar(&f.topK, "top-k", r.TopK, "influence averages the k largest attentions")
	l.IntVar(&f.window, "window", r.Window, "influence over the next N positions only (paper's option; 0: all later, the authors' code)")
	l.IntVar(&f.maxTarget, "max-target", 512, "label at most this many body tokens per function (0: all)")
	l.IntVar(&f.limit, "limit", 0, "label only the first N functions of --data (0: all)")
	l.BoolVar(&f.bos, "bos", false, "encode the prompt with the model's BOS token (the authors label without)")
	l.BoolVar(&f.strict, "strict", false, "stop at the first unusable row of --data instead of skipping it")
	l.StringVar(&f.repos, "repos", "", "folder holding the dataset's repositories (REPOS/<repo>), to retrieve as generation does")
	l.BoolVar(&f.noRetrieval, "no-retrieval", false, "label with the file path, signature and docstring only")
	l.StringVar(&f.encoder, "encoder", pipeline.DefaultEncoder, `dense encoder of the retrieval ("none": BM25)`)
	l.Float64Var(&f.sigma, "sigma", retrieve.DefaultSigma, "σ of the position-aware query pooling")
	l.IntVar(&f.budget, "budget", retrieve.DefaultBudget.MaxTokens, "generator tokens for retrieved blocks")
	l.IntVar(&f.maxBlocks, "max-blocks", retrieve.DefaultBudget.MaxBlocks, "most retrieved blocks in a prompt")
	l.BoolVar(&f.noHeal, "no-heal", false, "keep the prompt's final newline in the prompt (generation leaves it to the model)")
	return cmd
}

// engineScorer adapts an engine session to the labeler.
type engineScorer struct{ s *engine.Session }

// Score runs the session's teacher-forced pass; engine.Scores and
// labeler.Scored have the same layout.
func (e engineScorer) Score(prompt, target []int32) (*labeler.Scored, error) {
	sc, err := e.s.Score(prompt, target)
	if err != nil {
		return nil, err
	}
	out := labeler.Scored(*sc)
	return &out, nil
}

// run labels the functions of --data into --out, continuing what is
// there.
func (f *labelFlags) run(cmd *cobra.Command, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	if f.data == "" || f.out == "" {
		return errors.New("probe label: --data and --out are required")
	}
	base := critical.DefaultRules()
	base.TopK, base.Window = f.topK, f.window
	rules, err := f.rules.apply(base, cmd.Flags())
	if err != nil {
		return err
	}
	samples, skipped, err := trainset.ReadRepoST(f.data, f.strict)
	if err != nil {
		return err
	}
	for i, s := range skipped {
		if i == 3 {
			fmt.Fprintf(stderr, "actor: warning: … %d more unusable rows\n", len(skipped)-3)
			break
		}
		fmt.Fprintln(stderr, "actor: warning: skipped", s)
	}
	if f.limit > 0 && len(samples) > f.limit {
		samples = samples[:f.limit]
	}
	f.startLogs(stderr)
	m, tok, err := pipeline.OpenModel(f.model, f.engineOptions())
	if err != nil {
		return err
	}
	defer m.Close()
	sess, err := m.NewSession()
	if err != nil {
		return err
	}
	defer sess.Close()
	info := pipeline.ProbeModelInfo(m, tok)
	prompts, mode, err := f.promptBuilder(ctx, tok, stderr)
	if err != nil {
		return err
	}
	if f.bos {
		mode += ", BOS"
	}
	w, err := labelstore.OpenWriter(f.out, labelstore.NewHeader(info, rules, mode, f.maxTarget),
		func(msg string) { fmt.Fprintln(stderr, "actor: warning:", msg) })
	if err != nil {
		return err
	}
	defer w.Close()
	if n, _ := w.Count(); n > 0 {
		fmt.Fprintf(stderr, "resuming %s: %d functions already labelled\n", f.out, n)
	}
	bar := progressbar.NewOptions(len(samples), progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription("labelling"), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("fn"), progressbar.OptionSetPredictTime(true), progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200*time.Millisecond))
	start := time.Now()
	sum, err := labeler.Run(ctx, samples, tok, engineScorer{sess}, w, labeler.Options{
		Rules: rules, MaxTarget: f.maxTarget, Context: sess.Capacity(), AddBOS: f.bos, Prompt: prompts, Heal: !f.noHeal,
		Progress: func(done, _ int) { _ = bar.Set(done) },
		Warn:     func(msg string) { fmt.Fprintln(stderr, "\nactor: warning:", msg) },
	})
	_ = bar.Finish()
	fmt.Fprintln(stderr)
	if errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "interrupted: %d functions stored; rerun the same command to continue\n", sum.Done+sum.Labelled)
		return err
	}
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(stderr, "labelled %d functions (%d tokens, %d critical = %.2f %%) in %.0f s (%.1f tokens/s); %d done before, %d skipped\n",
		sum.Labelled, sum.Tokens, sum.Critical, 100*float64(sum.Critical)/float64(max(1, sum.Tokens)), secs,
		float64(sum.Tokens)/secs, sum.Done, sum.Skipped)
	return w.Close()
}

// promptBuilder returns the labelling prompt of each function and a
// description of it for the labels header.
func (f *labelFlags) promptBuilder(ctx context.Context, tok *tokenizer.Tokenizer, stderr io.Writer) (func(*trainset.Sample) (string, error), string, error) {
	heal := ", final newline healed"
	if f.noHeal {
		heal = ""
	}
	if f.noRetrieval {
		if f.repos != "" {
			return nil, "", errors.New("probe label: --repos and --no-retrieval exclude each other")
		}
		return labeler.NoRetrieval, "file path + signature + docstring, no retrieval" + heal, nil
	}
	if f.repos == "" {
		return nil, "", errors.New("probe label: --repos DIR (a folder per repository of --data) is required to retrieve as generation does; or --no-retrieval")
	}
	if f.budget < 1 || f.maxBlocks < 1 || !(f.sigma > 0) {
		return nil, "", errors.New("probe label: --budget, --max-blocks and --sigma must be positive")
	}
	p := &pipeline.LabelPrompts{Root: f.repos, Tok: tok, Pool: retrieve.WeightedPooling(f.sigma),
		Budget: retrieve.Budget{MaxTokens: f.budget, MaxBlocks: f.maxBlocks}, Log: stderr, Progress: progressOn(stderr)}
	retriever := "BM25"
	if f.encoder != "none" {
		enc, err := f.encoders()(f.encoder)
		if err != nil {
			return nil, "", fmt.Errorf("probe label: encoder %s: %w", f.encoder, err)
		}
		p.Enc = enc
		retriever = fmt.Sprintf("dense %s, position-aware query pooling σ %g", f.encoder, f.sigma)
	}
	mode := fmt.Sprintf("ACToR's first prompt: retrieved blocks (%s; at most %d blocks, %d tokens) + file path + signature + docstring%s",
		retriever, f.maxBlocks, f.budget, heal)
	return p.Prompter(ctx), mode, nil
}
