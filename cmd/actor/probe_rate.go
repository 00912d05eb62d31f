package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"actor/generate"
	"actor/pipeline"
	"actor/probe"
	"actor/probe/trainset"
	"actor/retrieve"
)

// rateFlags are actor probe rate's flags.
type rateFlags struct {
	modelFlags
	data, probe, exclude string
	limit, maxTokens     int
	retries              int
	temperature          float64
	seed                 uint64
	bos                  bool
}

// newProbeRateCmd builds actor probe rate: the share of generated tokens
// a probe flags.
func newProbeRateCmd(g *globalFlags) *cobra.Command {
	f := &rateFlags{}
	cmd := &cobra.Command{
		Use:   "rate --data FILE.jsonl --probe FILE.probe",
		Short: "Fraction of generated tokens the probe flags (Algorithm 1's trigger rate, no retrieval)",
		Long: `Generate each function's body as ACToR does (the generator's own decoding
loop, prompt layout and stop rule), with no repository block in the prompt:
"# file path: PATH", the signature and the docstring, sampling at
--temperature and stopping at a line that returns to column 0 or after
--max-tokens (an empty body or a bare "pass" is generated again, up to
--retries times, as the authors do). Every token of the kept body is judged
as Algorithm 1 judges it: not the first, not whitespace-only, critical iff
every member gives p(critical) above the probe's threshold. No block is ever
retrieved, so the context never changes. --exclude-labels skips the
functions of a labels directory (the probe's training data).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	f.modelFlags.register(fs, g, modelFlagSet{modelHelp: "model name or GGUF file path", ctxHelp: "context length (0: the engine's default)"})
	fs.StringVar(&f.data, "data", "", "RepoST-formatted JSONL of functions (required)")
	fs.StringVar(&f.probe, "probe", "", "probe file (required)")
	fs.StringVar(&f.exclude, "exclude-labels", "", "skip the functions of this labels directory")
	fs.IntVar(&f.limit, "limit", 50, "functions to generate (0: all)")
	fs.IntVar(&f.maxTokens, "max-tokens", 256, "maximum generated tokens per function")
	fs.Float64Var(&f.temperature, "temperature", generate.DefaultConfig.Temperature, "sampling temperature (the paper's 0.6; 0: greedy)")
	fs.Uint64Var(&f.seed, "seed", 1, "sampling seed")
	fs.BoolVar(&f.bos, "bos", false, "ignored: the prompt is encoded as generation encodes it")
	_ = fs.MarkDeprecated("bos", "the prompt is encoded as generation encodes it (the model's own BOS setting)")
	fs.IntVar(&f.retries, "retries", 5, "generate an empty or 'pass' body again up to this many times")
	return cmd
}

// rateCounts accumulates a rate run.
type rateCounts struct{ functions, generated, judged, flagged, retried int }

// noBlocks is a retriever that finds nothing: ACToR then decodes from the
// target alone and a critical token never changes the context.
type noBlocks struct{}

// Retrieve finds nothing.
func (noBlocks) Retrieve(string, retrieve.Exclusion) ([]retrieve.Result, error) { return nil, nil }

// rateConfig is the generator's configuration of a rate run: generation's
// decoding rules with the flags' sampling, token limit and retries.
func (f *rateFlags) rateConfig() generate.Config {
	cfg := generate.DefaultConfig
	cfg.Temperature, cfg.Seed, cfg.MaxNewTokens, cfg.Retries = f.temperature, f.seed, f.maxTokens, f.retries
	return cfg
}

// rateTarget is a function as the generator's target.
func rateTarget(s *trainset.Sample) retrieve.Target {
	return retrieve.Target{ID: s.ID, Path: s.Path, Prompt: s.Prompt}
}

// add counts one generated sample: its kept attempt's tokens, judged and
// flagged tokens, and the attempts generated again.
func (c *rateCounts) add(s *generate.Sample) {
	a := s.Trace.Attempts[len(s.Trace.Attempts)-1]
	c.functions++
	c.generated += a.Tokens
	c.judged += a.Judged
	c.flagged += a.Triggers
	c.retried += len(s.Trace.Attempts) - 1
}

// run generates the functions and reports the share of tokens flagged.
func (f *rateFlags) run(ctx context.Context, stdout, stderr io.Writer) error {
	if f.data == "" || f.probe == "" {
		return errors.New("probe rate: --data and --probe are required")
	}
	cfg := f.rateConfig()
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("probe rate: %w", err)
	}
	samples, _, err := trainset.ReadRepoST(f.data, false)
	if err != nil {
		return err
	}
	if f.exclude != "" {
		if samples, err = withoutLabelled(samples, f.exclude, stderr); err != nil {
			return err
		}
	}
	if f.limit > 0 && len(samples) > f.limit {
		samples = samples[:f.limit]
	}
	f.quietLogs(stderr)
	m, tok, err := pipeline.OpenModel(f.model, f.engineOptions())
	if err != nil {
		return err
	}
	defer m.Close()
	p, err := probe.LoadFor(f.probe, pipeline.ProbeModelInfo(m, tok))
	if err != nil {
		return err
	}
	d, err := generate.NewDecoder(m, tok, generate.DecoderOptions{})
	if err != nil {
		return err
	}
	defer d.Close()
	g, err := generate.NewACToR(d, cfg, noBlocks{}, generate.ACToROptions{Probe: p})
	if err != nil {
		return err
	}
	bar := progressbar.NewOptions(len(samples), progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("generating"),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200*time.Millisecond))
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	var c rateCounts
	for i := range samples {
		s, err := g.Generate(ctx, rateTarget(&samples[i]), 0, nil)
		if err != nil {
			return fmt.Errorf("probe rate: sample %s: %w", samples[i].ID, err)
		}
		c.add(s)
		_ = bar.Add(1)
	}
	_ = bar.Finish()
	fmt.Fprintln(stderr)
	fmt.Fprintf(stdout, "%d functions, %d generated tokens (%.1f per function); %d judged (not first, not whitespace); "+
		"%d flagged = %.2f %% of judged, %.2f per function (threshold %.2f, %d members); %d empty bodies generated again\n",
		c.functions, c.generated, float64(c.generated)/float64(max(1, c.functions)), c.judged, c.flagged,
		100*float64(c.flagged)/float64(max(1, c.judged)), float64(c.flagged)/float64(max(1, c.functions)), p.Threshold, len(p.Members), c.retried)
	return nil
}

// withoutLabelled drops the functions a labels directory already holds
// (same path and signature + docstring).
func withoutLabelled(samples []trainset.Sample, dir string, stderr io.Writer) ([]trainset.Sample, error) {
	set, err := openLabels(dir, stderr)
	if err != nil {
		return nil, err
	}
	defer set.Close()
	seen := map[[2]string]bool{}
	for _, s := range set.Samples {
		seen[[2]string{s.Path, s.Prefix}] = true
	}
	var out []trainset.Sample
	for _, s := range samples {
		if !seen[[2]string{s.Path, s.Prompt}] {
			out = append(out, s)
		}
	}
	return out, nil
}
