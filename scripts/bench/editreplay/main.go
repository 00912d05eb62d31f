// Command editreplay replays an editing session against a server's POST
// /infill: the lines of a file's short function bodies are typed again,
// one after another, each in its place with the rest of the file as it
// is, a request at every word as llama.vim sends it while a person types
// (its fields and defaults: the 256 lines above the cursor and 64 below,
// 128 tokens at most,
// 1 s after a newline, top-k 40, top-p 0.90 and the infill sampler, a
// fixed seed). It prints per request the latency at the client and the
// prompt tokens the server took from its cache, then the first (cold)
// request's latency and the others' (warm) p50 and p95, and how well the
// completions' first lines match the rest of the line typed (exact
// match, edit similarity).
//
//	go run ./scripts/bench/editreplay -file DIR/pkg/mod.py -url http://127.0.0.1:8012 [-functions 3] [-after LINE] [-out LOG.jsonl]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"actor/codesrc"
	"actor/scripts/bench/internal/infillclient"
)

// request is one keystroke's request and what came of it.
type request struct {
	N       int     `json:"n"`
	Line    int     `json:"line"`
	Typed   string  `json:"typed"`
	Seconds float64 `json:"seconds"`
	CacheN  int     `json:"cache_n"`
	PromptN int     `json:"prompt_n"`
	Content string  `json:"content"`
	// Rest is the rest of the line in the file (what the person types
	// next); Exact and EditSim score the completion's first line against
	// it (infillclient.ScoreLine).
	Rest    string  `json:"rest"`
	Exact   bool    `json:"exact"`
	EditSim float64 `json:"edit_sim"`
	// Triggers, Changes and Reprefill are ACToR's critical tokens,
	// context changes and the prompt tokens its re-prefills computed
	// (-actor).
	Triggers  int `json:"triggers,omitempty"`
	Changes   int `json:"context_changes,omitempty"`
	Reprefill int `json:"reprefill_tokens,omitempty"`
}

func main() {
	file := flag.String("file", "", "a source file of a served repository")
	url := flag.String("url", "http://127.0.0.1:8012", "the server")
	functions := flag.Int("functions", 3, "how many of the file's functions (the first ones with a body of 2 to 12 lines) to type again")
	after := flag.Int("after", 0, "only functions that start after this line (deep in a long file the 256 lines above the cursor move down at each new line)")
	out := flag.String("out", "", "also write each request as a JSON line here")
	api := flag.String("api", "infill", "infill (llama.cpp's /infill, as llama.vim) or completions (/v1/completions with a suffix)")
	maxTokens := flag.Int("max-tokens", 16, "with -api completions, max_tokens of each request")
	fimText := flag.Bool("fim-text", false, "with -api completions, send the prompt in Qwen's fill-in-the-middle tokens as text, no suffix field (for llama-cpp-python's server, whose suffix field drops a token)")
	greedy := flag.Bool("greedy", false, "with -api infill, draw greedily (temperature 0) instead of llama.vim's top-k, top-p and infill sampler: answers that depend on the prompt only, to compare prompts")
	actorOn := flag.Bool("actor", false, "with -api infill, ask for ACToR's critical-token re-retrieval (\"actor\": true; a server with a probe)")
	flag.Parse()
	ask := func(url, prefix, middle, suffix string, indent int) (request, error) {
		return askInfill(url, prefix, middle, suffix, indent, *greedy, *actorOn)
	}
	switch *api {
	case "infill":
	case "completions":
		ask = func(url, prefix, middle, suffix string, _ int) (request, error) {
			return askCompletion(url, prefix+middle, suffix, *maxTokens, *fimText)
		}
	default:
		fmt.Fprintf(os.Stderr, "editreplay: -api %q: want infill or completions\n", *api)
		os.Exit(2)
	}
	if err := replay(*file, *url, *functions, *after, *out, ask); err != nil {
		fmt.Fprintln(os.Stderr, "editreplay:", err)
		os.Exit(1)
	}
}

// asker sends one keystroke's request: the text above the cursor's line,
// the line up to the cursor, the rest of the text, the line's indentation.
type asker func(url, prefix, middle, suffix string, indent int) (request, error)

