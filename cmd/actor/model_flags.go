package main

import (
	"fmt"
	"io"
	"log/slog"

	"actor/engine"
	"actor/generate"
	"actor/models"
	"actor/pipeline"
	"actor/retrieve"

	"github.com/spf13/pflag"
)

// modelFlags are the flags of a command that loads a generator model: the
// model, and how the engine runs it (with the root's --keep-q5_0).
type modelFlags struct {
	global              *globalFlags
	model               string
	threads, ctx        int
	f32Cache, flashAttn bool
	verbose             bool
	device              deviceValue
}

// deviceValue is --device, checked when parsed so that a wrong name stops
// the command (exit 2) before anything loads.
type deviceValue string

func (d *deviceValue) String() string { return string(*d) }

// Set accepts the names engine.CheckDevice accepts.
func (d *deviceValue) Set(s string) error {
	if err := engine.CheckDevice(s); err != nil {
		return err
	}
	*d = deviceValue(s)
	return nil
}

// Type names the value in the help.
func (d *deviceValue) Type() string { return "device" }

// modelFlagSet says which model flags a command has beyond --model and
// --threads, and how it words those whose help is its own.
type modelFlagSet struct {
	modelHelp string // --model's help ("": the common one)
	ctxHelp   string // --ctx's help ("": the common one)
	noCtx     bool   // no --ctx
	kvCache   bool   // --f32-cache and --flash-attn
	verbose   bool   // --verbose
}

// register adds the flags set chooses to fs; g holds the root's flags.
func (f *modelFlags) register(fs *pflag.FlagSet, g *globalFlags, set modelFlagSet) {
	f.global = g
	if set.modelHelp == "" {
		set.modelHelp = "model name (see 'actor models list') or GGUF file path"
	}
	if set.ctxHelp == "" {
		set.ctxHelp = fmt.Sprintf("context length in tokens (0: min(%d, the model's))", engine.DefaultContextLength)
	}
	fs.StringVar(&f.model, "model", models.DefaultModel, set.modelHelp)
	fs.IntVar(&f.threads, "threads", 0, "CPU threads for ggml (0: number of CPUs, at most 8)")
	f.device = engine.DeviceAuto
	fs.Var(&f.device, "device",
		"where the model runs: auto (a CUDA GPU when bin/"+engine.CUDALibrary+" loads and a device answers, else the CPU), cpu or cuda")
	if !set.noCtx {
		fs.IntVar(&f.ctx, "ctx", 0, set.ctxHelp)
	}
	if set.kvCache {
		fs.BoolVar(&f.f32Cache, "f32-cache", false, "keep the KV cache in float32 instead of float16")
		fs.BoolVar(&f.flashAttn, "flash-attn", false, "use flash attention (results independent of batching; llama.cpp's default is off)")
	}
	if set.verbose {
		fs.BoolVar(&f.verbose, "verbose", false, "show the tensor backend's log")
	}
}

// engineOptions are the engine options the flags choose.
func (f *modelFlags) engineOptions() engine.Options {
	return engine.Options{ContextLength: f.ctx, Threads: f.threads, F32Cache: f.f32Cache, FlashAttention: f.flashAttn,
		KeepQ5_0: f.global.keepQ5_0, Device: string(f.device)}
}

// encoders opens --encoder arguments with the root's encoder flags and
// this command's --threads.
func (f *modelFlags) encoders() func(name string) (retrieve.Encoder, error) {
	return f.global.encoders(f.threads)
}

// openPipeline loads the model and what method needs, with the CLI's
// encoder options, warnings on stderr and index bars on a terminal.
func (f *modelFlags) openPipeline(method pipeline.Method, cfg generate.Config, stderr io.Writer) (*pipeline.Pipeline, error) {
	return pipeline.Open(f.pipelineOptions(method, cfg, stderr))
}

// pipelineOptions are the pipeline options of the model flags.
func (f *modelFlags) pipelineOptions(method pipeline.Method, cfg generate.Config, stderr io.Writer) pipeline.Options {
	return pipeline.Options{Model: f.model, Engine: f.engineOptions(), Method: method, Config: cfg,
		OpenEncoder: f.encoders(), Log: stderr, Progress: progressOn(stderr)}
}

// quietLogs silences the tensor backend's set-up log (slog at Info)
// unless --verbose: slog goes to stderr at Warn level.
func (f *modelFlags) quietLogs(stderr io.Writer) {
	if !f.verbose {
		slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
}

// startLogs is quietLogs, a warning on stderr when this binary was built
// without the CPU features that make ggml fast, and the one line saying
// which device --device auto or cuda chose where there is something to
// tell (a GPU, or a CUDA build that found none; a CPU build says nothing).
// A --device cuda that cannot be met fails later, when the model loads,
// with the reason.
func (f *modelFlags) startLogs(stderr io.Writer) {
	f.quietLogs(stderr)
	if w := engine.CPUWarning(); w != "" {
		fmt.Fprintln(stderr, w)
	}
	if note, err := engine.ResolveDevice(string(f.device)); err == nil && note != "" {
		fmt.Fprintln(stderr, note)
	}
}
