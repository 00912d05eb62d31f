package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"actor/dataset"
	"actor/retrieve/recall"

	"github.com/spf13/cobra"
)

// recallFlags are the options of actor recall.
type recallFlags struct {
	index     repoIndexFlags
	retrieval retrievalFlags
	tasks     string
	repos     string
	asJSON    bool
}

// newRecallCmd builds actor recall: retrieval quality measured on
// benchmark tasks.
func newRecallCmd(g *globalFlags) *cobra.Command {
	f := &recallFlags{}
	cmd := &cobra.Command{
		Use:   "recall --tasks FILE.jsonl --repos DIR",
		Short: "Measure how often retrieval shows the code a task's gold function uses",
		Long: `For every task: locate its function in DIR/<project>, find the repository
definitions its gold body uses (free names and attributes resolved by name in
non-test files, those hidden by the exclusion rule left out), retrieve the top
-k blocks for its signature and docstring, and count a gold name recalled when
a block overlaps one of its definitions. Prints hit@k (tasks with a gold name
recalled) and recall@k (mean fraction of gold names recalled) over tasks with
gold names. The definition is spelled out in retrieve/recall.

Each project is indexed as actor index does (--db is ignored: one index per
project in its default place).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.tasks == "" || f.repos == "" {
				return fmt.Errorf("--tasks and --repos are required")
			}
			set, err := dataset.Load(dataset.RepoExec, f.tasks)
			if err != nil {
				return err
			}
			for _, e := range set.Errors {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %v\n", e)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			f.index.db = ""
			walk := f.index.config().Walk
			projects := map[string]recall.Project{}
			var scores []recall.Score
			var rows []map[string]any
			w := cmd.OutOrStdout()
			for i := range set.Tasks {
				t := &set.Tasks[i]
				p, ok := projects[t.Project]
				if !ok {
					root, err := t.Root(f.repos)
					if err != nil {
						return err
					}
					r, err := openRetriever(ctx, root, &f.index, &f.retrieval, cmd.ErrOrStderr())
					if err != nil {
						return err
					}
					defer r.store.Close()
					repo, err := recall.LoadRepo(root, walk)
					if err != nil {
						return err
					}
					p = recall.Project{Root: root, Repo: repo, Retriever: r.Retriever}
					projects[t.Project] = p
				}
				ts, err := recall.ScoreTask(p, t, f.retrieval.keep)
				if err != nil {
					return err
				}
				scores = append(scores, ts.Score)
				var gold []string
				for n := range ts.Gold {
					gold = append(gold, n)
				}
				if f.asJSON {
					rows = append(rows, map[string]any{"task": t.ID, "function": t.EntryPoint, "gold": gold,
						"recalled": ts.Recalled, "blocks": jsonBlocks(ts.Results)})
				} else {
					fmt.Fprintf(w, "task %s %s: %d/%d gold names recalled %s\n", t.ID, t.EntryPoint, len(ts.Recalled), ts.Score.Gold, strings.Join(ts.Recalled, " "))
				}
			}
			s := recall.Summarize(scores)
			if f.asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]any{"method": f.retrieval.method, "k": f.retrieval.keep, "tasks": s.Tasks,
					"counted": s.Counted, "hit": s.Hit, "recall": s.Recall, "per_task": rows})
			}
			fmt.Fprintf(w, "%s: %d tasks, %d with gold names; hit@%d %.3f, recall@%d %.3f\n", f.retrieval.method,
				s.Tasks, s.Counted, f.retrieval.keep, s.Hit, f.retrieval.keep, s.Recall)
			return nil
		},
	}
	fs := cmd.Flags()
	f.index.register(fs, g)
	f.retrieval.register(fs, 10)
	fs.StringVar(&f.tasks, "tasks", "", "benchmark tasks (JSONL)")
	fs.StringVar(&f.repos, "repos", "", "folder holding the projects (RepoExec: the folder that contains test-apps/)")
	fs.BoolVar(&f.asJSON, "json", false, "print per-task details and the summary as JSON")
	return cmd
}
