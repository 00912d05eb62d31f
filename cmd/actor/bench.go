package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"actor/bench"
	"actor/bench/envs"
	"actor/bench/results"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newBenchCmd builds actor bench, the group of the benchmark harness
// commands.
func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Test generated functions on RepoExec and CoderEval and report pass@k",
	}
	cmd.AddCommand(newBenchRunCmd(), newBenchSetupCmd(), newBenchLockCmd(), newBenchReportCmd())
	return cmd
}

// newBenchRunCmd builds actor bench run: a predictions file (or the gold
// solutions) tested.
func newBenchRunCmd() *cobra.Command {
	c := &bench.Config{}
	cmd := &cobra.Command{
		Use:   "run --benchmark repoexec|codereval --data DIR --repos DIR (--predictions FILE.jsonl | --gold) --out DIR",
		Short: "Run the benchmark's tests on every sample and write pass@k (resumable)",
		Long: `Every sample of the predictions file (docs/PREDICTIONS.md), or with --gold the
gold solution of every task, is placed into a fresh copy of its repository and
tested in a sandbox (own process group, time limit killing the whole tree,
memory/CPU/process/file-size limits, no network where a network namespace can
be made; run as root, each worker uses its own unprivileged user id, shown as
root inside a user namespace when the interpreter is reachable by all users;
otherwise everything outside the sample's folder is mounted read-only).

RepoExec: the gold function is replaced in the module file and in the task's
test program, which runs under pytest from the module's package folder; the
/input/ and /output/ prefixes point into the workspace (expected outputs come
from --outputs, default DATA/test_output). Each task runs with its project's
environment in --envs (actor bench setup), else with --python. As in the
benchmark's image: PYTHONHASHSEED=0, root inside a user namespace, and where
the sandbox has a mount namespace HOME=/root and /tmp, both the sample's own
folders bound there. DATA may be RepoExec's data_with_test_case folder as
published (every pass_data.jsonl), its Hugging Face export or a tasks.jsonl. CoderEval: the function at
file_path:lineno is replaced and the file (or its *_passk_validte.py twin)
runs with python.

Results go to OUT/samples.jsonl (one synced line per sample), OUT/summary.md,
OUT/summary.csv and OUT/run.json. Run the same command again after an
interruption: finished samples are kept and not repeated (samples recorded
as harness errors, such as a missing repository, are tried again).

Identical code is tested once: a sample whose code equals, byte for byte, that
of a sample of the same task already tested in OUT or in a --reuse folder
(tested with the same benchmark, data, sandbox and time limit, and the same
environments) takes its outcome, recorded with "twin" naming that sample.
Only passed and failed outcomes are taken; --test-twins tests every sample.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg := *c
			if cfg.Benchmark == "" || cfg.Data == "" || cfg.Repos == "" || cfg.Out == "" {
				return fmt.Errorf("--benchmark, --data, --repos and --out are required")
			}
			if cfg.Gold == (cfg.Predictions != "") {
				return fmt.Errorf("give exactly one of --predictions and --gold")
			}
			cfg.Envs = envsFlag(cmd.Flags(), cfg.Envs)
			cfg.Command = "actor " + strings.Join(os.Args[1:], " ")
			cfg.Log = cmd.ErrOrStderr()
			cfg.Bar = isTerminal(os.Stderr)
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			out, err := bench.Run(ctx, cfg)
			if err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("interrupted: finished samples are saved in %s; run the same command to continue", cfg.Out)
				}
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%d samples tested now, %d took the outcome of a sample with the same code, %d from an earlier run; %d input errors\n",
				out.Evaluated, out.Twins, out.Resumed, len(out.Meta.InputErrors))
			for _, g := range out.Groups {
				label := g.Method
				if g.Model != "" {
					label += " (" + g.Model + ")"
				}
				fmt.Fprintf(w, "%s: %d/%d samples passed on %d tasks; pass@1 %s pass@3 %s pass@5 %s\n", label,
					g.Passed, g.Samples, len(g.Tasks), pct(g, 1), pct(g, 3), pct(g, 5))
			}
			fmt.Fprintf(w, "summary: %s\n", filepath.Join(cfg.Out, results.SummaryMD))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.Benchmark, "benchmark", "", "repoexec or codereval")
	f.StringVar(&c.Data, "data", "", "task file or folder (RepoExec tasks.jsonl/pass_data.jsonl/HF export; CoderEval4Python.json)")
	f.StringVar(&c.Repos, "repos", "", "folder holding the projects (RepoExec: the folder that contains test-apps/)")
	f.StringVar(&c.Outputs, "outputs", "", "RepoExec expected outputs, the /output/ prefix (default DATA/test_output)")
	f.StringVar(&c.Predictions, "predictions", "", "predictions JSONL file (docs/PREDICTIONS.md)")
	f.BoolVar(&c.Gold, "gold", false, "evaluate the gold solutions (harness self-check)")
	f.StringVar(&c.Out, "out", "", "results folder (reuse it to resume)")
	f.IntVar(&c.Workers, "workers", 0, "tests run at once (default: number of CPUs)")
	f.DurationVar(&c.Timeout, "timeout", 0, "time limit per test (default: RepoExec 120s, CoderEval 30s)")
	registerEnvs(f, &c.Python, &c.Envs)
	f.StringSliceVar(&c.Tasks, "task", nil, "only these task ids (repeatable, comma-separated)")
	f.BoolVar(&c.Published, "published", false, "RepoExec: only the 355 tasks the benchmark publishes (of data_with_test_case's 430 rows)")
	f.StringVar(&c.WorkDir, "workdir", "", "where per-sample workspaces are made (default: system temp folder)")
	f.BoolVar(&c.Keep, "keep", false, "keep the workspaces for inspection")
	f.StringSliceVar(&c.Reuse, "reuse", nil, "results folders whose outcomes stand for samples of the same task with identical code (repeatable)")
	f.BoolVar(&c.TestTwins, "test-twins", false, "test every sample, even one whose code was already tested")
	return cmd
}

// pct formats pass@k of g in percent, or n/a.
func pct(g results.Group, k int) string {
	if v, ok := g.PassAt[k]; ok {
		return results.FormatPct(v) + "%"
	}
	return "n/a"
}

// registerEnvs adds --python and --envs: the interpreter tests run with.
func registerEnvs(f *pflag.FlagSet, python, envsDir *string) {
	f.StringVar(python, "python", "python3", "Python interpreter for the tasks without an environment in --envs (alone: for every task)")
	f.StringVar(envsDir, "envs", envs.DefaultDir(), "per-project test environments (actor bench setup); each task runs with its project's")
}

// envsFlag is the environments folder to test with: none when --python
// alone was given (an explicit interpreter for every task).
func envsFlag(f *pflag.FlagSet, envsDir string) string {
	if f.Changed("python") && !f.Changed("envs") {
		return ""
	}
	return envsDir
}
