package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"actor/engine"
	"actor/generate"
	"actor/pipeline"

	"github.com/spf13/cobra"
)

// generateFlags are the options of actor generate, both modes'.
type generateFlags struct {
	modelFlags
	promptFile  string
	maxTokens   int
	temperature float64
	topK        int
	topP        float64
	seed        uint64
	trace       string
	repo        repoGenFlags
}

// newGenerateCmd builds actor generate: a model's continuation of a prompt
// file, or a repository's function written by a method (generate_repo.go).
func newGenerateCmd(g *globalFlags) *cobra.Command {
	f := &generateFlags{}
	cmd := &cobra.Command{
		Use:   "generate (--prompt-file FILE | --repo REPO (--target path.py:LINE | --task FILE.jsonl))",
		Short: "Continue a prompt with a GGUF model, streaming the text",
		Long: `Tokenise the prompt file, prefill it and stream the continuation to stdout
until --max-tokens or an end-of-generation token. Greedy unless --temperature
is above 0; sampling applies temperature, then top-k, then top-p, and is
reproducible for a given --seed. --trace writes one JSON line per generated
token: {"id","text","entropy","top1","logprob"}, where entropy (nats), top1
and logprob describe the model's unmodified distribution at that step.` + repoGenerateHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.repo.mode() {
				return f.runRepo(cmd, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			if f.promptFile == "" {
				return errors.New("generate: give --prompt-file FILE, or --repo with --target or --task")
			}
			return f.runPrompt(cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	f.modelFlags.register(fs, g, modelFlagSet{kvCache: true, verbose: true,
		ctxHelp: fmt.Sprintf("context length in tokens, prompt included (0: min(%d, the model's))", engine.DefaultContextLength)})
	fs.StringVar(&f.promptFile, "prompt-file", "", "file holding the prompt text (required)")
	fs.IntVar(&f.maxTokens, "max-tokens", 256, "maximum number of tokens to generate")
	fs.Float64Var(&f.temperature, "temperature", 0, "sampling temperature; 0 is greedy")
	fs.IntVar(&f.topK, "top-k", 0, "keep the K most likely tokens (0: all)")
	fs.Float64Var(&f.topP, "top-p", 1, "nucleus sampling mass (1: off)")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed for sampling")
	fs.StringVar(&f.trace, "trace", "", "write one JSON line per generated token to this file")
	f.repo.register(fs)
	return cmd
}

// traceLine is one line of --trace.
type traceLine struct {
	ID      int32   `json:"id"`
	Text    string  `json:"text"`
	Entropy float64 `json:"entropy"`
	Top1    int32   `json:"top1"`
	LogProb float64 `json:"logprob"`
}

// runPrompt streams the model's continuation of --prompt-file.
func (f *generateFlags) runPrompt(stdout, stderr io.Writer) error {
	f.startLogs(stderr)
	if f.maxTokens < 0 || f.temperature < 0 || f.topK < 0 || f.topP < 0 || f.topP > 1 {
		return errors.New("generate: --max-tokens, --temperature, --top-k must be ≥ 0 and --top-p in [0, 1]")
	}
	prompt, err := os.ReadFile(f.promptFile)
	if err != nil {
		return fmt.Errorf("generate: prompt file: %w", err)
	}
	m, tok, err := pipeline.OpenModel(f.model, f.engineOptions())
	if err != nil {
		return err
	}
	defer m.Close()
	var trace *json.Encoder
	if f.trace != "" {
		tf, err := os.Create(f.trace)
		if err != nil {
			return fmt.Errorf("generate: trace: %w", err)
		}
		defer tf.Close()
		trace = json.NewEncoder(tf)
	}
	s, err := m.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	ids := tok.Encode(string(prompt), true)
	if len(ids) == 0 {
		return fmt.Errorf("generate: %s: the prompt is empty", f.promptFile)
	}
	sampler := engine.NewSampler(engine.SamplerConfig{Temperature: f.temperature, TopK: f.topK, TopP: f.topP, Seed: f.seed})
	stop, err := generate.Continue(s, tok, ids, sampler, f.maxTokens, func(st generate.Step) error {
		if trace != nil && st.ID >= 0 {
			line := traceLine{ID: st.ID, Text: tok.Decode([]int32{st.ID}), Entropy: st.Pred.Entropy, Top1: st.Pred.Top1, LogProb: st.Pred.LogProb(st.ID)}
			if err := trace.Encode(line); err != nil {
				return fmt.Errorf("generate: trace: %w", err)
			}
		}
		_, err := fmt.Fprint(stdout, st.Text)
		return err
	})
	if err != nil {
		return fmt.Errorf("generate: prompt of %s: %w", f.promptFile, err)
	}
	if stop == "context" {
		fmt.Fprintf(stderr, "\nactor: generation stopped: %v\n", engine.ErrContextFull)
	}
	return nil
}
