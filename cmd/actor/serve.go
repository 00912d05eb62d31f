package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"actor/generate"
	"actor/infill"
	"actor/pipeline"
	"actor/serve"
)

// serveFlags are the options of actor serve.
type serveFlags struct {
	methodFlags
	modelFlags
	repos        []string
	runs         string
	addr         string
	token        string
	queue, reuse int
	lineLast     bool
	always       bool
	// cursor bounds the repository's context of a completion at the
	// cursor.
	cursor         infill.ContextBudget
	timeout, grace time.Duration
	watch          time.Duration
}

// newServeCmd builds actor serve: ACToR over HTTP.
func newServeCmd(g *globalFlags) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve --repo DIR... [--addr 127.0.0.1:8080]",
		Short: "Serve completions and repository-aware generation over HTTP, with a web page",
		Long: `Load the model, the probe and the encoder once, index the repositories
(incrementally; re-read when their source files change, see --watch) and
answer on --addr:

  GET  /                               the web page
  GET  /v1/models                      OpenAI-compatible model list
  POST /v1/completions                 OpenAI-compatible completions (stream: server-sent events;
                                       suffix: fill-in-the-middle with the model's FIM tokens)
  POST /v1/actor/generate              a repository's function written by --method or the request's
                                       method; with stream, every token, critical token, p(critical)
                                       per probe member, retrieved blocks and context change
  GET  /v1/actor/info                  model, methods, repositories
  GET  /v1/repos, /v1/repos/NAME/functions
  POST /v1/repos/NAME/reindex          re-read a repository after its files changed
  POST /infill                         llama.cpp's code completion at an editor's cursor (llama.vim,
                                       llama.vscode): the repository's context and the editor's chunks
                                       in the model's repository and fill-in-the-middle layout; the
                                       common prefix with a kept request's prompt not computed again
  GET  /health, /props                 llama.cpp's status and settings
  GET  /v1/runs[?run=NAME[&task=ID&sample=N]]  with --runs: run folders, a run's samples
                                       with pass/fail and the failure reason, a sample's trace

The model decodes one request at a time; at most --queue requests wait or
run (more are answered 429), each within --timeout. A client that
disconnects cancels its generation. Off loopback --token is required (or
$ACTOR_TOKEN): clients send Authorization: Bearer TOKEN. SIGINT or SIGTERM
stop the server: waiting requests get 503, running ones --grace to finish.
See docs/openapi.yaml.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.run(cmd, cmd.ErrOrStderr())
		},
	}
	fs := cmd.Flags()
	f.methodFlags.register(fs)
	f.modelFlags.register(fs, g, modelFlagSet{verbose: true})
	fs.StringArrayVar(&f.repos, "repo", nil, "repository folder to serve (repeat for several; named by its base name)")
	fs.StringVar(&f.runs, "runs", "", "folder of benchmark run folders (actor run's --out) the page may browse")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on (off loopback --token is required)")
	fs.StringVar(&f.token, "token", "", "bearer token required of clients (default $ACTOR_TOKEN)")
	fs.IntVar(&f.queue, "queue", serve.DefaultQueue, "requests admitted at once, the running one included (more get 429)")
	fs.DurationVar(&f.timeout, "timeout", serve.DefaultTimeout, "time limit of a request, its wait in the queue included")
	fs.DurationVar(&f.watch, "watch", 5*time.Second, "how often the repositories' source files are checked for changes, a changed one re-read (0: only on POST /v1/repos/NAME/reindex)")
	fs.DurationVar(&f.grace, "grace", 30*time.Second, "on SIGINT/SIGTERM, time running requests get to finish before they are cancelled")
	fs.IntVar(&f.cursor.Symbols, "cursor-symbols", infill.DefaultContextBudget.Symbols, "POST /infill: tokens of the repository's context for the definitions in scope at the cursor or named above it")
	fs.IntVar(&f.cursor.Blocks, "cursor-blocks", infill.DefaultContextBudget.Blocks, "POST /infill: tokens of the repository's context for the blocks retrieved with the lines above the cursor")
	fs.IntVar(&f.reuse, "cache-reuse", 256, "completions at the cursor: reuse runs of at least this many cached tokens that moved toward the start (text before them removed: a new line deep in a long file), as llama.cpp's --cache-reuse (256 as llama.vim starts it), and chunks moved by chunks added before them (the editor's, ACToR's); faster but approximate: their keys and values saw the old text; 0: only the common prefix, exact")
	fs.BoolVar(&f.always, "cursor-always", false, "completions at the cursor (POST /infill, /v1/completions with a suffix): answer every one whose prompt shows the repository's context with it (by default each is written with and without it and the one the model is surer of answered, at twice the work)")
	fs.BoolVar(&f.lineLast, "cursor-line-last", false, "POST /infill: lay the cursor line's typed text out after <|fim_middle|> (not at the end of the prefix, as llama.cpp): typing on a line computes only the new tokens, at some cost in accuracy")
	return cmd
}

// run loads the pipeline and serves until SIGINT or SIGTERM.
func (f *serveFlags) run(cmd *cobra.Command, stderr io.Writer) error {
	if len(f.repos) == 0 {
		return errors.New("serve: give at least one --repo DIR")
	}
	if f.cursor.Symbols < 0 || f.cursor.Blocks < 0 || f.cursor == (infill.ContextBudget{}) {
		return fmt.Errorf("serve: --cursor-symbols %d, --cursor-blocks %d: give tokens >= 0, not both 0 (a request asks without the repository's context with \"context\": false)",
			f.cursor.Symbols, f.cursor.Blocks)
	}
	if f.token == "" {
		f.token = os.Getenv("ACTOR_TOKEN")
	}
	if err := serve.CheckAddr(f.addr, f.token); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	f.startLogs(stderr)
	opts := f.pipelineOptions(f.Method, generate.DefaultConfig, stderr)
	opts.AllMethods = true // a request may ask for any method
	pl, err := pipeline.Open(opts)
	if err != nil {
		return err
	}
	defer pl.Close()
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := serve.New(ctx, pl, serve.Config{Repos: f.repos, Runs: f.runs, Token: f.token, Queue: f.queue, Timeout: f.timeout, Watch: f.watch,
		CacheReuse: f.reuse, CursorLineLast: f.lineLast, CursorAlways: f.always, Context: f.cursor, Log: stderr})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer srv.Close()
	l, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintf(stderr, "actor: serving %s (method %s) on http://%s/\n", f.model, f.Method.Method, l.Addr())
	if err := srv.ListenAndServe(ctx, l, f.grace); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintln(stderr, "actor: server stopped")
	return nil
}
