// Command actor is the single binary of the ACToR project: it runs GGUF code
// models, indexes repositories, generates functions with ACToR or a baseline,
// trains the critical-token probe and evaluates benchmarks.
//
// Each subcommand lives in its own file of this package, built by a
// constructor (newGenerateCmd, newRunCmd, ...) that owns its flags;
// newRootCmd assembles them. The package keeps no state of its own.
package main

import (
	"errors"
	"fmt"
	"os"

	"actor/engine"
	"actor/pipeline"

	"github.com/spf13/cobra"
)

func main() {
	os.Exit(execute(pipeline.OpenEncoder))
}

// execute runs the command line of os.Args, dense encoders opened by open,
// and returns the exit status.
func execute(open encoderOpener) int {
	if err := engine.CPUCheck(); err != nil {
		fmt.Fprintln(os.Stderr, "actor:", err)
		return 1
	}
	if err := newRootCmd(open).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "actor:", err)
		return exitCode(err)
	}
	return 0
}

// newRootCmd builds the top-level command with every subcommand; open
// opens the dense encoders they name.
func newRootCmd(open encoderOpener) *cobra.Command {
	root := &cobra.Command{
		Use:           "actor",
		Short:         "Adaptive Critical Token-aware Retrieval for repository-level code generation",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	g := &globalFlags{open: open}
	g.register(root.PersistentFlags())
	root.AddCommand(newBenchCmd(), newConvertCmd(), newExperimentCmd(), newGenerateCmd(g), newIndexCmd(g),
		newModelsCmd(), newProbeCmd(g), newPromptCmd(g), newRecallCmd(g), newRunCmd(g), newSearchCmd(g),
		newServeCmd(g), newTokenizeCmd(), newWorkerCmd(g), newDeviceCmd())
	return root
}

// usageError is a command line cobra could not parse (an unknown flag, a
// value a flag refuses): exit status 2, as for other wrong input.
type usageError struct{ error }

// ExitCode is 2: the command line is wrong.
func (usageError) ExitCode() int { return 2 }

// Unwrap is the parse error.
func (e usageError) Unwrap() error { return e.error }

// exitCode is 2 for errors that say the command's input is wrong (they
// have an ExitCode method, e.g. bench.FolderError), else 1.
func exitCode(err error) int {
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return 1
}
