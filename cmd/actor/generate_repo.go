package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"actor/dataset"
	"actor/generate"
	"actor/pipeline"
	"actor/retrieve"
)

// methodFlags choose a generation method and its switches; shared by the
// repository mode of actor generate and by actor run.
type methodFlags struct{ pipeline.Method }

// register adds the method flags to fs (pipeline.Method.RegisterFlags).
func (f *methodFlags) register(fs *pflag.FlagSet) { f.Method.RegisterFlags(fs) }

// repoGenFlags are the repository-mode flags of actor generate.
type repoGenFlags struct {
	methodFlags
	repo, target, taskFile, taskID string
}

// register adds the repository mode's flags to actor generate's.
func (f *repoGenFlags) register(fs *pflag.FlagSet) {
	f.methodFlags.register(fs)
	fs.StringVar(&f.repo, "repo", "", "repository folder (repository mode)")
	fs.StringVar(&f.target, "target", "", "the function to write: path.py:LINE, a 1-based line inside it, relative to --repo")
	fs.StringVar(&f.taskFile, "task", "", "benchmark task JSONL (RepoExec or ACToR fields) naming the function to write")
	fs.StringVar(&f.taskID, "task-id", "", "task id in --task when it holds several")
}

// mode reports whether actor generate was asked for the repository mode.
func (f *repoGenFlags) mode() bool {
	return f.repo != "" || f.target != "" || f.taskFile != ""
}

// repoGenerateHelp ends actor generate's help with the repository mode.
const repoGenerateHelp = `

Repository mode (--repo with --target or --task) writes a function of the
repository with --method (the methods are listed under it): the
target's signature and docstring are completed with retrieved repository
blocks, sampled at temperature 0.6 (unless --temperature is given), at most
512 new tokens (unless --max-tokens), cut at the first line back at column 0,
an empty or bare-pass result generated again (--retries). It prints the
function and, on stderr, what fired: for ACToR each critical token with the
members' p(critical) and whether the retrieved context changed. --trace then
writes one JSON line per sample (every token, p(critical) per member, queries,
blocks before and after with their source, timings). ACToR's probe defaults to
<model>.probe in $ACTOR_HOME/probes or ./probes, else the one built into the
binary. Every method but ACToR with --exact also shows the target file's own
code in the model's repository format, with the indent guard (--no-context:
the authors' prompts); the default, RawPrompt over that context, scored best
on the development tasks.`

// runRepo writes the target function of a repository with the chosen
// method, prints it with a summary of what fired, and traces.
func (g *generateFlags) runRepo(cmd *cobra.Command, stdout, stderr io.Writer) error {
	f := &g.repo
	if g.promptFile != "" {
		return errors.New("generate: --prompt-file cannot be combined with --repo/--target/--task")
	}
	g.startLogs(stderr)
	tg, err := repoTarget(f.repo, f.target, f.taskFile, f.taskID)
	if err != nil {
		return err
	}
	cfg := generate.DefaultConfig
	cfg.Seed, cfg.TopK, cfg.TopP = g.seed, g.topK, g.topP
	fl := cmd.Flags()
	if fl.Changed("temperature") {
		cfg.Temperature = g.temperature
	}
	if fl.Changed("max-tokens") {
		cfg.MaxNewTokens = g.maxTokens
	}
	pl, err := g.openPipeline(f.Method, cfg, stderr)
	if err != nil {
		return err
	}
	defer pl.Close()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := pl.Corpus(ctx, f.repo)
	if err != nil {
		return err
	}
	gen, err := pl.Generator(c)
	if err != nil {
		return err
	}
	trace, closeTrace, err := openTrace(g.trace)
	if err != nil {
		return err
	}
	defer closeTrace()
	for _, n := range gen.Notes() {
		fmt.Fprintf(stderr, "actor: note: %s\n", n)
	}
	idx := make([]int, f.Samples)
	for i := range idx {
		idx[i] = i
	}
	samples, err := generate.GenerateSamples(ctx, gen, tg, idx, f.BatchSamples, nil)
	if err != nil {
		return err
	}
	for i, s := range samples {
		s.Trace.Model = pl.ModelName
		if trace != nil {
			if err := trace.Write(&s.Trace); err != nil {
				return err
			}
		}
		if f.Samples > 1 {
			fmt.Fprintf(stdout, "# sample %d\n", i)
		}
		fmt.Fprintln(stdout, strings.TrimRight(tg.Prompt+s.Code, " \t\n"))
		printSummary(stderr, gen.Method(), s)
	}
	return nil
}

