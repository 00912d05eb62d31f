package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"actor/models"
	"actor/pipeline"

	"github.com/spf13/cobra"
)

// tokenizeFlags are the options of actor tokenize.
type tokenizeFlags struct {
	model   string
	special bool
	bos     bool
	pieces  bool
}

// newTokenizeCmd builds actor tokenize: the token ids of a file with a
// model's tokenizer.
func newTokenizeCmd() *cobra.Command {
	f := &tokenizeFlags{}
	cmd := &cobra.Command{
		Use:   "tokenize [FILE]",
		Short: "Print the token ids of a file (stdin without FILE) with a model's tokenizer",
		Long: `Encode the text of FILE (or stdin) with the tokenizer the model's GGUF
metadata declares and print the ids on one line, or with --pieces one JSON
line per token: {"id","text"}, text being the token's bytes. Only the
metadata is read, not the weights. --special matches the texts of control
tokens (<|im_start|>, <s>) as those tokens; --bos adds BOS as the model asks.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.run(cmd.InOrStdin(), cmd.OutOrStdout(), args)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.model, "model", models.DefaultModel, "model name (see 'actor models list') or GGUF file path")
	fs.BoolVar(&f.special, "special", false, "match the texts of control tokens as those tokens")
	fs.BoolVar(&f.bos, "bos", false, "add BOS (and EOS) as the model's metadata asks")
	fs.BoolVar(&f.pieces, "pieces", false, "print one JSON line per token: id and text")
	return cmd
}

// run prints the ids of the file args names, or of stdin.
func (f *tokenizeFlags) run(stdin io.Reader, stdout io.Writer, args []string) error {
	var text []byte
	var err error
	if len(args) == 1 {
		text, err = os.ReadFile(args[0])
	} else {
		text, err = io.ReadAll(stdin)
	}
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	tok, err := pipeline.OpenTokenizer(f.model)
	if err != nil {
		return err
	}
	encode := tok.Encode
	if f.special {
		encode = tok.EncodeSpecial
	}
	ids := encode(string(text), f.bos)
	if f.pieces {
		enc := json.NewEncoder(stdout)
		for _, id := range ids {
			text := tok.Piece(id)
			if tok.IsSpecial(id) {
				text = tok.TokenText(id)
			}
			if err := enc.Encode(struct {
				ID   int32  `json:"id"`
				Text string `json:"text"`
			}{id, text}); err != nil {
				return err
			}
		}
		return nil
	}
	for i, id := range ids {
		if i > 0 {
			fmt.Fprint(stdout, " ")
		}
		fmt.Fprint(stdout, id)
	}
	fmt.Fprintln(stdout)
	return nil
}
