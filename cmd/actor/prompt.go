package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"actor/generate"
	"actor/models"
	"actor/pipeline"
	"actor/retrieve"
)

// promptFlags are the options of actor prompt.
type promptFlags struct {
	index     repoIndexFlags
	retrieval retrievalFlags
	file      string
	line      int
	tasks     string
	taskID    string
	layout    string
	model     string
	budget    int
	maxBlocks int
	asJSON    bool
	context   generate.ContextOptions
	format    string
}

// newPromptCmd builds actor prompt: the retrieval-augmented prompt of a
// target function.
func newPromptCmd(g *globalFlags) *cobra.Command {
	f := &promptFlags{}
	cmd := &cobra.Command{
		Use:   "prompt REPO (--file PATH --line N | --tasks FILE.jsonl --task ID)",
		Short: "Print the retrieval-augmented prompt for a target function",
		Long: `Locate the target function (the innermost function containing PATH:N, or a
benchmark task's function), retrieve blocks for its signature and docstring
with the target's own lines hidden, and print the prompt:

  actor     blocks best first as "# file path: P" + commented lines, joined by
            blank lines, then "# file path: TARGET" and the signature and
            docstring (the paper's layout);
  repocoder RepoCoder's header and fragments, best next to the code.

Blocks are kept best first while their generator tokens (--model's tokenizer)
stay under --budget; a block that does not fit is skipped, at most
--max-blocks.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			repo := args[0]
			var tg retrieve.Target
			var err error
			switch {
			case f.file != "" && f.tasks == "":
				if f.line < 1 {
					return errors.New("--file needs --line N (1-based)")
				}
				tg, err = retrieve.AtLine(repo, f.file, f.line)
			case f.tasks != "" && f.file == "":
				if f.taskID == "" {
					return errors.New("--tasks needs --task ID")
				}
				tg, err = taskTarget(repo, f.tasks, f.taskID)
			default:
				return errors.New("give either --file and --line or --tasks and --task")
			}
			if err != nil {
				return err
			}
			if f.layout != "actor" && f.layout != "repocoder" {
				return fmt.Errorf("--layout %q: want actor or repocoder", f.layout)
			}
			tok, err := pipeline.OpenTokenizer(f.model)
			if err != nil {
				return err
			}
			f.context.Format = retrieve.Format(f.format)
			if f.format == pipeline.FormatAuto {
				f.context.Format = generate.ModelFormat(tok)
			}
			var walked *generate.Corpus
			if f.context.Format != "" || f.context.InFile || f.context.Symbols || f.context.NameIndex {
				if walked, err = generate.ReadCorpus(repo, pipeline.DefaultIndexConfig().Walk); err != nil {
					return err
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			r, err := openRetriever(ctx, repo, &f.index, &f.retrieval, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer r.store.Close()
			results, err := r.Retrieve(retrieve.ACToRQuery(tg.Prompt, ""), tg.Exclusion)
			if err != nil {
				return err
			}
			budget := retrieve.Budget{MaxTokens: f.budget, MaxBlocks: f.maxBlocks}
			var p retrieve.Prompt
			fr := &retrieve.Frame{RepoCoder: f.layout == "repocoder", Path: tg.Path, Prompt: tg.Prompt}
			if walked != nil {
				if fr, err = generate.Frame(walked, tok, f.context, tg, f.layout == "repocoder"); err != nil {
					return err
				}
			}
			tc := generate.TokenCounter{Tok: tok, Special: fr.Special()}
			if f.layout == "actor" {
				p, err = fr.Ranked(results, tc, budget)
			} else {
				p, err = fr.Ascending(results, tc, budget)
			}
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if !f.asJSON {
				_, err = fmt.Fprint(w, p.Text)
				return err
			}
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{
				"target": map[string]any{"path": tg.Path, "name": tg.Function.Name, "start": tg.Function.Start,
					"end": tg.Function.End, "hidden_from_line": tg.Exclusion.StartLine},
				"prompt":  p.Text,
				"blocks":  jsonBlocks(p.Blocks),
				"context": jsonBlocks(fr.Symbols),
			})
		},
	}
	fs := cmd.Flags()
	f.index.register(fs, g)
	f.retrieval.register(fs, 10)
	fs.StringVar(&f.file, "file", "", "target file, relative to REPO")
	fs.StringVar(&f.format, "format", "", "prompt format: authors (default), plain, repo, fim or auto (see actor generate --help)")
	fs.BoolVar(&f.context.InFile, "in-file", false, "show the target file's own code")
	fs.BoolVar(&f.context.Symbols, "symbols", false, "show the definitions in scope of the target")
	fs.BoolVar(&f.context.NameIndex, "name-index", false, "show an index of the names in scope, one line each (see actor generate --help)")
	fs.IntVar(&f.context.FileTokens, "file-tokens", generate.DefaultFileTokens, "token budget of --in-file")
	fs.IntVar(&f.context.SymbolTokens, "symbol-tokens", generate.DefaultSymbolTokens, "token budget of --symbols and --name-index")
	fs.IntVar(&f.line, "line", 0, "a 1-based line inside the target function")
	fs.StringVar(&f.tasks, "tasks", "", "benchmark tasks (JSONL, RepoExec or ACToR fields)")
	fs.StringVar(&f.taskID, "task", "", "task id in --tasks")
	fs.StringVar(&f.layout, "layout", "actor", "prompt layout: actor or repocoder")
	fs.StringVar(&f.model, "model", models.DefaultModel, "generator whose tokenizer counts the budget (name or GGUF path)")
	fs.IntVar(&f.budget, "budget", retrieve.DefaultBudget.MaxTokens, "generator tokens for retrieved blocks")
	fs.IntVar(&f.maxBlocks, "max-blocks", retrieve.DefaultBudget.MaxBlocks, "most retrieved blocks in the prompt")
	fs.BoolVar(&f.asJSON, "json", false, "print the prompt, its blocks and the target as JSON")
	return cmd
}
