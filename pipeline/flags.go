package pipeline

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"actor/generate"
)

// RegisterFlags adds the method's command-line flags to fs, bound to m
// and set to DefaultMethod's defaults: the one declaration of them, which
// actor generate, actor run and actor serve take, and from which Args
// renders a method for another command line. Their order here is the
// order Args writes them in (a command's help sorts them), chosen so that
// the experiments' committed command lines and run keys read as before.
func (m *Method) RegisterFlags(fs *pflag.FlagSet) {
	d := DefaultMethod()
	fs.StringVar(&m.Method, "method", d.Method, "generation method, one of:\n"+strings.TrimSuffix(generate.MethodHelp(), "\n"))
	fs.Var(exactFlag{m, fs}, "exact", "ACToR as the paper runs it (--method actor unless --method is given): the authors' prompts, ranked layout, every prompt prefilled exactly, every token judged (slower; without it ACToR uses --layout stable --kv-reuse --kv-reuse-tail --skip-comments, which cost no measurable pass@k on the dev tasks); with it those flags add one lever at a time")
	fs.Lookup("exact").NoOptDefVal = "true"
	fs.StringVar(&m.Format, "format", d.Format, "prompt format: authors (the authors' layout: retrieved code as comments under '# file path:'), plain (code under '# file: PATH'), repo (the model's repository format: <|repo_name|>, a <|file_sep|> file per snippet, the target's file last), fim (repo with the target's file as fill-in-the-middle, the code below the function as the suffix) or auto (repo or plain, as the model's special tokens allow; fim is for cursor completion)")
	fs.BoolVar(&m.InFile, "in-file", false, "show the target file's own code: its imports always, then the code nearest the function (above it, and below it with --format fim) up to --file-tokens")
	fs.BoolVar(&m.Symbols, "symbols", false, "show the definitions in scope of the target (what its file imports and defines, its class's members; signature and docstring, or whole when short) up to --symbol-tokens, those its signature and docstring mention first")
	fs.IntVar(&m.FileTokens, "file-tokens", 0, fmt.Sprintf("token budget of --in-file (0: %d)", generate.DefaultFileTokens))
	fs.IntVar(&m.SymbolTokens, "symbol-tokens", 0, fmt.Sprintf("token budget of --symbols, plus what --in-file left (0: %d)", generate.DefaultSymbolTokens))
	fs.StringVar(&m.Lookup, "name-lookup", "", "ACToR: at a critical token inside a name, also show the repository's definitions that extend it, resolved through its receiver (self., module., a class): add (before the dense re-query's blocks), only (instead of the re-query) or off")
	fs.BoolVar(&m.NoContext, "no-context", false, "only what the switches say: the authors' prompts (no file code, no definitions, the authors' format) unless they add context; by default every method but --exact adds the context measured best on the dev tasks (--format auto --in-file --indent-guard)")
	fs.StringVar(&m.Probe, "probe", "", "critical-token probe file for ACToR (default: the shipped probe of the model, see 'actor generate --help')")
	fs.StringVar(&m.Name, "name", "", "method name in predictions and traces (ablations with another probe file)")
	fs.BoolVar(&m.MeanPool, "mean-pool", false, "ACToR ablation: mean-pooled queries instead of the position-aware weights")
	fs.StringVar(&m.Layout, "layout", d.Layout, "ACToR's prompt layout: ranked (the paper's, best block first) or stable (blocks that stay keep their place, new ones nearest the target); default stable, ranked with --exact")
	fs.BoolVar(&m.KVReuse, "kv-reuse", false, "ACToR: after a context change place the blocks' keys and values from their first computation (re-rotated) instead of recomputing them; an approximation (blocks no longer attend to the blocks now before them; on unless --exact)")
	fs.BoolVar(&m.KVReuseTail, "kv-reuse-tail", false, "with --kv-reuse, also move the target's prompt and the generated tokens after a context change; only the last token is recomputed (a further approximation; on unless --exact)")
	fs.BoolVar(&m.SkipComments, "skip-comments", false, "ACToR: judge no token inside a # comment (a comment does not run; on the dev tasks half the probe's triggers were comment words; on unless --exact)")
	fs.BoolVar(&m.QueryEnds, "query-ends", false, "ACToR: a retrieval query longer than the encoder's input (256 tokens for all-MiniLM-L6-v2) keeps its start and its end, cut in the middle; cut at the end, as by default, it loses the code generated so far and retrieving again changes nothing")
	fs.StringVar(&m.KVStore, "kv-store", "", "with --kv-reuse, also keep the blocks' keys and values in this folder, for later runs on the same model (a block computed once is read back instead of computed; the folder grows without bound)")
	fs.BoolVar(&m.NoInference, "no-inference", false, "ACToR ablation: critical-token inference off (weighted retrieval only)")
	fs.Float64Var(&m.Entropy, "entropy-trigger", 0, "ACToR: retrieve again at judged tokens whose next-token entropy is ≥ this many nats instead of at the probe's critical tokens (FLARE/DRAGIN-style; no probe; method actor-entropy)")
	fs.IntVarP(&m.Samples, "samples", "n", d.Samples, "samples per task")
	fs.Float64Var(&m.Sigma, "sigma", d.Sigma, "σ of ACToR's position-aware query pooling")
	fs.Float64Var(&m.Threshold, "threshold", 0, "unanimity threshold on p(critical) (0: the probe's own, calibrated when it was trained; the paper: 0.7)")
	fs.StringVar(&m.Encoder, "encoder", "", "dense encoder model (default: "+DefaultEncoder+"; with \"none\", BM25 with a warning)")
	fs.IntVar(&m.Retries, "retries", d.Retries, "regenerations of an empty or bare-pass result")
	fs.IntVar(&m.Budget, "budget", d.Budget, "generator tokens for retrieved blocks")
	fs.IntVar(&m.MaxBlocks, "max-blocks", d.MaxBlocks, "most retrieved blocks in a prompt")
	fs.BoolVar(&m.NoHeal, "no-heal", false, "give the model the prompt's final newline instead of leaving it for the model to write (see generate.Config.HealNewline)")
	fs.BoolVar(&m.AllowBlank, "allow-blank", false, "let an attempt end before its body has anything but white space (the authors only regenerate such bodies; see generate.Config.BlankGuard)")
	fs.IntVar(&m.KVCaches, "kv-caches", d.KVCaches, "KV caches kept for returns to earlier prompts (each holds the model's context)")
	fs.StringVar(&m.Change, "context-change", d.Change, "when ACToR's retrieval changes the context: order (the authors': any block or its place differs) or set (only a different set of blocks)")
	fs.BoolVar(&m.BatchSamples, "batch-samples", false, "decode a task's -n samples together as one batch (the prompt prefilled once, steps three to a pass; the same samples as unbatched, per-sample timings overlap)")
	fs.BoolVar(&m.KVReuseCheck, "kv-reuse-check", false, "with --kv-reuse, also prefill every prompt after a context change exactly and trace the KL divergence of the two predictions (measurement only: costs exact ACToR's re-prefills)")
	fs.BoolVar(&m.FullProbs, "full-probs", false, "evaluate every probe member for the trace (slower; the decision is the same)")
	fs.BoolVar(&m.IndentGuard, "indent-guard", false, "while the body is blank, rule out a token that starts it left of the target's docstring column (a model closing the function at once writes the next definition one column in, which returns None; see generate.Config.IndentGuard)")
	fs.BoolVar(&m.NameIndex, "name-index", false, "show an index of the names in scope before the definitions: one line each (a constant's statement, a function's or class's signature), grouped by the file that defines them, those the signature and docstring mention first, then the nearest; from the --symbol-tokens budget")
}