// repoTarget locates the function to write: --target path.py:LINE, or a
// task of a JSONL file (--task FILE, --task-id ID when it holds several).
func repoTarget(repo, target, taskFile, taskID string) (retrieve.Target, error) {
	if repo == "" {
		return retrieve.Target{}, errors.New("generate: --repo is required with --target or --task")
	}
	var tg retrieve.Target
	switch {
	case target != "" && taskFile == "":
		i := strings.LastIndexByte(target, ':')
		line, err := strconv.Atoi(target[i+1:])
		if i < 0 || err != nil || line < 1 {
			return retrieve.Target{}, fmt.Errorf("generate: --target %q: want path.py:LINE (1-based)", target)
		}
		if tg, err = retrieve.AtLine(repo, target[:i], line); err != nil {
			return retrieve.Target{}, err
		}
		tg.ID = target
	case taskFile != "" && target == "":
		var err error
		if tg, err = taskTarget(repo, taskFile, taskID); err != nil {
			return retrieve.Target{}, fmt.Errorf("generate: %w", err)
		}
	default:
		return retrieve.Target{}, errors.New("generate: give exactly one of --target path.py:LINE and --task FILE.jsonl")
	}
	return tg, nil
}

// taskTarget reads a RepoExec-style task file and locates the task id
// names (or its only task) in the repository at repo.
func taskTarget(repo, file, id string) (retrieve.Target, error) {
	set, err := dataset.Load(dataset.RepoExec, file)
	if err != nil {
		return retrieve.Target{}, err
	}
	t, err := set.Pick(id)
	if err != nil {
		return retrieve.Target{}, err
	}
	return retrieve.TaskTarget(t, repo)
}

// openTrace creates the trace file ("" for none).
func openTrace(path string) (*generate.TraceWriter, func(), error) {
	if path == "" {
		return nil, func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("trace: %w", err)
	}
	return generate.NewTraceWriter(f), func() { f.Close() }, nil
}

// printSummary says what a sample took and, for ACToR, what fired.
func printSummary(w io.Writer, method string, s *generate.Sample) {
	fmt.Fprintf(w, "--- %s: %d tokens, %.1f ms/token, %.2f s", method, s.Trace.Tokens, s.MsPerToken(), s.Elapsed.Seconds())
	if n := len(s.Trace.Attempts); n > 1 {
		fmt.Fprintf(w, ", %d attempts", n)
	}
	fmt.Fprintf(w, "; %d judged, %d critical (retrieval triggered), %d changed the context\n", s.Trace.Judged, s.Trace.Triggers, s.Trace.ContextChanges)
	for _, a := range s.Trace.Attempts {
		if len(s.Trace.Attempts) > 1 {
			fmt.Fprintf(w, "  %s attempt %d (%d tokens, stop: %s)%s\n", a.Stage, a.Attempt, a.Tokens, a.Stop, retryNote(a.Retry))
		}
		for pos, ev := range a.Events {
			if !ev.Critical {
				continue
			}
			what := "context kept"
			if ev.Changed {
				what = fmt.Sprintf("context changed (%s); %q dropped, re-decoded as %q", blockDiff(ev.Before, ev.After), ev.Dropped.Text, ev.Text)
			}
			fmt.Fprintf(w, "    token %d %q: p(critical) %s -> %s\n", pos, critText(ev), probList(ev.P), what)
		}
	}
}

// retryNote says why an attempt was generated again ("" for none).
func retryNote(r string) string {
	if r == "" {
		return ""
	}
	return ", generated again: " + r
}

// critText is the text of the token judged critical: the dropped one
// when the context changed.
func critText(ev generate.TokenEvent) string {
	if ev.Dropped != nil {
		return ev.Dropped.Text
	}
	return ev.Text
}

// probList formats the members' p(critical).
func probList(ps []float32) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = strconv.FormatFloat(float64(p), 'f', 2, 32)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// blockDiff describes how a context changed: the blocks it gained and
// lost, or that the same blocks were reordered.
func blockDiff(before, after []generate.Block) string {
	name := func(b generate.Block) string { return fmt.Sprintf("%s:%d-%d", b.Path, b.Start, b.End) }
	in := func(b generate.Block, list []generate.Block) bool {
		for _, x := range list {
			if x.Path == b.Path && x.Start == b.Start && x.End == b.End {
				return true
			}
		}
		return false
	}
	var parts []string
	for _, b := range after {
		if !in(b, before) {
			parts = append(parts, "+"+name(b))
		}
	}
	for _, b := range before {
		if !in(b, after) {
			parts = append(parts, "-"+name(b))
		}
	}
	if len(parts) == 0 {
		return "same blocks, new order"
	}
	return strings.Join(parts, " ")
}
