// Package infillclient sends one completion request at an editor's cursor,
// as the editor benchmarks (linecomplete, editreplay) do: llama.cpp's POST
// /infill, or POST /v1/completions with a suffix; reads what they
// measure; and scores an answer's line.
package infillclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Answer is what the benchmarks read of an /infill answer, and the
// request's wall time.
type Answer struct {
	Content string `json:"content"`
	Timings struct {
		CacheN  int `json:"cache_n"`
		PromptN int `json:"prompt_n"`
	} `json:"timings"`
	// Actor is this server's account of ACToR at the cursor ("actor").
	Actor struct {
		Triggers  int `json:"triggers"`
		Changes   int `json:"context_changes"`
		Reprefill int `json:"reprefill_tokens"`
	} `json:"actor"`
	// Probs are the written tokens' log-probabilities (a request with
	// n_probs).
	Probs []struct {
		LogProb float64 `json:"logprob"`
	} `json:"completion_probabilities"`
	// Choice is this server's account of a completion written with and
	// without the repository's context (context_choice), nil when it
	// wrote one.
	Choice *struct {
		Context bool      `json:"context"`
		Without Candidate `json:"without"`
		With    Candidate `json:"with"`
	} `json:"context_choice"`
	Seconds float64 `json:"-"`
}

// Candidate is one of the completions a server chose between: its text
// and the mean log-probability of its tokens (nil for none).
type Candidate struct {
	Content     string   `json:"content"`
	MeanLogProb *float64 `json:"mean_logprob"`
}

// Post sends req (the request's JSON fields) to url's /infill; a status
// other than 200 is an error carrying the body.
func Post(url string, req map[string]any) (Answer, error) {
	var ans Answer
	secs, err := post(url+"/infill", req, &ans)
	ans.Seconds = secs
	return ans, err
}

// Completion is what the benchmarks read of a /v1/completions answer
// (the first choice's text, the prompt's tokens), and the request's wall
// time.
type Completion struct {
	Text         string
	PromptTokens int
	Seconds      float64
}

// FIM is a greedy fill-in-the-middle request to /v1/completions, the
// same for every server: without the repository's context ("context":
// false, a field other servers ignore) and without a repeat penalty
// ("repeat_penalty": 1: llama-cpp-python's server penalises repeats by
// default, 1.1 over the last 64 tokens, greedy decoding included; actor
// and llama.cpp's server do not).
type FIM struct {
	Prefix, Suffix string
	MaxTokens      int
	Stop           []string
	// AsText sends the prompt laid out in Qwen's fill-in-the-middle
	// tokens as text, <|fim_prefix|>P<|fim_suffix|>S<|fim_middle|>, with
	// no suffix field: llama-cpp-python's server parses the special
	// tokens of such a prompt and so reads the tokens actor lays out for
	// a suffix, while for a suffix field it drops the suffix's first
	// token (it assumes a space prefix when the GGUF does not say).
	AsText bool
}

// PostFIM sends r to url's /v1/completions.
func PostFIM(url string, r FIM) (Completion, error) {
	req := map[string]any{"prompt": r.Prefix, "suffix": r.Suffix, "max_tokens": r.MaxTokens, "temperature": 0, "seed": 1,
		"context": false, "repeat_penalty": 1.0}
	if r.AsText {
		req["prompt"] = "<|fim_prefix|>" + r.Prefix + "<|fim_suffix|>" + r.Suffix + "<|fim_middle|>"
		delete(req, "suffix")
	}
	if len(r.Stop) > 0 {
		req["stop"] = r.Stop
	}
	var ans struct {
		Choices []struct {
			Text string `json:"text"`
		} `json:"choices"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	secs, err := post(url+"/v1/completions", req, &ans)
	if err != nil {
		return Completion{}, err
	}
	if len(ans.Choices) == 0 {
		return Completion{}, fmt.Errorf("%s/v1/completions: no choice in the answer", url)
	}
	return Completion{Text: ans.Choices[0].Text, PromptTokens: ans.Usage.PromptTokens, Seconds: secs}, nil
}

// post sends req as JSON to endpoint, decodes the answer into ans and
// returns the wall time; a status other than 200 is an error carrying the
// body.
func post(endpoint string, req map[string]any, ans any) (float64, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	resp, err := http.Post(endpoint, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: %s", resp.Status, b)
	}
	secs := time.Since(start).Seconds()
	return secs, json.Unmarshal(b, ans)
}

// ScoreLine scores a completion's first line against the line written in
// the file (want), both without outer white space: exact match and
// EditSimilarity.
func ScoreLine(want, text string) (exact bool, sim float64) {
	got := strings.TrimSpace(strings.SplitN(text, "\n", 2)[0])
	want = strings.TrimSpace(want)
	return want == got, EditSimilarity(want, got)
}

// EditSimilarity is 1 - Levenshtein distance / the longer length, over
// runes: the benchmarks' score of a completion's line against the line
// written in the file.
func EditSimilarity(a, b string) float64 {
	x, y := []rune(a), []rune(b)
	if len(x) == 0 && len(y) == 0 {
		return 1
	}
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			sub := prev[j-1]
			if x[i-1] != y[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return 1 - float64(prev[len(y)])/float64(max(len(x), len(y)))
}
