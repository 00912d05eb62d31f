// Command replaychanges replays the context changes an exact ACToR run
// recorded in its traces under issue 11's switches: the set change rule
// (a reorder of the same blocks is no change) and the stable layout (blocks
// that stay keep their place). Each change is taken alone: the blocks'
// texts are read from the repositories and counted with the model's
// tokenizer, and the tokens a re-prefill would recompute are estimated
// from the first place where the old and new prompts differ.
//
//	go run ./scripts/bench/replaychanges -traces T.jsonl.gz -tasks TASKS.jsonl -repos DIR -model smollm2-135m
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"actor/generate"
	"actor/pipeline"
	"actor/tokenizer"
)

// block is a retrieved block by place, its score left out: the same lines
// ranked anew are the same block.
type block struct {
	Path       string
	Start, End int
}

// blocks keys a trace's blocks by place.
func blocks(bs []generate.Block) []block {
	out := make([]block, len(bs))
	for i, b := range bs {
		out[i] = block{b.Path, b.Start, b.End}
	}
	return out
}

// totals sums the replay.
type totals struct {
	changes, reorders       int
	measured, measuredSet   int     // tokens the recorded re-prefills evaluated (all, set changes)
	reorderMs, allMs, setMs float64 // their time
	rankedEst, stableEst    int     // replayed estimates on the set changes
}

func main() {
	traces := flag.String("traces", "", "traces of an exact ACToR run (JSONL, gzipped when it ends in .gz)")
	tasks := flag.String("tasks", "", "the run's task file (task_id and project of each task)")
	repos := flag.String("repos", "", "folder holding the projects")
	model := flag.String("model", "smollm2-135m", "the run's model (name or GGUF file), for its tokenizer")
	flag.Parse()
	if err := run(*traces, *tasks, *repos, *model); err != nil {
		fmt.Fprintln(os.Stderr, "replaychanges:", err)
		os.Exit(1)
	}
}

func run(traces, tasks, repos, model string) error {
	if traces == "" || tasks == "" || repos == "" {
		return errors.New("-traces, -tasks and -repos are required")
	}
	projects, err := readProjects(tasks)
	if err != nil {
		return err
	}
	tok, err := pipeline.OpenTokenizer(model)
	if err != nil {
		return err
	}
	if _, err := os.Stat(traces); err != nil {
		return err
	}
	trs, unreadable, err := generate.LastTraces(traces, nil)
	if err != nil {
		return err
	}
	if unreadable > 0 {
		return fmt.Errorf("%s: %d lines are not traces", traces, unreadable)
	}
	rp := &replay{tok: tok, lines: map[string][]string{}}
	var t totals
	for _, tr := range trs {
		root := filepath.Join(repos, projects[tr.Task])
		for _, a := range tr.Attempts {
			for i, e := range a.Events {
				if e.Changed {
					if err := rp.change(&t, root, a.Query, i, e); err != nil {
						return fmt.Errorf("task %s: %w", tr.Task, err)
					}
				}
			}
		}
	}
	set := t.changes - t.reorders
	fmt.Printf("recorded: %d changes, %d tokens re-prefilled (%.0f per change), %.0f ms\n", t.changes, t.measured, per(t.measured, t.changes), t.allMs)
	fmt.Printf("same-set reorders: %d (%.0f ms of re-prefill)\n", t.reorders, t.reorderMs)
	fmt.Printf("set changes: %d, recorded %d tokens (%.0f per change), %.0f ms\n", set, t.measuredSet, per(t.measuredSet, set), t.setMs)
	fmt.Printf("replayed on the set changes: ranked %d tokens, stable %d tokens (ratio %.2f)\n", t.rankedEst, t.stableEst, float64(t.stableEst)/float64(max(t.rankedEst, 1)))
	return nil
}

func per(n, d int) float64 { return float64(n) / float64(max(d, 1)) }

// replay counts prompt tokens of recorded blocks.
type replay struct {
	tok   *tokenizer.Tokenizer
	lines map[string][]string
}

// change replays one recorded change: gen tokens were generated before it.
func (rp *replay) change(t *totals, root, targetPrompt string, gen int, e generate.TokenEvent) error {
	before, after := blocks(e.Before), blocks(e.After)
	t.changes++
	t.allMs += e.PrefillMs
	t.measured += e.Evaluated - 1 // the replacement's step is not re-prefill
	stays := map[block]bool{}
	for _, b := range after {
		stays[b] = true
	}
	same := len(before) == len(after)
	for _, b := range before {
		same = same && stays[b]
	}
	if same {
		t.reorders++
		t.reorderMs += e.PrefillMs
		return nil
	}
	t.measuredSet += e.Evaluated - 1
	t.setMs += e.PrefillMs
	texts, err := rp.render(root, after)
	if err != nil {
		return err
	}
	// The target's path line is a few tokens; "x.py" stands for it.
	full := len(rp.tok.Encode(strings.Join(texts, "\n\n")+"\n\n# file path: x.py\n\n"+targetPrompt, true)) + gen
	k := 0 // the stable layout keeps the leading blocks that stay
	for k < len(before) && stays[before[k]] {
		k++
	}
	j := 0 // the ranked layout keeps the leading blocks that did not move
	for j < len(before) && j < len(after) && before[j] == after[j] {
		j++
	}
	kept, err := rp.prefix(root, before[:k])
	if err != nil {
		return err
	}
	t.stableEst += max(1, full-kept)
	same0, err := rp.prefix(root, before[:j])
	if err != nil {
		return err
	}
	if 4*same0 < full {
		same0 = 0 // generate.Decoder moves such a prompt to another cache
	}
	t.rankedEst += max(1, full-same0)
	return nil
}

// prefix counts the tokens of a prompt's leading blocks with their
// separators (the BOS token included, the last, merge-prone token not).
func (rp *replay) prefix(root string, bs []block) (int, error) {
	if len(bs) == 0 {
		return 1, nil
	}
	texts, err := rp.render(root, bs)
	if err != nil {
		return 0, err
	}
	return len(rp.tok.Encode(strings.Join(texts, "\n\n")+"\n\n", true)) - 1, nil
}

// render writes blocks as ACToR's prompt shows them.
func (rp *replay) render(root string, bs []block) ([]string, error) {
	var out []string
	for _, b := range bs {
		p := filepath.Join(root, b.Path)
		ls, ok := rp.lines[p]
		if !ok {
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			ls = strings.Split(string(data), "\n")
			rp.lines[p] = ls
		}
		code := ls[max(0, b.Start-1):min(len(ls), b.End)]
		cl := make([]string, len(code))
		for i, l := range code {
			cl[i] = "# " + l
		}
		out = append(out, "# file path: "+b.Path+"\n\n"+strings.Join(cl, "\n"))
	}
	return out, nil
}

// readProjects maps task ids to their projects.
func readProjects(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var t struct {
			TaskID  any    `json:"task_id"`
			Project string `json:"project"`
		}
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out[fmt.Sprint(t.TaskID)] = t.Project
	}
	return out, sc.Err()
}
