package main

import (
	"actor/encoder"
	"actor/retrieve"

	"github.com/spf13/pflag"
)

// An encoderOpener opens a dense encoder by name (see pipeline.OpenEncoder).
type encoderOpener func(name string, opts encoder.Options) (retrieve.Encoder, error)

// globalFlags are the root command's persistent flags, which every command
// has, and the opener of the dense encoders commands name.
type globalFlags struct {
	keepQ5_0       bool
	encoderLayout  string
	encoderThreads int
	open           encoderOpener
}

// register adds the persistent flags to the root command's set.
func (g *globalFlags) register(pf *pflag.FlagSet) {
	pf.StringVar(&g.encoderLayout, "encoder-layout", "auto",
		"encoder input: auto, model ([CLS] x [SEP] / <s> x </s>), encoder-only (UniXcoder: <s> <encoder-only> </s> x </s>) or plain (<s> </s> x </s>)")
	pf.IntVar(&g.encoderThreads, "encoder-threads", 0,
		"ggml threads for the encoder (0: the command's --threads, else CPUs up to 8); 1 is fastest on a busy machine")
	pf.BoolVar(&g.keepQ5_0, "keep-q5_0", false,
		"keep a model's Q5_0 matrices as stored instead of their exact Q8_0 copies (same output; prefill about 1.4x slower, 12 fewer bytes per 32 weights)")
}

// encoders returns the opener of --encoder arguments for a command whose
// --threads is threads (0 for one without): --encoder-layout's input, and
// --encoder-threads threads, else the command's (ggml's thread count is
// process-wide: the last model loaded sets it for all).
func (g *globalFlags) encoders(threads int) func(name string) (retrieve.Encoder, error) {
	return func(name string) (retrieve.Encoder, error) {
		layout, err := encoder.ParseLayout(g.encoderLayout)
		if err != nil {
			return nil, err
		}
		n := g.encoderThreads
		if n <= 0 {
			n = max(threads, 0)
		}
		return g.open(name, encoder.Options{Layout: layout, Threads: n})
	}
}
