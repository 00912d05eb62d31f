package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"actor/bench/experiment"
	"actor/dataset"
	"actor/generate"
	"actor/models"
	"actor/pipeline"
	"actor/runrecord"

	"github.com/spf13/cobra"
)

// experimentFlags are the options of actor experiment.
type experimentFlags struct {
	s                             experiment.Settings
	limit                         int
	tasks                         []string
	runArgs, benchArgs, trainArgs string
	variants                      []string
	dryRun, reportOnly            bool
}

// newExperimentCmd builds actor experiment: one of the paper's experiments
// run and reported.
func newExperimentCmd() *cobra.Command {
	f := &experimentFlags{}
	cmd := &cobra.Command{
		Use:   "experiment table1|ablations|sensitivity|cost|trigger --benchmark B --data DIR --repos DIR --out DIR [flags]",
		Short: "Run one of the paper's experiments (resumable) and write its README, report.md and figures",
		Long: `Each experiment is a list of 'actor run' configurations over the same tasks,
model, samples (-n) and temperature, run by this same binary:

  table1       RawPrompt, RawRAG, RepoCoder, RLCoder-style and ACToR (Table I)
  cost         the same five, reported as Table II from their traces: ms per token,
               seconds per sample, and ACToR's probe, retrieval and re-prefill time
  ablations    ACToR with probes trained without each labelling rule (trained from
               --labels into OUT/probes), without critical-token inference, with
               mean pooling (Tables III–IV)
  sensitivity  a probe per --entropies × --influences cell, trained from --labels,
               and an ACToR run each (Figure 4); cut it with --limit/--task and -n
  trigger      ACToR against the same re-retrieval triggered by next-token entropy
               at a threshold where it fires as often as the probe did (set from
               ACToR's traces; --entropy-trigger fixes it)

Configurations generate --step tasks each in turn, so that their timings share
the machine's load; then each is tested with 'actor bench run'. OUT/runs/NAME
is one configuration's run folder, shared by every experiment that lists it
(the same flags; a folder made with other flags is refused). OUT/EXPERIMENT
gets README.md (how to reproduce, conditions, machine, commands), report.md
(the tables, with 95 % bootstrap intervals over tasks and paired comparisons
of ACToR against each other configuration) and PNG figures. Run the same
command again to continue: nothing already generated or tested is repeated.`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: experiment.Names,
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.s.Benchmark, "benchmark", "", "repoexec or codereval")
	fs.StringVar(&f.s.Data, "data", "", "task file or folder (as for actor run)")
	fs.StringVar(&f.s.Repos, "repos", "", "folder holding the projects")
	fs.StringVar(&f.s.Out, "out", "", "results folder: runs/, probes/ and one folder per experiment")
	fs.StringVar(&f.s.Model, "model", models.DefaultModel, "model name or GGUF file")
	fs.IntVarP(&f.s.N, "samples", "n", 5, "samples per task")
	fs.Float64Var(&f.s.Temperature, "temperature", generate.DefaultConfig.Temperature, "sampling temperature")
	fs.Uint64Var(&f.s.Seed, "seed", 0, "random seed (each task and sample derives its own)")
	fs.IntVar(&f.s.Threads, "threads", 0, "CPU threads of each actor run (0: its default)")
	fs.IntVar(&f.limit, "limit", 0, "only the first N tasks (0: all)")
	fs.StringSliceVar(&f.tasks, "task", nil, "only these task ids (comma-separated)")
	fs.IntVar(&f.s.Step, "step", 4, "tasks each configuration generates before the next takes its turn")
	fs.StringVar(&f.s.Probe, "probe", "", "ACToR's probe (default: the model's shipped probe)")
	fs.StringVar(&f.s.Labels, "labels", "", "labels directory the ablation and grid probes are trained from (actor probe label)")
	fs.Float64SliceVar(&f.s.Entropies, "entropies", []float64{0.4, 0.6, 0.8, 1.0, 1.2}, "sensitivity: uncertainty thresholds (nats)")
	fs.Float64SliceVar(&f.s.Influences, "influences", []float64{0.01, 0.03, 0.05, 0.07, 0.09}, "sensitivity: attention-influence thresholds")
	fs.Float64Var(&f.s.EntropyTrigger, "entropy-trigger", 0, "trigger: a fixed entropy threshold (0: where it fires as often as the probe)")
	fs.StringSliceVar(&f.s.Only, "only", nil, "only these configurations (run names, comma-separated; --dry-run lists them by their --out folders)")
	fs.StringArrayVar(&f.variants, "variant", nil, "table1/cost: also run ACToR as NAME with these flags, e.g. --variant \"stable-reuse=--layout stable --kv-reuse\" (repeatable)")
	fs.StringVar(&f.runArgs, "run-args", "", "extra flags for every actor run, space-separated (e.g. \"--max-tokens 256\")")
	fs.StringVar(&f.benchArgs, "bench-args", "", "extra flags for every actor bench run (e.g. \"--workers 2\")")
	fs.StringVar(&f.trainArgs, "train-args", "", "extra flags for every actor probe train (e.g. \"--target-rate 0.08\")")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the commands the experiment runs, and run nothing")
	fs.BoolVar(&f.reportOnly, "report-only", false, "render the report from what the run folders hold now, and run nothing")
	return cmd
}