func replay(file, url string, functions, after int, out string, ask asker) error {
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	var log io.Writer = io.Discard
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		log = f
	}
	var secs []float64
	n, triggers, changes, reprefill, exact, editSim := 0, 0, 0, 0, 0, 0.0
	for _, d := range codesrc.Definitions(file, src) {
		body := d.End - d.Start
		if d.Kind != "function" && d.Kind != "method" || body < 2 || body > 12 || d.Start <= after || functions == 0 {
			continue
		}
		functions--
		for ln := d.Start + 1; ln <= min(d.End, len(lines)); ln++ {
			line := lines[ln-1]
			indent := len(line) - len(strings.TrimLeft(line, " \t"))
			above := strings.Join(lines[max(0, ln-1-256):ln-1], "\n") + "\n"
			below := strings.Join(lines[ln:min(len(lines), ln+64)], "\n") + "\n"
			for _, cut := range wordEnds(line, indent) {
				r, err := ask(url, above, line[:cut], "\n"+below, indent)
				if err != nil {
					return fmt.Errorf("line %d: %w", ln, err)
				}
				n++
				r.N, r.Line, r.Typed, r.Rest = n, ln, line[:cut], line[cut:]
				r.Exact, r.EditSim = infillclient.ScoreLine(r.Rest, r.Content)
				if r.Exact {
					exact++
				}
				editSim += r.EditSim
				secs = append(secs, r.Seconds)
				triggers, changes, reprefill = triggers+r.Triggers, changes+r.Changes, reprefill+r.Reprefill
				b, _ := json.Marshal(r)
				fmt.Fprintf(log, "%s\n", b)
				fmt.Printf("%3d  line %3d  %6.2f s  cached %4d  computed %4d  %q\n", n, ln, r.Seconds, r.CacheN, r.PromptN, r.Typed)
			}
		}
	}
	if len(secs) < 2 {
		return errors.New("no function to type")
	}
	warm := slices.Clone(secs[1:])
	slices.Sort(warm)
	fmt.Printf("requests %d; cold %.2f s; warm p50 %.2f s, p95 %.2f s; first line against the rest of the line: exact %.1f %%, edit similarity %.1f %%; ACToR triggers %d, context changes %d, re-prefilled tokens %d\n",
		len(secs), secs[0], quantile(warm, 0.5), quantile(warm, 0.95), 100*float64(exact)/float64(n), 100*editSim/float64(n), triggers, changes, reprefill)
	return nil
}

// wordEnds are the cursor's places while a line is typed: after its
// indentation, then after each word (where a person pauses long enough
// for the plugin's request).
func wordEnds(line string, indent int) []int {
	out := []int{indent}
	for i := indent + 1; i <= len(line); i++ {
		if i == len(line) || line[i] == ' ' || line[i] == '(' || line[i] == '.' {
			out = append(out, i)
		}
	}
	return slices.Compact(out)
}

// quantile is the inclusive quantile of sorted values.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// askInfill sends one request as llama.vim does (greedy when greedy is
// set, with ACToR when actor is).
func askInfill(url, prefix, middle, suffix string, indent int, greedy, actor bool) (request, error) {
	if strings.TrimSpace(middle) == "" {
		middle, indent = "", 0 // llama.vim: a line of whitespace starts over
	}
	req := map[string]any{"id_slot": 0, "input_prefix": prefix, "input_suffix": suffix, "input_extra": []any{},
		"prompt": middle, "n_predict": 128, "stop": []string{}, "n_indent": indent, "top_k": 40, "top_p": 0.90,
		"samplers": []string{"top_k", "top_p", "infill"}, "stream": false, "cache_prompt": true, "t_max_prompt_ms": 500,
		"t_max_predict_ms": 1000, "seed": 1, "actor": actor}
	if greedy {
		req["temperature"], req["samplers"] = 0, []string{"temperature"}
	}
	ans, err := infillclient.Post(url, req)
	if err != nil {
		return request{}, err
	}
	return request{Seconds: ans.Seconds, CacheN: ans.Timings.CacheN, PromptN: ans.Timings.PromptN, Content: ans.Content,
		Triggers: ans.Actor.Triggers, Changes: ans.Actor.Changes, Reprefill: ans.Actor.Reprefill}, nil
}

// askCompletion sends one fill-in-the-middle request to /v1/completions
// (infillclient.FIM: greedy, no repository context, no repeat penalty).
func askCompletion(url, prompt, suffix string, maxTokens int, asText bool) (request, error) {
	ans, err := infillclient.PostFIM(url, infillclient.FIM{Prefix: prompt, Suffix: suffix, MaxTokens: maxTokens, AsText: asText})
	if err != nil {
		return request{}, err
	}
	return request{Seconds: ans.Seconds, PromptN: ans.PromptTokens, Content: ans.Text}, nil
}
