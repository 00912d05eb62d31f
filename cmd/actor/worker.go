package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"actor/queue"
)

// workerFlags are the options of actor worker.
type workerFlags struct {
	modelFlags
	queue, probe, data, repos string
	ackWait                   time.Duration
}

// newWorkerCmd builds actor worker: it serves the items of runs started
// with actor run --queue.
func newWorkerCmd(g *globalFlags) *cobra.Command {
	f := &workerFlags{}
	cmd := &cobra.Command{
		Use:   "worker --queue nats://HOST:4222 --data DIR --repos DIR [--model M] [--threads N]",
		Short: "Generate the samples of runs started with 'actor run --queue' (any number, on any machines)",
		Long: `Take work items (a task's samples) from the NATS JetStream server's work
queue, generate them with this machine's copies of the model, probe, task
files (--data) and projects (--repos), through the code a local actor run
uses, and publish the samples; an item is acknowledged only after the
server has stored its result. A worker killed mid-item loses nothing: the
item goes to another worker once its ack deadline (--ack-wait) passes;
while an item runs, the deadline is pushed back.

An item whose run's model, probe or task files, or the sources of its
task's project, hash (SHA-256) otherwise than this worker's is refused: the coordinator is told why and gives the item to
another worker, and this worker stops with the reason. SIGINT or SIGTERM
stops the worker after handing its current item back.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd) },
	}
	fs := cmd.Flags()
	f.modelFlags.register(fs, g, modelFlagSet{noCtx: true, verbose: true,
		modelHelp: "model name (see 'actor models list') or GGUF file path; must be the run's file"})
	fs.StringVar(&f.queue, "queue", "", "NATS JetStream server, nats://HOST:4222")
	fs.StringVar(&f.probe, "probe", "", "ACToR probe file (default: the model's shipped probe); must be the run's file")
	fs.StringVar(&f.data, "data", "", "the benchmark's task file or folder (as for actor run); must be the run's files")
	fs.StringVar(&f.repos, "repos", "", "folder holding the benchmark's projects")
	fs.DurationVar(&f.ackWait, "ack-wait", 30*time.Second, "how long the server waits for a silent worker before giving its item to another")
	return cmd
}

// run takes items from the queue until SIGINT or SIGTERM.
func (f *workerFlags) run(cmd *cobra.Command) error {
	if f.queue == "" || f.data == "" || f.repos == "" {
		return errors.New("worker: --queue, --data and --repos are required")
	}
	if f.ackWait < 3*time.Second {
		return fmt.Errorf("worker: --ack-wait %s: want at least 3s", f.ackWait)
	}
	stderr := cmd.ErrOrStderr()
	f.quietLogs(stderr)
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	q, err := queue.Connect(ctx, f.queue, "actor worker")
	if err != nil {
		return err
	}
	defer q.Close()
	w := &queue.Worker{Model: f.model, Probe: f.probe, Data: f.data, Repos: f.repos,
		Engine: f.engineOptions(), OpenEncoder: f.encoders(), Log: stderr, Progress: progressOn(stderr)}
	defer w.Close()
	host, _ := os.Hostname()
	name := fmt.Sprintf("%s-%d", host, os.Getpid())
	fmt.Fprintf(stderr, "worker %s: waiting for items on %s\n", name, f.queue)
	return q.Work(ctx, name, f.ackWait, w.Handle, stderr)
}
