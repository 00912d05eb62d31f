// Package convert turns a Hugging Face checkpoint folder (config.json,
// *.safetensors weights, sharded or not, and the tokenizer files) into a
// GGUF file the engine and the encoder load: BertModel and RobertaModel
// encoders (MiniLM, UniXcoder) and the decoder families LlamaForCausalLM
// and Qwen2ForCausalLM.
//
// Tensor names and metadata keys are llama.cpp's, and so is the weight
// layout (Llama's Q/K rows permuted for adjacent-pair RoPE; RoBERTa's
// position table without its first padding_idx+1 rows, so positions start
// at 0 as in BERT). Tokenizers: decoders get llama.cpp's tokenizer.ggml.*
// keys (see ggmltok.go); encoders keep a tokenizer.json text under
// gguf.KeyTokenizerJSON (see tokjson.go), which package tokenizer parses.
//
// Weights are read as float32 (F32, F16 or BF16 in the file) and written
// as F32, F16 or Q8_0 (Options.Type); norms and biases stay F32. The output
// is written atomically: a failed conversion leaves no file behind.
package convert

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"actor/gguf"

	"github.com/schollz/progressbar/v3"
)

// Options choose the output.
type Options struct {
	// Type stores weight matrices as F32, F16 or Q8_0 (default F16 for
	// decoders, F32 for encoders: they are small and exactness is cheap).
	Type Type
	// Name is general.name (default: the folder's name).
	Name string
	// Progress receives a progress bar over the tensors; nil shows none.
	Progress io.Writer
}

// Summary describes a finished conversion.
type Summary struct {
	Source       string // config.json's architecture, e.g. "BertModel"
	Architecture string // general.architecture written: bert, llama, qwen2
	Type         Type
	Tensors      int
	Bytes        int64 // size of the GGUF file
}

// converters maps config.json architectures to their converter.
var converters = map[string]func(*writer) error{
	"BertModel":        func(w *writer) error { return convertEncoder(w, "bert") },
	"RobertaModel":     func(w *writer) error { return convertEncoder(w, "roberta") },
	"LlamaForCausalLM": func(w *writer) error { return convertDecoder(w, "llama") },
	"Qwen2ForCausalLM": func(w *writer) error { return convertDecoder(w, "qwen2") },
}

// Supported lists the config.json architectures Convert accepts.
func Supported() []string {
	var out []string
	for k := range converters {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Convert reads the checkpoint folder dir and writes it to out as GGUF.
func Convert(dir, out string, opt Options) (Summary, error) {
	ck, err := openCheckpoint(dir)
	if err != nil {
		return Summary{}, err
	}
	defer ck.close()
	arch := ck.architecture()
	conv, ok := converters[arch]
	if !ok {
		return Summary{}, fmt.Errorf("%s: unsupported architecture %q (supported: %s)",
			filepath.Join(dir, "config.json"), arch, strings.Join(Supported(), ", "))
	}
	if opt.Name == "" {
		abs, _ := filepath.Abs(dir)
		opt.Name = filepath.Base(abs)
	}
	w := &writer{ck: ck, dir: dir, opt: opt}
	if err := conv(w); err != nil {
		return Summary{}, err
	}
	if left := ck.unused(w.ignored...); len(left) > 0 {
		return Summary{}, fmt.Errorf("%s: %d tensors this converter does not know, e.g. %s (a %s variant it does not support?)",
			dir, len(left), left[0], arch)
	}
	if err := gguf.WriteFile(out, w.kvs, w.tensors, 32); err != nil {
		return Summary{}, err
	}
	st, err := os.Stat(out)
	if err != nil {
		return Summary{}, err
	}
	return Summary{Source: arch, Architecture: w.arch, Type: w.opt.Type, Tensors: len(w.tensors), Bytes: st.Size()}, nil
}

// writer collects the metadata and tensors of the output file.
type writer struct {
	ck      *checkpoint
	dir     string
	opt     Options
	arch    string
	kvs     []gguf.KV
	tensors []gguf.TensorData
	ignored []string // suffixes of source tensors deliberately not converted
	bar     *progressbar.ProgressBar
}

// start writes the general.* keys once the architecture and default type
// are known, and opens the progress bar over n tensors.
func (w *writer) start(arch string, defType Type, n int) {
	w.arch = arch
	if w.opt.Type == "" {
		w.opt.Type = defType
	}
	w.kv("general.architecture", arch)
	w.kv("general.name", w.opt.Name)
	w.kv("general.file_type", w.opt.Type.fileType())
	if w.opt.Progress != nil {
		w.bar = progressbar.NewOptions(n, progressbar.OptionSetWriter(w.opt.Progress),
			progressbar.OptionSetDescription("converting"), progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("tensors"), progressbar.OptionShowIts(),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w.opt.Progress) }))
	}
}

func (w *writer) kv(key string, v any) { w.kvs = append(w.kvs, gguf.KV{Key: key, Value: v}) }

// tensor kinds decide the stored type.
type kind int

const (
	matrix kind = iota // weight matrix or token embeddings: Options.Type
	table              // small embedding table: F32, or F16 when quantising
	vector             // norm weight or bias: F32
)

// put stores values of the HF shape (outermost first) under name, after
// checking the shape against want.
func (w *writer) put(name string, data []float32, shape []int64, k kind) error {
	ne0 := shape[len(shape)-1]
	typ := gguf.TypeF32
	switch {
	case k == matrix && len(shape) == 2:
		typ = w.opt.Type.ggmlType(ne0)
	case k == table && w.opt.Type != F32:
		typ = gguf.TypeF16
	}
	raw, err := encodeTensor(data, ne0, typ)
	if err != nil {
		return fmt.Errorf("tensor %s: %v", name, err)
	}
	ggShape := make([]uint64, len(shape))
	for i, d := range shape {
		ggShape[len(shape)-1-i] = uint64(d)
	}
	w.tensors = append(w.tensors, gguf.TensorData{Name: name, Shape: ggShape, Type: typ, Data: raw})
	if w.bar != nil {
		w.bar.Add(1)
	}
	return nil
}

// copy reads the source tensor src, checks its shape and stores it as dst.
func (w *writer) copy(dst, src string, k kind, want ...int64) error {
	data, shape, err := w.read(src, want...)
	if err != nil {
		return err
	}
	return w.put(dst, data, shape, k)
}

// read reads the source tensor src and checks its shape.
func (w *writer) read(src string, want ...int64) ([]float32, []int64, error) {
	data, shape, err := w.ck.tensor(src)
	if err != nil {
		return nil, nil, err
	}
	if !slices.Equal(shape, want) {
		return nil, nil, fmt.Errorf("%s: tensor %s has shape %v, config.json implies %v", w.dir, src, shape, want)
	}
	return data, shape, nil
}
