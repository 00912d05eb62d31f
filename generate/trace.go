package generate

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"actor/jsonl"
	"actor/retrieve"
)

// Trace is the record of one sample, written as one JSON line: every
// attempt (regenerations, RepoCoder's rounds) token by token, with the
// probe's verdicts, the retrieval queries and the blocks before and after
// each critical token, and timings.
type Trace struct {
	Task   string `json:"task"`
	Sample int    `json:"sample"`
	Method string `json:"method"`
	Model  string `json:"model,omitempty"`
	// Notes say what differs from the paper's method (missing weights,
	// a retriever fallback).
	Notes    []string  `json:"notes,omitempty"`
	Attempts []Attempt `json:"attempts"`
	// Summary over all attempts.
	Tokens         int     `json:"tokens"`
	Generated      int     `json:"generated"`
	Triggers       int     `json:"triggers"`
	ContextChanges int     `json:"context_changes"`
	Judged         int     `json:"judged"`
	Seconds        float64 `json:"seconds"`
	MsPerToken     float64 `json:"ms_per_token"`
	// ACToR's overhead within the decoding time, summed over attempts:
	// probe evaluations, retrievals after critical tokens, and prefills
	// after context changes (with the replacement's step).
	ProbeMs     float64 `json:"probe_ms"`
	RetrieveMs  float64 `json:"retrieve_ms"`
	ReprefillMs float64 `json:"reprefill_ms"`
	// ReprefillTokens counts the tokens those prefills ran through the
	// model (what the cache did not already hold).
	ReprefillTokens int `json:"reprefill_tokens"`
}

// Attempt is one decoding run of a sample.
type Attempt struct {
	// Stage is "generate", or RepoCoder's "round1" and "round2".
	Stage   string `json:"stage"`
	Attempt int    `json:"attempt"`
	Seed    uint64 `json:"seed"`
	// Query is the initial retrieval query, Blocks the blocks of the
	// initial prompt (empty without retrieval).
	Query  string  `json:"query,omitempty"`
	Blocks []Block `json:"blocks"`
	// Context is what the prompt shows besides the blocks (context
	// options): the target file's lines and the definitions in scope.
	Context      []Block `json:"context,omitempty"`
	RetrieveMs   float64 `json:"retrieve_ms,omitempty"`
	PromptTokens int     `json:"prompt_tokens"`
	// Events has one entry per generated token.
	Events []TokenEvent `json:"tokens"`
	Body   string       `json:"body"`
	Tokens int          `json:"n_tokens"`
	// Stop says why decoding ended: "rule" (a line back at column 0),
	// "eog" (end-of-generation token), "max" (token limit) or "context"
	// (the model's context is full).
	Stop string `json:"stop"`
	// Retry is "empty" or "pass" when this attempt's body was generated
	// again.
	Retry          string  `json:"retry,omitempty"`
	Triggers       int     `json:"triggers"`
	ContextChanges int     `json:"context_changes"`
	Judged         int     `json:"judged"`
	PrefillMs      float64 `json:"prefill_ms"`
	DecodeMs       float64 `json:"decode_ms"`
	// Work is the engine work of the attempt.
	Work Stats `json:"work"`
}

// TokenEvent is one generated position.
type TokenEvent struct {
	ID   int32  `json:"id"`
	Text string `json:"text"`
	// Skip says why the token was not judged: "first" (the first token),
	// "space" (whitespace or newline), "replacement" (re-decoded after a
	// context change) or "eog"; empty when judged or when no probe runs.
	Skip string `json:"skip,omitempty"`
	// P holds each member's p(critical), in member order (members after
	// the first one at or below the threshold are not evaluated unless
	// the full trace was asked for).
	P []float32 `json:"p,omitempty"`
	// Entropy is the next-token entropy (nats) of the distribution a
	// judged token was sampled from (what an entropy trigger compares
	// with its threshold).
	Entropy float64 `json:"entropy,omitempty"`
	// Critical says the trigger fired: the probe called the token
	// critical, or its entropy reached the entropy trigger's threshold.
	Critical bool `json:"critical,omitempty"`
	// Query, Before and After describe a triggered retrieval: the query
	// (target prompt + body + the token) and the prompt's blocks before
	// and after it; Changed when they differ.
	Query string `json:"query,omitempty"`
	// Lookup is the name a name lookup read at the token
	// ("receiver.partial"), when ACToR looked one up.
	Lookup  string  `json:"lookup,omitempty"`
	Before  []Block `json:"before,omitempty"`
	After   []Block `json:"after,omitempty"`
	Changed bool    `json:"changed,omitempty"`
	// Dropped is the critical token discarded after a context change;
	// ID and Text are then the replacement.
	Dropped *TokenRef `json:"dropped,omitempty"`
	// Timings in ms (probe in µs) and the tokens the engine evaluated for
	// this position (1 for a plain step).
	Ms         float64 `json:"ms"`
	ProbeUs    float64 `json:"probe_us,omitempty"`
	RetrieveMs float64 `json:"retrieve_ms,omitempty"`
	PrefillMs  float64 `json:"prefill_ms,omitempty"`
	Evaluated  int     `json:"evaluated"`
	// Reprefilled is the part of Evaluated the prefill after a context
	// change ran (the rebuilt prompt after the prefix the cache held).
	Reprefilled int `json:"reprefilled,omitempty"`
	// Placed counts the block tokens that prefill placed from the block
	// store instead of computing them (block KV reuse).
	Placed int `json:"placed,omitempty"`
	// Alone counts the tokens of Reprefilled computed for blocks the block
	// store did not hold, each alone (block KV reuse).
	Alone int `json:"alone,omitempty"`
	// Reuse compares the prediction after placed blocks with an exact
	// prefill (DecoderOptions.CheckReuse).
	Reuse *ReuseCheck `json:"reuse,omitempty"`
}

