package engine

import (
	"fmt"
	"runtime"

	"actor/engine/ggml"
	"actor/gguf"
)

// DefaultContextLength caps a session's context when Options.ContextLength
// is zero: ACToR prompts (≤ ~1000 tokens of retrieved code plus the target)
// and 512 generated tokens fit, and the KV cache stays small.
const DefaultContextLength = 4096

// DefaultBatchSize is the number of prompt tokens per forward pass while
// prefilling (llama.cpp's default n_batch).
const DefaultBatchSize = 512

// Options tune how a model is loaded and run.
type Options struct {
	// ContextLength is the number of positions each session can hold
	// (prompt + generated tokens). 0 means min(DefaultContextLength, the
	// model's trained context); larger than the trained context is refused.
	ContextLength int
	// Threads is ggml's CPU thread count. It is process-wide: the last
	// Load sets it for every model of the process. 0 means DefaultThreads().
	Threads int
	// F32Cache stores keys and values as float32 instead of float16 (the
	// llama.cpp default): exact, at twice the memory.
	F32Cache bool
	// FlashAttention uses ggml's flash-attention kernel in every layer
	// whose attention probabilities are not read. Each query row is then
	// computed the same way whatever the batch, so a reused prefix, Score
	// and step-by-step decoding agree more closely on quantised models.
	// Off by default, matching llama.cpp's default graph.
	FlashAttention bool
	// BatchSize is the number of tokens per forward pass when prefilling
	// (0: DefaultBatchSize). Larger batches are faster but need more memory.
	BatchSize int
	// KeepQ5_0 keeps Q5_0 matrices as stored instead of widening them to
	// their exact Q8_0 copies, which ggml multiplies faster (same logits;
	// 12 more bytes per 32 weights). For measurements.
	KeepQ5_0 bool
	// Device is where the decoder runs: DeviceAuto ("" too), DeviceCPU or
	// DeviceCUDA (see ResolveDevice).
	Device string
}

// DefaultThreads is the thread count used when Options.Threads is 0: the
// number of CPUs, at most 8. ggml's workers spin while waiting, so on a
// machine busy with other processes fewer threads can be faster.
func DefaultThreads() int { return min(runtime.NumCPU(), 8) }

// Model is a loaded decoder. Sessions of one model share its weights and
// may be used from different goroutines at the same time (their forward
// passes then take turns); a single Session is not safe for concurrent use.
type Model struct {
	// Config is the model's shape, read from the file.
	Config Config
	path   string
	file   *gguf.File
	opts   Options
	net    *ggml.Model
}

// Load validates the GGUF file at path (header, architecture, every tensor's
// name, shape and type) and then reads its weights into memory.
func Load(path string, opts Options) (*Model, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	cfg, err := readConfig(f)
	if err != nil {
		return nil, fmt.Errorf("engine: %s: %w", path, err)
	}
	switch {
	case opts.ContextLength < 0:
		return nil, fmt.Errorf("engine: context length %d must not be negative", opts.ContextLength)
	case opts.ContextLength == 0:
		opts.ContextLength = min(DefaultContextLength, cfg.ContextLength)
	case opts.ContextLength > cfg.ContextLength:
		return nil, fmt.Errorf("engine: context length %d exceeds the %d positions %s was trained for",
			opts.ContextLength, cfg.ContextLength, path)
	}
	if opts.Threads <= 0 {
		opts.Threads = DefaultThreads()
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	gpu, _, err := ggml.ResolveDevice(opts.Device)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	net, err := ggml.Load(path, cfg.params(f), ggml.Options{Threads: opts.Threads, FlashAttention: opts.FlashAttention, NoWiden: opts.KeepQ5_0, GPU: gpu})
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return &Model{Config: cfg, path: path, file: f, opts: opts, net: net}, nil
}

// GGUF returns the parsed header of the model file (metadata such as the
// tokenizer's vocabulary, and the tensor directory).
func (m *Model) GGUF() *gguf.File { return m.file }

// Path is the file the model was loaded from.
func (m *Model) Path() string { return m.path }

// Options returns the options in effect, defaults filled in.
func (m *Model) Options() Options { return m.opts }

// Close frees the weights; close every session of the model first.
func (m *Model) Close() {
	if m.net != nil {
		m.net.Close()
		m.net = nil
	}
}

// RepackedMatrices is the number of weight matrices moved to ggml's
// interleaved CPU layout at load (0 unless the binary was built with
// -DGGML_USE_CPU_REPACK and the file has Q4_0, Q4_K or IQ4_NL matrices).
func (m *Model) RepackedMatrices() int { return m.net.Repacked() }

// WidenedMatrices is the number of Q5_0 matrices held as their exact Q8_0
// copies, and the memory that took beyond the file's (see Options.KeepQ5_0).
func (m *Model) WidenedMatrices() (int, int64) { return m.net.Widened() }
