package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"actor/engine"
	"actor/generate"
	"actor/models"
	"actor/pipeline"

	"github.com/spf13/cobra"
)

// generateFlags are the options of actor generate.
var generateFlags struct {
	model       string
	promptFile  string
	maxTokens   int
	temperature float64
	topK        int
	topP        float64
	seed        uint64
	threads     int
	ctx         int
	f32Cache    bool
	flashAttn   bool
	trace       string
	verbose     bool
}

// generateCmd streams a model's continuation of a prompt file.
var generateCmd = &cobra.Command{
	Use:   "generate --prompt-file FILE",
	Short: "Continue a prompt with a GGUF model, streaming the text",
	Long: `Tokenise the prompt file, prefill it and stream the continuation to stdout
until --max-tokens or an end-of-generation token. Greedy unless --temperature
is above 0; sampling applies temperature, then top-k, then top-p, and is
reproducible for a given --seed. --trace writes one JSON line per generated
token: {"id","text","entropy","top1","logprob"}, where entropy (nats), top1
and logprob describe the model's unmodified distribution at that step.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, args []string) error {
		return runGenerate(cmd.OutOrStdout(), cmd.ErrOrStderr())
	},
}

// traceLine is one line of --trace.
type traceLine struct {
	ID      int32   `json:"id"`
	Text    string  `json:"text"`
	Entropy float64 `json:"entropy"`
	Top1    int32   `json:"top1"`
	LogProb float64 `json:"logprob"`
}

func runGenerate(stdout, stderr io.Writer) error {
	f := &generateFlags
	if w := engine.CPUWarning(); w != "" {
		fmt.Fprintln(stderr, w)
	}
	if !f.verbose { // the tensor backend logs its set-up at Info level
		slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	if f.maxTokens < 0 || f.temperature < 0 || f.topK < 0 || f.topP < 0 || f.topP > 1 {
		return errors.New("generate: --max-tokens, --temperature, --top-k must be ≥ 0 and --top-p in [0, 1]")
	}
	prompt, err := os.ReadFile(f.promptFile)
	if err != nil {
		return fmt.Errorf("generate: prompt file: %w", err)
	}
	m, tok, err := pipeline.OpenModel(f.model, engineOptions(engine.Options{ContextLength: f.ctx, Threads: f.threads, F32Cache: f.f32Cache, FlashAttention: f.flashAttn}))
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

func init() {
	f := generateCmd.Flags()
	f.StringVar(&generateFlags.model, "model", models.DefaultModel, "model name (see 'actor models list') or GGUF file path")
	f.StringVar(&generateFlags.promptFile, "prompt-file", "", "file holding the prompt text (required)")
	f.IntVar(&generateFlags.maxTokens, "max-tokens", 256, "maximum number of tokens to generate")
	f.Float64Var(&generateFlags.temperature, "temperature", 0, "sampling temperature; 0 is greedy")
	f.IntVar(&generateFlags.topK, "top-k", 0, "keep the K most likely tokens (0: all)")
	f.Float64Var(&generateFlags.topP, "top-p", 1, "nucleus sampling mass (1: off)")
	f.Uint64Var(&generateFlags.seed, "seed", 0, "random seed for sampling")
	f.IntVar(&generateFlags.threads, "threads", 0, "CPU threads for ggml (0: number of CPUs, at most 8)")
	f.IntVar(&generateFlags.ctx, "ctx", 0, fmt.Sprintf("context length in tokens, prompt included (0: min(%d, the model's))", engine.DefaultContextLength))
	f.BoolVar(&generateFlags.f32Cache, "f32-cache", false, "keep the KV cache in float32 instead of float16")
	f.BoolVar(&generateFlags.flashAttn, "flash-attn", false, "use flash attention (results independent of batching; llama.cpp's default is off)")
	f.StringVar(&generateFlags.trace, "trace", "", "write one JSON line per generated token to this file")
	f.BoolVar(&generateFlags.verbose, "verbose", false, "show the tensor backend's log")
	generateCmd.MarkFlagRequired("prompt-file")
	rootCmd.AddCommand(generateCmd)
}
