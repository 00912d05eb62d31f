// Command actor is the single binary of the ACToR project: it runs GGUF code
// models, indexes repositories, generates functions with ACToR or a baseline,
// trains the critical-token probe and evaluates benchmarks.
//
// Each subcommand lives in its own file of this package and registers itself
// on rootCmd from an init function, so subcommands stay thin and independent.
package main

import (
	"errors"
	"fmt"
	"os"

	"actor/engine"

	"github.com/spf13/cobra"
)

// rootCmd is the top-level command every subcommand attaches to.
var rootCmd = &cobra.Command{
	Use:           "actor",
	Short:         "Adaptive Critical Token-aware Retrieval for repository-level code generation",
	SilenceUsage:  true,
	SilenceErrors: true,
}

func main() {
	if err := engine.CPUCheck(); err != nil {
		fmt.Fprintln(os.Stderr, "actor:", err)
		os.Exit(1)
	}
	if err := rootCmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "actor:", err)
		os.Exit(exitCode(err))
	}
}

// exitCode is 2 for errors that say the command's input is wrong (they
// have an ExitCode method, e.g. bench.FolderError), else 1.
func exitCode(err error) int {
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return 1
}
