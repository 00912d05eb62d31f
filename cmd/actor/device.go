package main

import (
	"fmt"
	"io"
	"strings"

	"actor/engine"

	"github.com/spf13/cobra"
)

// newDeviceCmd builds actor device: what the binary can run models on.
func newDeviceCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "device",
		Short: "Print the devices models can run on: the CPU, and CUDA GPUs when the CUDA library loads",
		Long: `Print the CPU build's features, where the CUDA library (bin/` + engine.CUDALibrary + `,
built by 'make cuda'; $ACTOR_CUDA_LIB instead when set) was looked for,
whether it loaded, and each CUDA device with its memory, or why there is
none. --device auto on the model commands takes the first GPU listed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			printDevices(cmd.OutOrStdout(), engine.FindCUDA())
			return nil
		},
	}
}

// printDevices writes what f found, one device a line.
func printDevices(w io.Writer, f engine.CUDAFound) {
	feat := strings.Join(engine.BuildFeatures(), " ")
	if feat == "" {
		feat = "none"
	}
	avx2 := "AVX2/FMA/F16C"
	if !engine.BuiltWithAVX2() {
		avx2 = "without AVX2"
	}
	fmt.Fprintf(w, "cpu\tggml CPU backend, %s, features: %s\n", avx2, feat)
	state := "not loaded"
	if f.Loaded {
		state = "loaded"
	}
	fmt.Fprintf(w, "cuda library\t%s (%s)\n", f.Library, state)
	for _, g := range f.GPUs {
		fmt.Fprintf(w, "cuda\t%s, %.1f GiB free\n", g, float64(g.FreeMemory)/(1<<30))
	}
	if len(f.GPUs) == 0 {
		fmt.Fprintf(w, "cuda\tnone: %s\n", f.Reason)
	}
}