// run runs the experiment name (unless --dry-run or --report-only) and
// renders its report.
func (f *experimentFlags) run(cmd *cobra.Command, name string, stdout, stderr io.Writer) error {
	s := f.s
	if !slices.Contains(experiment.Names, name) {
		return fmt.Errorf("experiment: no experiment %q (want one of %s)", name, strings.Join(experiment.Names, ", "))
	}
	if s.Benchmark == "" || s.Data == "" || s.Repos == "" || s.Out == "" {
		return errors.New("experiment: --benchmark, --data, --repos and --out are required")
	}
	set, err := dataset.Load(s.Benchmark, s.Data)
	if err != nil {
		return err
	}
	tasks, err := pickTasks(set, f.tasks, f.limit)
	if err != nil {
		return err
	}
	s.Projects = map[string]string{}
	for _, t := range tasks {
		s.Tasks = append(s.Tasks, t.ID)
		s.Projects[t.ID] = t.Project
	}
	s.AllTasks = len(set.Tasks)
	for _, v := range f.variants {
		vr, err := experiment.ParseVariant(v)
		if err != nil {
			return fmt.Errorf("experiment: %w", err)
		}
		s.Variants = append(s.Variants, vr)
	}
	s.RunArgs, s.BenchArgs, s.TrainArgs = strings.Fields(f.runArgs), strings.Fields(f.benchArgs), strings.Fields(f.trainArgs)
	s.Command = "actor " + experiment.Quote(absoluteFolders(os.Args[1:], "--data", "--repos"))
	if s.ModelFile, err = models.Resolve(s.Model); err != nil {
		return err
	}
	if s.Probe == "" && name != "sensitivity" {
		if s.Probe, err = pipeline.ShippedProbe(s.Model); err != nil {
			return err
		}
	}
	for _, p := range []*string{&s.Data, &s.Repos, &s.Out, &s.Probe, &s.Labels, &s.ModelFile} {
		if *p != "" {
			if *p, err = filepath.Abs(*p); err != nil {
				return err
			}
		}
	}
	if models.Lookup(s.Model) == nil {
		s.Model = s.ModelFile
	}
	if !f.reportOnly && !f.dryRun { // rendering needs no repositories
		if s.Sources, err = runrecord.ProjectSources(tasks, s.Repos, nil); err != nil {
			return fmt.Errorf("experiment: %w", err)
		}
	}
	plan, err := experiment.New(name, s)
	if err != nil {
		return err
	}
	if f.dryRun {
		for _, c := range plan.Commands() {
			fmt.Fprintf(stdout, "actor %s\n", experiment.Quote(c))
		}
		return nil
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !f.reportOnly {
		if err := plan.Execute(ctx, selfExec(stderr), stderr); err != nil {
			if ctx.Err() != nil {
				return errors.New("interrupted: run the same command to continue")
			}
			return err
		}
	}
	if err := plan.Render(experiment.ThisMachine()); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "report: %s\n", filepath.Join(plan.ReportDir(), "report.md"))
	return nil
}

// selfExec runs this binary with the given arguments, its output going to
// log; on interruption the child is asked to stop (it saves what it
// finished) before it is killed.
func selfExec(log io.Writer) experiment.Exec {
	return func(ctx context.Context, args []string) error {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "experiment: actor %s\n", experiment.Quote(args))
		c := exec.CommandContext(ctx, exe, args...)
		c.Stdout, c.Stderr = log, log
		c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
		c.WaitDelay = time.Minute
		if err := c.Run(); err != nil {
			return fmt.Errorf("actor %s: %w", args[0], err)
		}
		return nil
	}
}

// absoluteFolders is args with the values of the given folder flags made
// absolute, so that the README names them as the report renders every
// other mention of those folders (experiment.Plan's placeholders).
func absoluteFolders(args []string, flags ...string) []string {
	out := slices.Clone(args)
	for i, a := range out {
		for _, f := range flags {
			switch {
			case a == f && i+1 < len(out):
				if abs, err := filepath.Abs(out[i+1]); err == nil {
					out[i+1] = abs
				}
			case strings.HasPrefix(a, f+"="):
				if abs, err := filepath.Abs(strings.TrimPrefix(a, f+"=")); err == nil {
					out[i] = f + "=" + abs
				}
			}
		}
	}
	return out
}
