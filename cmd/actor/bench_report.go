package main

import (
	"fmt"

	"actor/bench/report"
	"actor/internal/atomicfile"

	"github.com/spf13/cobra"
)

// newBenchReportCmd builds actor bench report: results folders rendered
// as the paper's tables and a chart.
func newBenchReportCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report DIR...",
		Short: "Render results folders as Table I (pass@k) and Table II (cost) in Markdown, plus a PNG chart",
		Long: `Reads the results folders written by 'actor bench run' (run.json and
samples.jsonl) and renders, side by side, Table I (pass@1/3/5 per method and
model, one column group per benchmark) and Table II (ms per token, seconds per
sample, generated tokens, generated/ground-truth tokens on passing samples,
retrieval triggers and context changes per sample). The Markdown is printed
and written to PREFIX.md, the bar chart to PREFIX.png.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rows, err := report.Load(args)
			if err != nil {
				return err
			}
			md := report.Markdown(rows)
			if err := atomicfile.Write(out+".md", md); err != nil {
				return err
			}
			if err := report.Chart(rows, out+".png"); err != nil {
				return err
			}
			cmd.OutOrStdout().Write(md)
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s.md and %s.png\n", out, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "bench-report", "output prefix: writes PREFIX.md and PREFIX.png")
	return cmd
}
