// Package generate writes a repository's target function with a code model:
// ACToR's critical-token-guided decoding (the paper's Algorithm 1) and the
// four baselines it is compared with (RawPrompt, RawRAG, RepoCoder,
// RLCoder-style), behind one Generator interface. It is where the engine,
// the retriever and the probe meet: the engine decodes, the retriever
// supplies repository blocks, the probe decides when to retrieve again.
//
// Every method shares the decoding rules of METHOD.md §4: seeded
// sampling (temperature 0.6 by default), at most 512 new tokens, the stop
// rule "\n[^\s]" (the text is cut before the line that returns to column
// 0), and regeneration of an empty or bare "pass" result a bounded number of
// times.
//
// ACToR's cost levers are switches beside the paper's behaviour (the
// default): ACToROptions.Layout (a prompt layout that keeps the cached
// prefix across a context change), ACToROptions.Change (a reorder of the
// same blocks is no change), and GenerateSamples with batch set (a task's
// samples decode as one batch, every method).
package generate

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	"actor/engine"
	"actor/retrieve"
)

// The built-in methods' names, as written in predictions files and
// accepted by New (see methods for their descriptions).
const (
	MethodACToR     = "actor"
	MethodRawPrompt = "rawprompt"
	MethodRawRAG    = "rawrag"
	MethodRepoCoder = "repocoder"
	MethodRLCoder   = "rlcoder"
)

// Generator writes one sample of a target function's body.
type Generator interface {
	// Method names the method (a registered name, possibly with a suffix
	// naming a fallback, such as "actor+bm25").
	Method() string
	// Notes say how the method differs from the paper's (missing
	// weights, a retriever fallback, an ablation); they are in every trace.
	Notes() []string
	// Generate produces sample number sample (from 0) for the target. The
	// sample index and the configured seed fix the random draws, so a
	// resumed run reproduces the same text. A cancelled or expired ctx
	// ends it with ctx's error at the next token; obs, when not nil, sees
	// every token event.
	Generate(ctx context.Context, t retrieve.Target, sample int, obs Observer) (*Sample, error)
}

// Config holds the decoding rules every method shares.
type Config struct {
	// Temperature, TopK, TopP and Seed configure the sampler (engine's
	// SamplerConfig); each attempt of each sample gets its own seed derived
	// from Seed, the target's ID, the sample index and the attempt.
	Temperature float64
	TopK        int
	TopP        float64
	Seed        uint64
	// MaxNewTokens caps the generated tokens of one attempt.
	MaxNewTokens int
	// Retries is how many times an empty or bare "pass" result is
	// generated again (with new seeds) before it is kept as it is.
	Retries int
	// Budget limits the retrieved blocks in a prompt.
	Budget retrieve.Budget
	// HealNewline leaves a prompt's final newline for the model to write.
	// Byte-level BPE vocabularies merge a newline with the next line's
	// indentation ("\n   " is one token), so a prompt cut after the bare
	// newline token is one the model never saw in training and small
	// models then start a new top-level line. The body is still returned
	// relative to the prompt with its newline.
	HealNewline bool
	// BlankGuard keeps an attempt from ending before its body has
	// anything but white space: while the body is blank, a sampled token
	// that would end it there (end of generation, or text the stop rule
	// cuts back to blank) is ruled out and the token drawn again from the
	// rest of the distribution. Models given retrieved blocks tend to
	// close the target at once and start the blocks' "# file path:"
	// pattern, which the authors' regenerations (Retries) only redraw.
	BlankGuard bool
	// IndentGuard keeps the body's first line at the body's column: while
	// the body is blank, a token that would put its first character left
	// of the target's docstring (or, without one, at or left of its "def")
	// is ruled out and the token drawn again. Under the blank guard a
	// model that wants to close the function at once writes the next
	// definition one column in (" def"), which passes the stop rule and
	// returns None. For prompts whose code before the body ends with a
	// newline: the prompt, or a fill-in-the-middle prompt's prefix.
	IndentGuard bool
}

// DefaultConfig is the paper's setting: temperature 0.6, 512 new tokens,
// the authors' 1000-token, 10-block context budget, and up to 3
// regenerations; with the prompt's final newline healed and blank bodies
// guarded against.
var DefaultConfig = Config{Temperature: 0.6, MaxNewTokens: 512, Retries: 3, Budget: retrieve.DefaultBudget,
	HealNewline: true, BlankGuard: true}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	switch {
	case c.Temperature < 0 || c.TopK < 0 || c.TopP < 0 || c.TopP > 1:
		return fmt.Errorf("generate: temperature and top-k must be ≥ 0 and top-p in [0, 1]")
	case c.MaxNewTokens < 1:
		return fmt.Errorf("generate: at most %d new tokens: want at least 1", c.MaxNewTokens)
	case c.Retries < 0:
		return fmt.Errorf("generate: %d retries: want ≥ 0", c.Retries)
	case c.Budget.MaxTokens < 1 || c.Budget.MaxBlocks < 0:
		return fmt.Errorf("generate: context budget %d tokens, %d blocks: want ≥ 1 token and ≥ 0 blocks", c.Budget.MaxTokens, c.Budget.MaxBlocks)
	}
	return nil
}

// sampler returns the seeded sampler of one attempt (stage separates
// RepoCoder's rounds).
func (c Config) sampler(t retrieve.Target, sample, stage, attempt int) (*engine.Sampler, uint64) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%s\x00%d\x00%d\x00%d", c.Seed, t.ID, sample, stage, attempt)
	seed := h.Sum64()
	return engine.NewSampler(engine.SamplerConfig{Temperature: c.Temperature, TopK: c.TopK, TopP: c.TopP, Seed: seed}), seed
}

// Sample is one generated function body and what it took.
type Sample struct {
	// Code is the generated body (the continuation of Target.Prompt), cut
	// by the stop rule.
	Code string
	// Prompt is the final prompt the body continues (for ACToR, with the
	// last context it switched to).
	Prompt string
	// Decode is the time spent decoding all attempts' tokens (sampling,
	// probe, re-retrieval and re-prefill included; the initial prompt
	// prefill excluded).
	Decode time.Duration
	// Elapsed is the sample's wall time, retrieval and prefill included.
	Elapsed time.Duration
	// Trace records every attempt token by token, and holds the sample's
	// counts, each kept only there: Tokens (of the kept attempt),
	// Generated (by all attempts and rounds), Triggers (critical tokens
	// that triggered a retrieval) and ContextChanges (those whose
	// retrieval changed the context).
	Trace Trace
}

// MsPerToken is the mean decoding time per generated token in ms.
func (s *Sample) MsPerToken() float64 {
	if s.Trace.Generated == 0 {
		return 0
	}
	return float64(s.Decode.Microseconds()) / 1000 / float64(s.Trace.Generated)
}
