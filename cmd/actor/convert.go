package main

import (
	"fmt"
	"os"

	"actor/convert"
	"actor/models"

	"github.com/spf13/cobra"
)

// newConvertCmd builds actor convert: a Hugging Face checkpoint folder
// turned into GGUF.
func newConvertCmd() *cobra.Command {
	var typeName string
	cmd := &cobra.Command{
		Use:   "convert HF_DIR OUT.gguf",
		Short: "Convert a Hugging Face checkpoint folder (safetensors) to GGUF",
		Long: `Convert a Hugging Face model folder (config.json, *.safetensors, sharded or
not, and tokenizer.json or the vocabulary files) to a GGUF file:

  BertModel, RobertaModel     encoders for dense retrieval (MiniLM, UniXcoder);
                              the tokenizer is kept as tokenizer.json text
  LlamaForCausalLM,           decoders for the engine (DeepSeek-Coder, CodeLlama,
  Qwen2ForCausalLM            SmolLM2, Qwen2.5); llama.cpp tensor names and
                              tokenizer.ggml.* metadata

HF_DIR may also be a pulled model's name (e.g. all-minilm-l6-v2). Weights are
read as F32, F16 or BF16 and written as --type (default: f32 for encoders,
f16 for decoders); norms and biases stay F32. The file is written atomically.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			var typ convert.Type
			if typeName != "" {
				var err error
				if typ, err = convert.ParseType(typeName); err != nil {
					return err
				}
			}
			dir, err := models.Resolve(args[0])
			if err != nil {
				return err
			}
			opt := convert.Options{Type: typ}
			if isTerminal(os.Stderr) {
				opt.Progress = cmd.ErrOrStderr()
			}
			s, err := convert.Convert(dir, args[1], opt)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %s as %s, %d tensors, %s, %.1f MiB\n",
				args[1], s.Source, s.Architecture, s.Tensors, s.Type, float64(s.Bytes)/(1<<20))
			return nil
		},
	}
	cmd.Flags().StringVar(&typeName, "type", "", "weight type: f32, f16 or q8_0 (default f32 for encoders, f16 for decoders)")
	return cmd
}
