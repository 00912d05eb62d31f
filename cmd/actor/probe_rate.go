package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"actor/engine"
	"actor/models"
	"actor/probe"
	"actor/probe/dataset"
	"actor/probe/labeler"
	"actor/tokenizer"
)

var probeRateFlags struct {
	data, probe, model, exclude string
	limit, maxTokens, threads   int
	retries                     int
	ctx                         int
	temperature                 float64
	seed                        uint64
	bos                         bool
}

var probeRateCmd = &cobra.Command{
	Use:   "rate --data FILE.jsonl --probe FILE.probe",
	Short: "Fraction of generated tokens the probe flags (Algorithm 1's trigger rate, no retrieval)",
	Long: `Generate each function's body from its signature and docstring (prompt as in
'actor probe label'), sampling at --temperature and stopping at a line that
returns to column 0 or after --max-tokens (an empty body or a bare "pass" is
generated again, up to --retries times, as the authors do), and judge every
token of the kept body as
Algorithm 1 does: not the first, not whitespace-only, critical iff every member
gives p(critical) above the probe's threshold. No retrieval happens, so the
context never changes. --exclude-labels skips the functions of a labels
directory (the probe's training data).`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		return runProbeRate(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
	},
}

// rateCounts accumulates a rate run.
type rateCounts struct{ functions, generated, judged, flagged, retried int }

func runProbeRate(ctx context.Context, stdout, stderr io.Writer) error {
	f := &probeRateFlags
	if f.data == "" || f.probe == "" {
		return errors.New("probe rate: --data and --probe are required")
	}
	samples, _, err := dataset.ReadRepoST(f.data, false)
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
	quietLogs(stderr)
	m, tok, err := openModel(f.model, engine.Options{ContextLength: f.ctx, Threads: f.threads})
	if err != nil {
		return err
	}
	defer m.Close()
	p, err := probe.LoadFor(f.probe, probeModelInfo(m, tok))
	if err != nil {
		return err
	}
	sess, err := m.NewSession()
	if err != nil {
		return err
	}
	defer sess.Close()
	sess.Hidden = true
	sampler := engine.NewSampler(engine.SamplerConfig{Temperature: f.temperature, Seed: f.seed})
	bar := progressbar.NewOptions(len(samples), progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("generating"),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200*time.Millisecond))
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	var c rateCounts
	for _, s := range samples {
		if err := ctx.Err(); err != nil {
			return err
		}
		text, _ := labeler.NoRetrieval(&s)
		var one rateCounts
		for try := 0; try <= f.retries; try++ {
			one = rateCounts{}
			body, err := rateOne(sess, tok, sampler, p, tok.Encode(text, f.bos), f.maxTokens, &one)
			if err != nil {
				return fmt.Errorf("probe rate: sample %s: %w", s.ID, err)
			}
			if b := strings.TrimSpace(body); b != "" && b != "pass" {
				break
			}
			c.retried++
		}
		c.functions += one.functions
		c.generated += one.generated
		c.judged += one.judged
		c.flagged += one.flagged
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

// rateOne generates one body, counts the probe's decisions and returns the
// body's text up to the stop.
func rateOne(sess *engine.Session, tok *tokenizer.Tokenizer, sampler *engine.Sampler, p *probe.Probe, prompt []int32, maxTokens int, c *rateCounts) (string, error) {
	pred, err := sess.Prefill(prompt) // reuses the cached common prefix
	if err != nil {
		return "", err
	}
	c.functions++
	var out []byte
	for n := 0; n < maxTokens; n++ {
		id := sampler.Sample(pred.Logits)
		if tok.EOG(id) {
			break
		}
		c.generated++
		if probe.Skip(n, tok.Piece(id), false) == "" {
			c.judged++
			if p.Critical(pred.Hidden) {
				c.flagged++
			}
		}
		from := max(0, len(out)-1)
		out = append(out, tok.Piece(id)...)
		if i := stopAt(out[from:]); i >= 0 {
			return string(out[:from+i]), nil
		}
		if pred, err = sess.Step(id); err != nil {
			if errors.Is(err, engine.ErrContextFull) {
				break
			}
			return "", err
		}
	}
	return string(out), nil
}

// stopAt returns the index just after the first newline of b that is
// followed by a non-whitespace byte (REFERENCE.md §4's stop rule \n[^\s]:
// the text is cut there), or −1.
func stopAt(b []byte) int {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\n' {
			switch b[i+1] {
			case ' ', '\t', '\n', '\r', '\f', '\v':
			default:
				return i + 1
			}
		}
	}
	return -1
}

// withoutLabelled drops the functions a labels directory already holds
// (same path and signature + docstring).
func withoutLabelled(samples []dataset.Sample, dir string, stderr io.Writer) ([]dataset.Sample, error) {
	set, err := openLabels(dir, stderr)
	if err != nil {
		return nil, err
	}
	defer set.Close()
	seen := map[[2]string]bool{}
	for _, s := range set.Samples {
		seen[[2]string{s.Path, s.Prefix}] = true
	}
	var out []dataset.Sample
	for _, s := range samples {
		if !seen[[2]string{s.Path, s.Prompt}] {
			out = append(out, s)
		}
	}
	return out, nil
}

func init() {
	f := probeRateCmd.Flags()
	rf := &probeRateFlags
	f.StringVar(&rf.data, "data", "", "RepoST-formatted JSONL of functions (required)")
	f.StringVar(&rf.probe, "probe", "", "probe file (required)")
	f.StringVar(&rf.model, "model", models.DefaultModel, "model name or GGUF file path")
	f.StringVar(&rf.exclude, "exclude-labels", "", "skip the functions of this labels directory")
	f.IntVar(&rf.limit, "limit", 50, "functions to generate (0: all)")
	f.IntVar(&rf.maxTokens, "max-tokens", 256, "maximum generated tokens per function")
	f.Float64Var(&rf.temperature, "temperature", 0.6, "sampling temperature (paper 0.6; 0: greedy)")
	f.Uint64Var(&rf.seed, "seed", 1, "sampling seed")
	f.IntVar(&rf.threads, "threads", 0, "CPU threads for ggml (0: number of CPUs, at most 8)")
	f.IntVar(&rf.ctx, "ctx", 0, "context length (0: the engine's default)")
	f.BoolVar(&rf.bos, "bos", false, "encode the prompt with the model's BOS token")
	f.IntVar(&rf.retries, "retries", 5, "generate an empty or 'pass' body again up to this many times")
	probeCmd.AddCommand(probeRateCmd)
}
