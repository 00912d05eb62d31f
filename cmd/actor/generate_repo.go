package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"actor/engine"
	"actor/generate"
	"actor/index"
	"actor/models"
	"actor/probe"
	"actor/retrieve"
	"actor/retrieve/task"
	"actor/tokenizer"
)

// methodFlags choose a generation method and its switches; shared by the
// repository mode of actor generate and by actor run.
type methodFlags struct {
	method       string
	probe        string
	samples      int
	noInference  bool
	meanPool     bool
	sigma        float64
	threshold    float64
	encoder      string
	retries      int
	budget       int
	maxBlocks    int
	name         string
	fullProbs    bool
	noHeal       bool
	allowBlank   bool
	kvCaches     int
	layout       string
	change       string
	batchSamples bool
	kvReuse      bool
	kvReuseCheck bool
	kvReuseTail  bool
	entropy      float64
}

func (f *methodFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.method, "method", generate.MethodACToR, "generation method: "+strings.Join(generate.Methods, ", "))
	fs.StringVar(&f.probe, "probe", "", "critical-token probe file for ACToR (default: the shipped probe of the model, see 'actor generate --help')")
	fs.IntVarP(&f.samples, "samples", "n", 1, "samples per task")
	fs.BoolVar(&f.noInference, "no-inference", false, "ACToR ablation: critical-token inference off (weighted retrieval only)")
	fs.BoolVar(&f.meanPool, "mean-pool", false, "ACToR ablation: mean-pooled queries instead of the position-aware weights")
	fs.Float64Var(&f.sigma, "sigma", retrieve.DefaultSigma, "σ of ACToR's position-aware query pooling")
	fs.Float64Var(&f.threshold, "threshold", 0, "unanimity threshold on p(critical) (0: the probe's own, calibrated when it was trained; the paper: 0.7)")
	fs.StringVar(&f.encoder, "encoder", "", "dense encoder model (default: "+defaultEncoder+" when this build can run encoders; otherwise, or with \"none\", BM25 with a warning)")
	fs.IntVar(&f.retries, "retries", generate.DefaultConfig.Retries, "regenerations of an empty or bare-pass result")
	fs.IntVar(&f.budget, "budget", retrieve.DefaultBudget.MaxTokens, "generator tokens for retrieved blocks")
	fs.IntVar(&f.maxBlocks, "max-blocks", retrieve.DefaultBudget.MaxBlocks, "most retrieved blocks in a prompt")
	fs.StringVar(&f.name, "name", "", "method name in predictions and traces (ablations with another probe file)")
	fs.BoolVar(&f.noHeal, "no-heal", false, "give the model the prompt's final newline instead of leaving it for the model to write (see generate.Config.HealNewline)")
	fs.BoolVar(&f.allowBlank, "allow-blank", false, "let an attempt end before its body has anything but white space (the authors only regenerate such bodies; see generate.Config.BlankGuard)")
	fs.IntVar(&f.kvCaches, "kv-caches", generate.DefaultSessions, "KV caches kept for returns to earlier prompts (each holds the model's context)")
	fs.StringVar(&f.layout, "layout", string(generate.LayoutRanked), "ACToR's prompt layout: ranked (the paper's, best block first) or stable (blocks that stay keep their place, new ones nearest the target)")
	fs.StringVar(&f.change, "context-change", string(generate.ChangeOrder), "when ACToR's retrieval changes the context: order (the authors': any block or its place differs) or set (only a different set of blocks)")
	fs.BoolVar(&f.batchSamples, "batch-samples", false, "decode a task's -n samples together as one batch (the prompt prefilled once; the same samples, per-sample timings overlap)")
	fs.BoolVar(&f.kvReuse, "kv-reuse", false, "ACToR: after a context change place the blocks' keys and values from their first computation (re-rotated) instead of recomputing them; an approximation (blocks no longer attend to the blocks now before them)")
	fs.BoolVar(&f.kvReuseTail, "kv-reuse-tail", false, "with --kv-reuse, also move the target's prompt and the generated tokens after a context change; only the last token is recomputed (a further approximation)")
	fs.BoolVar(&f.kvReuseCheck, "kv-reuse-check", false, "with --kv-reuse, also prefill every prompt after a context change exactly and trace the KL divergence of the two predictions (measurement only: costs exact ACToR's re-prefills)")
	fs.Float64Var(&f.entropy, "entropy-trigger", 0, "ACToR: retrieve again at judged tokens whose next-token entropy is ≥ this many nats instead of at the probe's critical tokens (FLARE/DRAGIN-style; no probe; method actor-entropy)")
	fs.BoolVar(&f.fullProbs, "full-probs", false, "evaluate every probe member for the trace (slower; the decision is the same)")
}