// ReuseCheck is how far block KV reuse moved one prediction.
type ReuseCheck struct {
	// KL is KL(exact ‖ reused) of the next-token distributions, in nats.
	KL float64 `json:"kl"`
	// SameTop1 says whether both predict the same most likely token.
	SameTop1 bool `json:"same_top1"`
	// ExactEvaluated is the tokens the exact prefill ran.
	ExactEvaluated int `json:"exact_evaluated"`
}

// TokenRef is a token and its text.
type TokenRef struct {
	ID   int32  `json:"id"`
	Text string `json:"text"`
}

// Block is a retrieved block as traced.
type Block struct {
	Path  string  `json:"path"`
	Start int     `json:"start"`
	End   int     `json:"end"`
	Score float64 `json:"score"`
	// Source and Why: where a snippet that is not a retrieved block came
	// from (retrieve.SourceSymbol, retrieve.SourceLookup) and why.
	Source string `json:"source,omitempty"`
	Why    string `json:"why,omitempty"`
}

func traceBlocks(rs []retrieve.Result) []Block {
	out := make([]Block, len(rs))
	for i, r := range rs {
		out[i] = Block{r.Path, r.Start, r.End, r.Score, r.Source, r.Why}
	}
	return out
}

// TraceWriter appends traces to a JSONL stream.
type TraceWriter struct {
	enc *json.Encoder
}

// NewTraceWriter writes traces to w, one JSON object a line.
func NewTraceWriter(w io.Writer) *TraceWriter { return &TraceWriter{json.NewEncoder(w)} }

// Write appends one sample's trace.
func (w *TraceWriter) Write(t *Trace) error {
	if err := w.enc.Encode(t); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return nil
}

// TracesName is the file in a run folder that actor run --trace appends
// each sample's trace to.
const TracesName = "traces.jsonl"

// TracesFile is run folder dir's traces file: TracesName, or its gzipped
// copy when only that is there (committed results keep traces compressed).
func TracesFile(dir string) string {
	path := filepath.Join(dir, TracesName)
	if _, err := os.Stat(path); err != nil {
		if _, gzErr := os.Stat(path + ".gz"); gzErr == nil {
			return path + ".gz"
		}
	}
	return path
}

// LastTraces reads a run's traces file (gzipped when its name ends in
// .gz; a missing file has none) and returns each sample's last trace, as
// a resumed run appends, in the order the samples first appear; keep,
// when not nil, chooses the samples.
// unreadable counts the lines that are not a trace.
func LastTraces(path string, keep func(task string, sample int) bool) (traces []Trace, unreadable int, err error) {
	type key struct {
		task   string
		sample int
	}
	at := map[key]int{}
	err = jsonl.Scan(path, func(_ int, raw []byte) error {
		var t Trace
		if json.Unmarshal(raw, &t) != nil {
			unreadable++
			return nil
		}
		if keep != nil && !keep(t.Task, t.Sample) {
			return nil
		}
		k := key{t.Task, t.Sample}
		if i, seen := at[k]; seen {
			traces[i] = t
			return nil
		}
		at[k] = len(traces)
		traces = append(traces, t)
		return nil
	})
	return traces, unreadable, err
}
