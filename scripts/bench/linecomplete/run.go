package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"actor/scripts/bench/internal/infillclient"
)

// result is one task's answer.
type result struct {
	ID      string  `json:"id"`
	Lang    string  `json:"lang"`
	Mode    string  `json:"mode"`
	Target  string  `json:"target"`
	Got     string  `json:"got"`
	Exact   bool    `json:"exact"`
	EditSim float64 `json:"edit_sim"`
	// Seconds is the request's time at the client; CacheN and PromptN
	// the server's prompt tokens taken from its cache and computed.
	Seconds float64 `json:"seconds"`
	CacheN  int     `json:"cache_n"`
	PromptN int     `json:"prompt_n"`
	// LogProbs are the log-probabilities of the answer's tokens (run
	// -probs): how sure the model was.
	LogProbs []float64 `json:"logprobs,omitempty"`
	// Choice is, for an answer the server chose between the completions
	// written with and without the repository's context, whether it took
	// the one with it, and both scored.
	Choice *choice `json:"choice,omitempty"`
	// derived marks a record the report made of another's candidate (its
	// times are not its own).
	derived bool
}

// choice is a server's choice between two completions of a line.
type choice struct {
	Context bool      `json:"context"`
	Without candidate `json:"without"`
	With    candidate `json:"with"`
}

// candidate is one completion of a choice: its first line, scored, and
// how sure the model was of it.
type candidate struct {
	Got         string   `json:"got"`
	Exact       bool     `json:"exact"`
	EditSim     float64  `json:"edit_sim"`
	MeanLogProb *float64 `json:"mean_logprob"`
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	tasksFile := fs.String("tasks", "", "tasks file (prepare's)")
	url := fs.String("url", "http://127.0.0.1:8012", "the server")
	mode := fs.String("mode", "repo", "none, chunks, repo, both, actor (repo with ACToR's re-retrieval at critical tokens: a server with a probe), or completions (POST /v1/completions with the suffix, no context: what llama-cpp-python's server answers too)")
	out := fs.String("out", "", "results file (JSON lines; appended, done tasks skipped)")
	limit := fs.Int("limit", 0, "stop after this many new tasks (0: all)")
	label := fs.String("label", "", "the results' mode column (default: the mode), to tell servers apart in one report")
	block := fs.Int("block", 0, "ask in blocks of this many consecutive lines, the blocks in a fixed shuffled order, so that a stopped run has lines from the whole package and neighbouring lines still share the server's cache (0: the tasks' order, by file); a run continues one made with the same tasks file and -block")
	fimText := fs.Bool("fim-text", false, "with -mode completions, send the prompt in Qwen's fill-in-the-middle tokens as text, no suffix field (for llama-cpp-python's server, whose suffix field drops a token)")
	probs := fs.Bool("probs", false, "also record each written token's log-probability (n_probs; /infill modes)")
	first := fs.Int("first", 0, "ask only the first this many tasks of the order (give -block, or they are the first files' lines) and no others, however often run (0: all)")
	fs.Parse(args)
	if *tasksFile == "" || *out == "" {
		return errors.New("run: give -tasks and -out")
	}
	if !slices.Contains(append(slices.Clone(infillModes), "completions"), *mode) {
		return fmt.Errorf("run: -mode %q: want %s or completions", *mode, strings.Join(infillModes, ", "))
	}
	tasks, err := readLines[task](*tasksFile)
	if err != nil {
		return err
	}
	if *block > 0 {
		tasks = blockOrder(tasks, *block)
	}
	if *first > 0 && len(tasks) > *first {
		tasks = tasks[:*first]
	}
	done := map[string]bool{}
	if old, err := readLines[result](*out); err == nil {
		for _, r := range old {
			done[r.ID] = true
		}
	}
	f, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	n := 0
	for _, t := range tasks {
		if done[t.ID] {
			continue
		}
		if *limit > 0 && n == *limit {
			break
		}
		r, err := ask(*url, *mode, *fimText, *probs, t)
		if err != nil {
			return fmt.Errorf("%s: %w", t.ID, err)
		}
		if *label != "" {
			r.Mode = *label
		}
		b, _ := json.Marshal(r)
		if _, err := f.Write(append(b, '\n')); err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		n++
	}
	fmt.Fprintf(os.Stderr, "%d new results, %d before\n", n, len(done))
	return nil
}

// blockOrder cuts tasks into blocks of n consecutive ones and returns
// them block by block in a shuffled order, the same on every call.
func blockOrder(tasks []task, n int) []task {
	var blocks [][]task
	for i := 0; i < len(tasks); i += n {
		blocks = append(blocks, tasks[i:min(i+n, len(tasks))])
	}
	rng := rand.New(rand.NewPCG(1, 7))
	rng.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
	return slices.Concat(blocks...)
}

// ask sends one task as llama.vscode would (or, in mode completions, as
// an OpenAI-style fill-in-the-middle request, infillclient.FIM) and scores
// the answer.
func ask(url, mode string, fimText, probs bool, t task) (result, error) {
	if mode == "completions" {
		ans, err := infillclient.PostFIM(url, infillclient.FIM{Prefix: t.Prefix, Suffix: t.Suffix, MaxTokens: 48,
			Stop: []string{"\n"}, AsText: fimText})
		if err != nil {
			return result{}, err
		}
		return score(t, mode, ans.Text, ans.Seconds, 0, ans.PromptTokens), nil
	}
	req := map[string]any{"input_prefix": t.Prefix, "input_suffix": t.Suffix, "prompt": "", "n_predict": 48,
		"n_indent": t.Indent, "temperature": 0, "samplers": []string{"temperature"}, "stop": []string{"\n"},
		"cache_prompt": true, "context": mode != "none" && mode != "chunks", "actor": mode == "actor"}
	if mode == "chunks" || mode == "both" {
		req["input_extra"] = t.Chunks
	}
	if probs {
		req["n_probs"] = 1
	}
	ans, err := infillclient.Post(url, req)
	if err != nil {
		return result{}, err
	}
	r := score(t, mode, ans.Content, ans.Seconds, ans.Timings.CacheN, ans.Timings.PromptN)
	if c := ans.Choice; c != nil {
		r.Choice = &choice{Context: c.Context, Without: scoreCandidate(t, c.Without), With: scoreCandidate(t, c.With)}
	}
	for _, p := range ans.Probs {
		r.LogProbs = append(r.LogProbs, p.LogProb)
	}
	return r, nil
}

// score compares the first line of an answer's text with the task's
// masked line, both without indentation.
func score(t task, mode, text string, secs float64, cacheN, promptN int) result {
	exact, sim := infillclient.ScoreLine(t.Target, text)
	return result{ID: t.ID, Lang: t.Lang, Mode: mode, Target: t.Target, Got: strings.SplitN(text, "\n", 2)[0], Exact: exact,
		EditSim: sim, Seconds: secs, CacheN: cacheN, PromptN: promptN}
}

// scoreCandidate scores one completion of a server's choice.
func scoreCandidate(t task, c infillclient.Candidate) candidate {
	exact, sim := infillclient.ScoreLine(t.Target, c.Content)
	return candidate{Got: strings.SplitN(c.Content, "\n", 2)[0], Exact: exact, EditSim: sim, MeanLogProb: c.MeanLogProb}
}

// readLines reads a JSON-lines file.
func readLines[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}