// defaultEncoder is the dense encoder obtainable here (REFERENCE.md §2).
const defaultEncoder = "all-minilm-l6-v2"

// genSetup is a loaded model with what the methods need around it.
type genSetup struct {
	modelName string
	model     *engine.Model
	tok       *tokenizer.Tokenizer
	dec       *generate.Decoder
	probe     *probe.Probe
	enc       retrieve.Encoder // nil: the dense methods fall back to BM25
	flags     *methodFlags
	cfg       generate.Config
	stderr    io.Writer
}

// openGenSetup loads the model, the probe (ACToR) and the encoder.
func openGenSetup(modelName string, opts engine.Options, f *methodFlags, cfg generate.Config, stderr io.Writer) (*genSetup, error) {
	if !slices.Contains(generate.Methods, f.method) {
		return nil, fmt.Errorf("--method %q: want one of %s", f.method, strings.Join(generate.Methods, ", "))
	}
	if f.samples < 1 {
		return nil, fmt.Errorf("-n %d: want at least one sample", f.samples)
	}
	if !slices.Contains(generate.Layouts, generate.Layout(f.layout)) {
		return nil, fmt.Errorf("--layout %q: want ranked or stable", f.layout)
	}
	if !slices.Contains(generate.ChangeRules, generate.ChangeRule(f.change)) {
		return nil, fmt.Errorf("--context-change %q: want order or set", f.change)
	}
	if f.kvReuse && f.method != generate.MethodACToR {
		return nil, fmt.Errorf("--kv-reuse is ACToR's (--method actor), not %s's", f.method)
	}
	if (f.kvReuseCheck || f.kvReuseTail) && !f.kvReuse {
		return nil, errors.New("--kv-reuse-check and --kv-reuse-tail go with --kv-reuse: give it too")
	}
	if f.entropy < 0 || (f.entropy > 0 && (f.method != generate.MethodACToR || f.noInference)) {
		return nil, errors.New("--entropy-trigger is a threshold ≥ 0 nats for ACToR with critical-token inference on (--method actor, no --no-inference)")
	}
	if f.kvCaches < 1 {
		return nil, fmt.Errorf("--kv-caches %d: want at least one", f.kvCaches)
	}
	cfg.Retries, cfg.Budget = f.retries, retrieve.Budget{MaxTokens: f.budget, MaxBlocks: f.maxBlocks}
	cfg.HealNewline, cfg.BlankGuard = !f.noHeal, !f.allowBlank
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m, tok, err := openModel(modelName, opts)
	if err != nil {
		return nil, err
	}
	s := &genSetup{modelName: modelName, model: m, tok: tok, flags: f, cfg: cfg, stderr: stderr}
	if err := s.open(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *genSetup) open() error {
	var err error
	if s.dec, err = generate.NewDecoder(s.model, s.tok); err != nil {
		return err
	}
	s.dec.Sessions = s.flags.kvCaches
	f := s.flags
	if f.kvReuse && f.method == generate.MethodACToR {
		s.dec.Blocks, s.dec.ReuseTail, s.dec.CheckReuse = generate.NewBlockStore(0), f.kvReuseTail, f.kvReuseCheck
	}
	if f.method == generate.MethodACToR && !f.noInference && f.entropy == 0 {
		file := f.probe
		if file == "" {
			if file, err = shippedProbe(s.modelName); err != nil {
				return err
			}
		}
		info := probeModelInfo(s.model, s.tok)
		if s.probe, err = probe.LoadFor(file, info); err != nil {
			return err
		}
	}
	if f.method == generate.MethodRawRAG || f.method == generate.MethodRLCoder || f.method == generate.MethodACToR {
		s.enc = s.openEncoder()
	}
	return nil
}

func (s *genSetup) close() {
	if s.dec != nil {
		s.dec.Close()
		if s.dec.Blocks != nil {
			s.dec.Blocks.Close()
		}
	}
	s.model.Close()
}

// openEncoder opens the dense encoder, or warns loudly and returns nil
// (the dense methods then use BM25 and are named "+bm25").
func (s *genSetup) openEncoder() retrieve.Encoder {
	name := s.flags.encoder
	if name == "" {
		name = defaultEncoder
	}
	warn := func(why string) {
		fmt.Fprintf(s.stderr, "actor: WARNING: %s; %s falls back to BM25 retrieval (recorded as method %q in predictions and traces)\n",
			why, s.flags.method, s.flags.method+"+bm25")
	}
	switch {
	case name == "none":
		warn("--encoder none")
		return nil
	case openEncoder == nil:
		warn("this build has no dense encoder yet")
		return nil
	}
	enc, err := openEncoder(name)
	if err != nil {
		warn(fmt.Sprintf("dense encoder %s: %v", name, err))
		return nil
	}
	return enc
}

// shippedProbeDirs are where a model's shipped probe is looked for, in
// order: $ACTOR_HOME/probes, then probes/ under the working folder (the
// repository's committed probes when run from its root).
func shippedProbeDirs() []string {
	var dirs []string
	if home, err := models.Home(); err == nil {
		dirs = append(dirs, filepath.Join(home, "probes"))
	}
	return append(dirs, "probes")
}

// shippedProbe returns the probe file named after the model
// (<model>.probe) in shippedProbeDirs.
func shippedProbe(model string) (string, error) {
	name := strings.TrimSuffix(filepath.Base(model), ".gguf") + ".probe"
	for _, d := range shippedProbeDirs() {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no probe for %s: give --probe FILE (looked for %s in %s), or --no-inference", model, name, strings.Join(shippedProbeDirs(), " and "))
}

// corpus reads a repository for the method (see openCorpus).
func (s *genSetup) corpus(ctx context.Context, repo string) (*generate.Corpus, error) {
	return openCorpus(ctx, repo, s.enc, s.stderr)
}

// openCorpus reads a repository: its blocks and windows, and, with an
// encoder, the blocks' embeddings from the repository's index (refreshed
// first, as actor index does). Generation and labelling read repositories
// through it, so both retrieve from the same blocks.
func openCorpus(ctx context.Context, repo string, enc retrieve.Encoder, stderr io.Writer) (*generate.Corpus, error) {
	walk := index.WalkOptions{Include: []string{"*.py"},
		Skip: func(rel string, reason error) { fmt.Fprintf(stderr, "warning: skipped %s: %v\n", rel, reason) }}
	c, err := generate.ReadCorpus(repo, walk)
	if err != nil {
		return nil, err
	}
	if enc == nil {
		return c, nil
	}
	ix := repoIndexFlags{include: walk.Include, maxSize: index.DefaultMaxSize, unit: "sa", batch: 32}
	emb := candidateEmbedder(enc)
	var progress io.Writer
	if isTerminal(os.Stderr) {
		progress = stderr
	}
	st, _, err := ix.updateIndex(ctx, repo, emb, progress, stderr)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	stored, err := st.Load(emb.ID())
	if err != nil {
		return nil, err
	}
	c.Blocks, c.Vectors, c.Encoder = stored.Candidates, stored.Vectors, enc
	return c, nil
}

// generator builds the chosen method over a corpus.
func (s *genSetup) generator(c *generate.Corpus) (generate.Generator, error) {
	f := s.flags
	return generate.New(generate.Options{Method: f.method, Decoder: s.dec, Config: s.cfg, Corpus: c,
		Probe: s.probe, NoInference: f.noInference, MeanPooling: f.meanPool, Sigma: f.sigma,
		Threshold: f.threshold, FullProbs: f.fullProbs, Name: f.name, EntropyTrigger: f.entropy,
		Layout: generate.Layout(f.layout), Change: generate.ChangeRule(f.change)})
}

// repoGenFlags are the repository-mode flags of actor generate.
var repoGenFlags struct {
	methodFlags
	repo, target, taskFile, taskID string
}

// repoGenerateMode reports whether actor generate was asked for the
// repository mode.
func repoGenerateMode() bool {
	f := &repoGenFlags
	return f.repo != "" || f.target != "" || f.taskFile != ""
}

// runRepoGenerate writes the target function of a repository with the
// chosen method, prints it with a summary of what fired, and traces.
func runRepoGenerate(cmd *cobra.Command, stdout, stderr io.Writer) error {
	f, g := &repoGenFlags, &generateFlags
	if g.promptFile != "" {
		return errors.New("generate: --prompt-file cannot be combined with --repo/--target/--task")
	}
	if !g.verbose {
		quietLogs(stderr)
	}
	if w := engine.CPUWarning(); w != "" {
		fmt.Fprintln(stderr, w)
	}
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
	setup, err := openGenSetup(g.model, engine.Options{ContextLength: g.ctx, Threads: g.threads, F32Cache: g.f32Cache}, &f.methodFlags, cfg, stderr)
	if err != nil {
		return err
	}
	defer setup.close()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := setup.corpus(ctx, f.repo)
	if err != nil {
		return err
	}
	gen, err := setup.generator(c)
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
	idx := make([]int, f.samples)
	for i := range idx {
		idx[i] = i
	}
	samples, err := generate.GenerateSamples(gen, tg, idx, f.batchSamples)
	if err != nil {
		return err
	}
	for i, s := range samples {
		s.Trace.Model = setup.modelName
		if trace != nil {
			if err := trace.Write(&s.Trace); err != nil {
				return err
			}
		}
		if f.samples > 1 {
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
		tasks, err := task.ReadJSONL(taskFile)
		if err != nil {
			return retrieve.Target{}, err
		}
		var t task.Task
		switch {
		case taskID != "":
			t, err = task.Find(tasks, taskID)
		case len(tasks) == 1:
			t = tasks[0]
		default:
			err = fmt.Errorf("%d tasks: choose one with --task-id", len(tasks))
		}
		if err != nil {
			return retrieve.Target{}, fmt.Errorf("generate: %s: %w", taskFile, err)
		}
		if tg, err = task.Locate(repo, t); err != nil {
			return retrieve.Target{}, err
		}
	default:
		return retrieve.Target{}, errors.New("generate: give exactly one of --target path.py:LINE and --task FILE.jsonl")
	}
	return tg, nil
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
	fmt.Fprintf(w, "--- %s: %d tokens, %.1f ms/token, %.2f s", method, s.Tokens, s.MsPerToken(), s.Elapsed.Seconds())
	if n := len(s.Trace.Attempts); n > 1 {
		fmt.Fprintf(w, ", %d attempts", n)
	}
	fmt.Fprintf(w, "; %d judged, %d critical (retrieval triggered), %d changed the context\n", s.Trace.Judged, s.Triggers, s.ContextChanges)
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

func retryNote(r string) string {
	if r == "" {
		return ""
	}
	return ", generated again: " + r
}

func critText(ev generate.TokenEvent) string {
	if ev.Dropped != nil {
		return ev.Dropped.Text
	}
	return ev.Text
}

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

// init adds the repository mode to actor generate (defined in
// generate.go, whose init runs first: files initialise in name order).
// --prompt-file stops being a required flag: exactly one of the two modes
// is checked when the command runs.
func init() {
	f := &repoGenFlags
	fs := generateCmd.Flags()
	f.methodFlags.register(fs)
	fs.StringVar(&f.repo, "repo", "", "repository folder (repository mode)")
	fs.StringVar(&f.target, "target", "", "the function to write: path.py:LINE, a 1-based line inside it, relative to --repo")
	fs.StringVar(&f.taskFile, "task", "", "benchmark task JSONL (RepoExec or ACToR fields) naming the function to write")
	fs.StringVar(&f.taskID, "task-id", "", "task id in --task when it holds several")
	delete(fs.Lookup("prompt-file").Annotations, cobra.BashCompOneRequiredFlag)
	generateCmd.Use = "generate (--prompt-file FILE | --repo REPO (--target path.py:LINE | --task FILE.jsonl))"
	generateCmd.Long += `

Repository mode (--repo with --target or --task) writes a function of the
repository with --method (actor, rawprompt, rawrag, repocoder, rlcoder): the
target's signature and docstring are completed with retrieved repository
blocks, sampled at temperature 0.6 (unless --temperature is given), at most
512 new tokens (unless --max-tokens), cut at the first line back at column 0,
an empty or bare-pass result generated again (--retries). It prints the
function and, on stderr, what fired: for ACToR each critical token with the
members' p(critical) and whether the retrieved context changed. --trace then
writes one JSON line per sample (every token, p(critical) per member, queries,
blocks before and after, timings). ACToR's probe defaults to <model>.probe in
$ACTOR_HOME/probes or ./probes.`
	plain := generateCmd.RunE
	generateCmd.RunE = func(cmd *cobra.Command, args []string) error {
		if repoGenerateMode() {
			return runRepoGenerate(cmd, cmd.OutOrStdout(), cmd.ErrOrStderr())
		}
		if generateFlags.promptFile == "" {
			return errors.New("generate: give --prompt-file FILE, or --repo with --target or --task")
		}
		return plain(cmd, args)
	}
}
