package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"actor/probe"
	"actor/probe/analysis"
	"actor/probe/critical"
	"actor/probe/labelstore"
	"actor/probe/mlp"
	"actor/probe/train"
)

// newProbeCmd builds actor probe, the group of the critical-token probe's
// commands.
func newProbeCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "probe",
		Short: "Build, label, train and analyse the critical-token probe",
		Long: `The critical-token probe is ACToR's retrieval trigger: an ensemble of MLPs on the
decoder's hidden state. Its pipeline:

  actor probe dataset --repo DIR... --out funcs.jsonl   functions with a docstring (or use RepoST JSONL)
  actor probe label   --data funcs.jsonl --out LABELS   teacher-forced statistics, hidden states, labels
  actor probe train   --labels LABELS --out FILE.probe  5-member ensemble, validation metrics inside
  actor probe analyze --labels LABELS [--probe FILE]    share, criteria overlap, syntax classes
  actor probe info    FILE.probe                        model, thresholds and metrics of a probe`,
	}
	cmd.AddCommand(newProbeDatasetCmd(), newProbeLabelCmd(g), newProbeTrainCmd(), newProbeAnalyzeCmd(), newProbeInfoCmd(), newProbeRateCmd(g))
	return cmd
}

// ruleFlags override labelling rules: those stored with a labels directory
// (train, analyze) or the default ones (label).
type ruleFlags struct {
	entropy, influence                     float64
	noMismatch, noUncertainty, noAttention bool
}

// register adds the rules' flags to f.
func (r *ruleFlags) register(f *pflag.FlagSet) {
	def := critical.DefaultRules()
	f.Float64Var(&r.entropy, "entropy", def.EntropyMin, "uncertainty threshold: entropy ≥ this many nats")
	f.Float64Var(&r.influence, "influence", def.InfluenceMin, "attention threshold: influence ≥ this")
	f.BoolVar(&r.noMismatch, "no-mismatch", false, "switch the mismatch rule off (ablation)")
	f.BoolVar(&r.noUncertainty, "no-uncertainty", false, "switch the uncertainty rule off (ablation)")
	f.BoolVar(&r.noAttention, "no-attention", false, "switch the attention-influence rule off (ablation)")
}

// apply returns base with the flags the user set applied.
func (r *ruleFlags) apply(base critical.Rules, f *pflag.FlagSet) (critical.Rules, error) {
	if f.Changed("entropy") {
		base.EntropyMin = r.entropy
	}
	if f.Changed("influence") {
		base.InfluenceMin = r.influence
	}
	for _, o := range []struct {
		off  bool
		flag critical.Flags
	}{{r.noMismatch, critical.Mismatch}, {r.noUncertainty, critical.Uncertain}, {r.noAttention, critical.Influential}} {
		if o.off {
			base.Enabled &^= o.flag
		}
	}
	return base, base.Validate()
}

// openLabels opens a labels directory, warning on stderr.
func openLabels(dir string, stderr io.Writer) (*labelstore.Set, error) {
	return labelstore.Open(dir, func(m string) { fmt.Fprintln(stderr, "actor: warning:", m) })
}

// probeTrainFlags are the options of actor probe train.
type probeTrainFlags struct {
	labels, out           string
	rules                 ruleFlags
	members, threads      int
	epochs, units         int
	batch                 int
	lr, wd, threshold     float64
	holdout, targetRate   float64
	seed, splitSeed       uint64
	lrPatience, stopAfter int
}

