// Command requery replays the retrievals an ACToR run made at its
// triggers, offline (no language model), with the query cut at its end
// (the encoder's default, what the run did) and with both ends kept
// (--query-ends), and counts for each how often the retrieved blocks differ
// from the first prompt's and how many of the task's gold names (the
// repository code its gold function uses, retrieve/recall) they show.
//
//	go run ./scripts/bench/requery -traces RUN/traces.jsonl -data DATA -repos DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"actor/dataset"
	"actor/encoder"
	"actor/generate"
	"actor/index"
	"actor/pipeline"
	"actor/retrieve"
	"actor/retrieve/recall"
)

// task is one task's retrieval setting.
type task struct {
	target retrieve.Target
	gold   recall.Gold
	end    generate.Retriever // query cut at its end
	ends   generate.Retriever // query keeping both ends
}

// tally counts one cut's retrievals.
type tally struct {
	triggers, differ, goldTriggers, goldShown int
}

func (t *tally) add(first, got []retrieve.Result, g recall.Gold) {
	t.triggers++
	if !sameBlocks(first, got) {
		t.differ++
	}
	if len(g) > 0 {
		t.goldTriggers++
		t.goldShown += len(recall.Evaluate(g, got).Recalled)
	}
}

func sameBlocks(a, b []retrieve.Result) bool {
	return slices.EqualFunc(a, b, func(x, y retrieve.Result) bool {
		return x.Path == y.Path && x.Start == y.Start && x.End == y.End
	})
}

func main() {
	traces := flag.String("traces", "", "traces of an ACToR run")
	data := flag.String("data", "", "the run's RepoExec tasks")
	repos := flag.String("repos", "", "folder holding test-apps/")
	limit := flag.Int("limit", 256, "the encoder's input limit, for telling long queries")
	flag.Parse()
	if err := run(*traces, *data, *repos, *limit, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "requery:", err)
		os.Exit(1)
	}
}

func run(tracesFile, data, repos string, limit int, w io.Writer) error {
	enc, err := pipeline.OpenEncoder(pipeline.DefaultEncoder, encoder.Options{})
	if err != nil {
		return err
	}
	tok := enc.(*encoder.Encoder).Tokenizer()
	set, err := dataset.Load(dataset.RepoExec, data)
	if err != nil {
		return err
	}
	byID := map[string]*dataset.Task{}
	for i := range set.Tasks {
		byID[set.Tasks[i].ID] = &set.Tasks[i]
	}
	traces, _, err := generate.LastTraces(tracesFile, nil)
	if err != nil {
		return err
	}
	corpora := map[string]*generate.Corpus{}
	repoDefs := map[string]*recall.Repo{}
	tasks := map[string]*task{}
	setup := func(id string) (*task, error) {
		if t, ok := tasks[id]; ok {
			return t, nil
		}
		dt, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("task %s not in %s", id, data)
		}
		root, err := dt.Root(repos)
		if err != nil {
			return nil, err
		}
		c, ok := corpora[root]
		if !ok {
			if c, err = pipeline.OpenCorpus(context.Background(), root, enc, nil, io.Discard); err != nil {
				return nil, err
			}
			if repoDefs[root], err = recall.LoadRepo(root, index.WalkOptions{}); err != nil {
				return nil, err
			}
			corpora[root] = c
		}
		tg, g, err := repoDefs[root].TaskGold(dt, root)
		if err != nil {
			return nil, err
		}
		pool := retrieve.WeightedPooling(retrieve.DefaultSigma)
		t := &task{target: tg, gold: g}
		if t.end, err = c.DenseRetriever(pool, false); err != nil {
			return nil, err
		}
		if t.ends, err = c.DenseRetriever(pool, true); err != nil {
			return nil, err
		}
		tasks[id] = t
		return t, nil
	}
	var long, short [2]tally
	for _, tr := range traces {
		t, err := setup(tr.Task)
		if err != nil {
			return err
		}
		first, err := t.end.Retrieve(retrieve.ACToRQuery(t.target.Prompt, ""), t.target.Exclusion)
		if err != nil {
			return err
		}
		for _, a := range tr.Attempts {
			for _, e := range a.Events {
				if e.Query == "" {
					continue
				}
				side := &short
				if len(tok.EncodeForModel(e.Query, 0)) > limit {
					side = &long
				}
				for i, r := range []generate.Retriever{t.end, t.ends} {
					got, err := r.Retrieve(e.Query, t.target.Exclusion)
					if err != nil {
						return err
					}
					side[i].add(first, got, t.gold)
				}
			}
		}
	}
	fmt.Fprintf(w, "%d samples; triggers whose query is over %d tokens and the rest, top-10 blocks:\n", len(traces), limit)
	fmt.Fprintln(w, "| queries | cut | triggers | blocks differ from the first prompt's | gold names shown per trigger (tasks with gold) |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|")
	for _, s := range []struct {
		name string
		t    *[2]tally
	}{{"long", &long}, {"short", &short}} {
		for i, name := range []string{"end (default)", "both ends (--query-ends)"} {
			t := s.t[i]
			fmt.Fprintf(w, "| %s | %s | %d | %.1f %% | %.2f (%d) |\n", s.name, name, t.triggers,
				100*float64(t.differ)/float64(max(1, t.triggers)), float64(t.goldShown)/float64(max(1, t.goldTriggers)), t.goldTriggers)
		}
	}
	return nil
}
