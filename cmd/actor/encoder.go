package main

import (
	"strconv"

	"actor/encoder"
	"actor/pipeline"
	"actor/retrieve"

	"github.com/spf13/cobra"
)

// encoderLayout and encoderThreads are the --encoder-layout and
// --encoder-threads flags: how texts become encoder input (UniXcoder's
// <encoder-only> mode token or not) and ggml's thread count.
var (
	encoderLayout  string
	encoderThreads int
)

// runningCmd is the command being executed, so the encoder can follow its
// --threads flag: ggml's thread count is process-wide and the last model
// loaded sets it for all.
var runningCmd *cobra.Command

// threads returns --encoder-threads, else the running command's --threads,
// else 0 (the encoder's default).
func threads() int {
	if encoderThreads > 0 || runningCmd == nil {
		return encoderThreads
	}
	if f := runningCmd.Flags().Lookup("threads"); f != nil && f.Value.Type() == "int" {
		n, _ := strconv.Atoi(f.Value.String())
		return max(n, 0)
	}
	return 0
}

// openEncoderByName opens an --encoder argument with the CLI's
// --encoder-layout and thread count (see pipeline.OpenEncoder).
func openEncoderByName(name string) (retrieve.Encoder, error) {
	layout, err := encoder.ParseLayout(encoderLayout)
	if err != nil {
		return nil, err
	}
	return pipeline.OpenEncoder(name, encoder.Options{Layout: layout, Threads: threads()})
}

func init() {
	openEncoder = openEncoderByName
	pf := rootCmd.PersistentFlags()
	pf.StringVar(&encoderLayout, "encoder-layout", "auto",
		"encoder input: auto, model ([CLS] x [SEP] / <s> x </s>), encoder-only (UniXcoder: <s> <encoder-only> </s> x </s>) or plain (<s> </s> x </s>)")
	pf.IntVar(&encoderThreads, "encoder-threads", 0,
		"ggml threads for the encoder (0: the command's --threads, else CPUs up to 8); 1 is fastest on a busy machine")
	rootCmd.PersistentPreRun = func(cmd *cobra.Command, _ []string) { runningCmd = cmd }
}