// newProbeTrainCmd builds actor probe train: a probe file trained on a
// labels directory.
func newProbeTrainCmd() *cobra.Command {
	f := &probeTrainFlags{}
	cmd := &cobra.Command{
		Use:   "train --labels DIR --out FILE",
		Short: "Train the ensemble on a labels directory and write a probe file",
		Long: `Label the stored tokens under the rules (those of the labels directory unless
overridden), keep all critical tokens and as many others with the highest
self-information, split both into one disjoint chunk per member (seeded), split
each chunk 80/20, and train each member: Linear(d→units) → ReLU → Dropout 0.1 →
Linear(units→2), Adam with L2 weight decay, batch 32, lr halved after more than
10 epochs without a validation-accuracy gain, stop after 20, best epoch kept.
Members train in parallel; the same seeds give bit-identical weights whatever
--threads is.

A share of the functions (--holdout, seeded) is kept out of training, and
the report says how the threshold does on their body tokens that Algorithm 1
judges (not the first, not white space): the share flagged, precision and
recall against the labels. --target-rate R instead sets the threshold where
the ensemble flags R of them. Teacher-forced tokens are not generated ones:
for qwen2.5-coder-0.5b the paper's 0.7 flags 27 % of held-out teacher-forced
tokens but about 9 % of the tokens it generates on the RepoExec dev tasks,
and a threshold set to flag 8 % of the former flags about 1 % of the latter
(probes/README.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	t := cmd.Flags()
	def, mdef := train.DefaultOptions(critical.DefaultRules()), mlp.DefaultConfig()
	t.StringVar(&f.labels, "labels", "", "labels directory made by 'actor probe label' (required)")
	t.StringVar(&f.out, "out", "", "probe file to write (required)")
	f.rules.register(t)
	t.IntVar(&f.members, "members", def.Members, "ensemble members")
	t.IntVar(&f.epochs, "epochs", mdef.Epochs, "maximum epochs per member")
	t.IntVar(&f.units, "units", mdef.Units, "hidden units per member")
	t.IntVar(&f.batch, "batch", mdef.Batch, "batch size")
	t.Float64Var(&f.lr, "lr", mdef.LR, "Adam learning rate")
	t.Float64Var(&f.wd, "weight-decay", mdef.WeightDecay, "L2 weight decay added to the gradient (torch.optim.Adam)")
	t.IntVar(&f.lrPatience, "lr-patience", mdef.LRPatience, "halve the learning rate after more than this many epochs without gain")
	t.IntVar(&f.stopAfter, "stop-after", mdef.StopAfter, "stop after this many epochs without a validation-accuracy gain")
	t.Float64Var(&f.threshold, "threshold", def.Threshold, "unanimity threshold on p(critical) stored in the probe when --target-rate is 0")
	t.Float64Var(&f.holdout, "holdout", 0.2, "share of functions kept out of training, to calibrate and check the threshold on")
	t.Float64Var(&f.targetRate, "target-rate", 0, "set the threshold where the ensemble flags this share of the held-out functions' judged teacher-forced tokens (0: keep --threshold)")
	t.Uint64Var(&f.seed, "seed", mdef.Seed, "member seed (member i uses seed+i): initialisation, shuffling, dropout")
	t.Uint64Var(&f.splitSeed, "split-seed", def.SplitSeed, "seed of the member chunks and 80/20 splits")
	t.IntVar(&f.threads, "threads", 0, "goroutines (0: all CPUs); results do not depend on it")
	return cmd
}

// run trains the ensemble and writes the probe file.
func (f *probeTrainFlags) run(cmd *cobra.Command, stdout, stderr io.Writer) error {
	if f.labels == "" || f.out == "" {
		return errors.New("probe train: --labels and --out are required")
	}
	set, err := openLabels(f.labels, stderr)
	if err != nil {
		return err
	}
	defer set.Close()
	rules, err := f.rules.apply(set.Header.Rules, cmd.Flags())
	if err != nil {
		return err
	}
	o := train.DefaultOptions(rules)
	o.Members, o.SplitSeed, o.Threshold, o.Threads = f.members, f.splitSeed, f.threshold, f.threads
	o.Holdout, o.TargetRate = f.holdout, f.targetRate
	o.MLP.Epochs, o.MLP.Units, o.MLP.Batch, o.MLP.LR, o.MLP.WeightDecay, o.MLP.Seed = f.epochs, f.units, f.batch, f.lr, f.wd, f.seed
	o.MLP.LRPatience, o.MLP.StopAfter = f.lrPatience, f.stopAfter
	if o.Threads <= 0 {
		o.Threads = runtime.GOMAXPROCS(0)
	}
	if o.Members < 1 || !(o.Threshold >= 0 && o.Threshold < 1) {
		return errors.New("probe train: --members must be ≥ 1 and --threshold in [0, 1)")
	}
	if !(o.Holdout >= 0 && o.Holdout < 1) || !(o.TargetRate >= 0 && o.TargetRate < 1) || (o.TargetRate > 0 && o.Holdout == 0) {
		return errors.New("probe train: --holdout and --target-rate must be in [0, 1), and a target rate needs --holdout > 0")
	}
	bar := progressbar.NewOptions(o.Members*o.MLP.Epochs,
		progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("training (member-epochs)"),
		progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200*time.Millisecond))
	var mu sync.Mutex
	o.Progress = func(member int, ep mlp.Epoch) {
		mu.Lock()
		defer mu.Unlock()
		_ = bar.Add(1)
	}
	p, rep, err := train.Ensemble(set, o)
	_ = bar.Finish()
	fmt.Fprintln(stderr)
	if err != nil {
		return err
	}
	if err := probe.Save(f.out, p); err != nil {
		return err
	}
	printTrainReport(stdout, rep, p, f.out)
	return nil
}

// printTrainReport summarises training on stdout.
func printTrainReport(w io.Writer, rep *train.Report, p *probe.Probe, path string) {
	fmt.Fprintf(w, "labels %s: %d functions, %d tokens; %d critical (%.2f %%), %d others, kept %d hardest\n",
		rep.Labels, rep.Samples, rep.Tokens, rep.Positives, analysis.Share(rep.Positives, rep.Tokens), rep.Negatives, rep.Kept)
	fmt.Fprintf(w, "member  train(+/-)   val(+/-)   best/epochs  val acc  precision  recall  f1\n")
	for _, m := range rep.Members {
		fmt.Fprintf(w, "%6d  %5d/%-5d  %5d/%-5d  %4d/%-6d  %.4f   %.4f     %.4f  %.4f\n", m.Member, m.TrainPos, m.TrainNeg,
			m.ValPos, m.ValNeg, m.BestEpoch, m.Epochs, m.Val.Accuracy, m.Val.Precision, m.Val.Recall, m.Val.F1)
	}
	e := rep.Ensemble
	fmt.Fprintf(w, "ensemble (all > %.2f) on the members' validation rows: acc %.4f precision %.4f recall %.4f, flags %.2f %%\n",
		p.Threshold, e.Accuracy, e.Precision, e.Recall, analysis.Share(e.TP+e.FP, e.N))
	if c := rep.Calibration; c != nil {
		fmt.Fprintln(w, calibrationLine(c))
	}
	fmt.Fprintf(w, "trained in %.1f s, %.0f examples/s (d=%d, %d units); wrote %s\n", rep.Seconds, rep.ExamplesPS, p.Model.Hidden, p.Units, path)
}

// calibrationLine says how a probe's threshold did on held-out functions.
func calibrationLine(c *train.Calibration) string {
	how := "fixed"
	if c.TargetRate > 0 {
		how = fmt.Sprintf("calibrated to flag %.1f %%", 100*c.TargetRate)
	}
	return fmt.Sprintf("threshold %.4f (%s) on %d held-out functions, %d judged tokens: flags %.2f %% (precision %.3f, recall %.3f against the labels); the paper's %.1f flags %.2f %% (precision %.3f, recall %.3f)",
		c.Threshold, how, c.Functions, c.Judged, 100*c.Rate, c.Metrics.Precision, c.Metrics.Recall,
		probe.DefaultThreshold, 100*c.PaperRate, c.PaperMetrics.Precision, c.PaperMetrics.Recall)
}

// probeAnalyzeFlags are the options of actor probe analyze.
type probeAnalyzeFlags struct {
	labels, out, probe string
	rules              ruleFlags
}

// newProbeAnalyzeCmd builds actor probe analyze: a labels directory's
// critical tokens counted and classified.
func newProbeAnalyzeCmd() *cobra.Command {
	f := &probeAnalyzeFlags{}
	cmd := &cobra.Command{
		Use:   "analyze --labels DIR",
		Short: "Share of critical tokens, criteria overlap and syntax classes (paper Figs. 5, 7, 8)",
		Long: `Count the critical tokens of a labels directory, the overlap of the three
criteria, and the syntax classes (tree-sitter) of the tokens in each criterion
region as absolute and relative-to-all-tokens distributions. Writes
analysis.md, composition.png, syntax_absolute.png and syntax_relative.png into
--out (default DIR/analysis) and prints the Markdown. With --probe, also how
many of the tokens Algorithm 1 would judge the ensemble flags.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	a := cmd.Flags()
	a.StringVar(&f.labels, "labels", "", "labels directory (required)")
	a.StringVar(&f.out, "out", "", "directory for analysis.md and the charts (default LABELS/analysis)")
	a.StringVar(&f.probe, "probe", "", "probe file: also report how many tokens it flags")
	f.rules.register(a)
	return cmd
}

// run analyses the labels and writes the report and charts.
func (f *probeAnalyzeFlags) run(cmd *cobra.Command, stdout, stderr io.Writer) error {
	if f.labels == "" {
		return errors.New("probe analyze: --labels is required")
	}
	set, err := openLabels(f.labels, stderr)
	if err != nil {
		return err
	}
	defer set.Close()
	rules, err := f.rules.apply(set.Header.Rules, cmd.Flags())
	if err != nil {
		return err
	}
	res, err := analysis.Analyze(set, rules)
	if err != nil {
		return err
	}
	if f.probe != "" {
		p, err := probe.LoadFor(f.probe, set.Header.Model)
		if err != nil {
			return err
		}
		if res.Flagged, err = analysis.Flag(set, p, f.probe); err != nil {
			return err
		}
	}
	out := f.out
	if out == "" {
		out = filepath.Join(f.labels, "analysis")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("probe analyze: %w", err)
	}
	md := res.Markdown()
	if err := os.WriteFile(filepath.Join(out, "analysis.md"), []byte(md), 0o644); err != nil {
		return fmt.Errorf("probe analyze: %w", err)
	}
	if _, err := res.Charts(out); err != nil {
		return err
	}
	fmt.Fprint(stdout, md)
	fmt.Fprintf(stderr, "wrote %s/{analysis.md,composition.png,syntax_absolute.png,syntax_relative.png}\n", out)
	return nil
}

// newProbeInfoCmd builds actor probe info: a probe file described.
func newProbeInfoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "info FILE.probe",
		Short: "Print a probe file's model, thresholds and validation metrics",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := probe.Load(args[0])
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "model %s %s\nmembers %d × Linear(%d→%d)→ReLU→Linear(%d→2), critical iff all p > %g\n",
				p.Model.Name, p.Model, len(p.Members), p.Model.Hidden, p.Units, p.Units, p.Threshold)
			r := p.Rules
			fmt.Fprintf(w, "labels: criteria %s, entropy ≥ %g, influence ≥ %g (top %d, window %d)\n",
				r.Enabled, r.EntropyMin, r.InfluenceMin, r.TopK, r.Window)
			var rep train.Report
			if json.Unmarshal(p.Metrics, &rep) == nil && rep.Calibration != nil {
				fmt.Fprintln(w, calibrationLine(rep.Calibration))
			}
			if len(p.Metrics) > 0 {
				var pretty any
				if err := json.Unmarshal(p.Metrics, &pretty); err == nil {
					b, _ := json.MarshalIndent(pretty, "", "  ")
					fmt.Fprintf(w, "metrics %s\n", b)
				}
			}
			return nil
		},
	}
}