// Args renders m as the method flags that give it, for an actor command
// line: --method always, then every other flag of RegisterFlags whose
// value differs from its default, in their declaration order (a true
// switch as --flag alone). Parsing them (ParseArgs) over DefaultMethod
// gives m back.
func (m Method) Args() []string {
	var s Method
	fs := s.flagSet()
	s = m // the flags read the fields of s
	var args []string
	fs.VisitAll(func(f *pflag.Flag) {
		v := f.Value.String()
		switch {
		case v == f.DefValue && f.Name != "method":
		case f.Value.Type() == "bool" && v == "true":
			args = append(args, "--"+f.Name)
		case f.Value.Type() == "bool":
			args = append(args, "--"+f.Name+"="+v)
		default:
			args = append(args, "--"+f.Name, v)
		}
	})
	return args
}

// ParseArgs is m with the method flags in args applied over it; an
// unknown flag or a bad value is an error naming it.
func (m Method) ParseArgs(args []string) (Method, error) {
	var s Method
	fs := s.flagSet()
	s = m
	if err := fs.Parse(args); err != nil {
		return m, err
	}
	if fs.NArg() > 0 {
		return m, fmt.Errorf("%q: not a method flag", fs.Arg(0))
	}
	return s, nil
}

// flagSet is a flag set of RegisterFlags bound to m, in declaration order.
func (m *Method) flagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("method", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	m.RegisterFlags(fs)
	return fs
}

// exactFlag is --exact: the paper's ACToR, so that it chooses ACToR
// unless --method was given (the paper's method one flag away from the
// default).
type exactFlag struct {
	m  *Method
	fs *pflag.FlagSet
}

func (e exactFlag) String() string {
	if e.m == nil {
		return "false"
	}
	return strconv.FormatBool(e.m.Exact)
}

func (e exactFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	e.m.Exact = v
	if v && !e.fs.Changed("method") {
		e.m.Method = generate.MethodACToR
	}
	return nil
}

func (e exactFlag) Type() string { return "bool" }
