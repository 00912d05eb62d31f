// Package labelstore stores the output of critical-token labelling: one
// directory per labelling run holding
//
//	labels.json    versioned header: model, rules, prompt mode
//	hidden.f16     binary: 16-byte header (magic, version, d), then one row of
//	               d float16 hidden-state values per target token
//	tokens.jsonl   one JSON record per target token (statistics and label)
//	samples.jsonl  one JSON record per completed sample, written last
//
// A sample counts only once its samples.jsonl line is complete, so an
// interrupted run is resumed by cutting the three files back to the last
// complete sample (with a warning) and appending after it; readers ignore
// such an incomplete tail, also with a warning, and never mix it in.
package labelstore

import (
	"fmt"
	"log/slog"

	"actor/probe"
	"actor/probe/critical"
)

// File names inside a labels directory.
const (
	HeaderFile  = "labels.json"
	HiddenFile  = "hidden.f16"
	TokensFile  = "tokens.jsonl"
	SamplesFile = "samples.jsonl"
)

// FormatName and FormatVersion identify the header of this layout.
const (
	FormatName    = "actor-labels"
	FormatVersion = 1
)

// Header describes how a labels directory was made. Resuming a run
// requires an identical header.
type Header struct {
	Format  string          `json:"format"`
	Version int             `json:"version"`
	Model   probe.ModelInfo `json:"model"`
	Rules   critical.Rules  `json:"rules"`
	// Prompt says how prompts were built, e.g. "signature+docstring, no
	// retrieval"; informative, but part of the resume check.
	Prompt string `json:"prompt"`
	// MaxTarget caps the target tokens labelled per sample (0 = no cap).
	MaxTarget int `json:"max_target"`
}

// NewHeader fills Format and Version.
func NewHeader(m probe.ModelInfo, r critical.Rules, prompt string, maxTarget int) Header {
	return Header{Format: FormatName, Version: FormatVersion, Model: m, Rules: r, Prompt: prompt, MaxTarget: maxTarget}
}

func (h Header) validate() error {
	switch {
	case h.Format != FormatName:
		return fmt.Errorf("format %q is not %q", h.Format, FormatName)
	case h.Version != FormatVersion:
		return fmt.Errorf("format version %d not supported (this build reads %d)", h.Version, FormatVersion)
	case h.Model.Hidden < 1 || h.Model.Hidden > 1<<16:
		return fmt.Errorf("hidden size %d outside 1..65536", h.Model.Hidden)
	}
	return h.Rules.Validate()
}

// Sample is one labelled function.
type Sample struct {
	ID   string `json:"id"`
	Repo string `json:"repo,omitempty"`
	Path string `json:"path,omitempty"`
	// Prefix is the function's source before Target (signature and
	// docstring), so that Prefix+Target parses as Python for the syntax
	// analysis.
	Prefix       string `json:"prefix"`
	Target       string `json:"target"` // the ground-truth body that was scored
	PromptTokens int    `json:"prompt_tokens"`
	Tokens       int    `json:"tokens"`    // target tokens labelled
	FirstRow     int64  `json:"first_row"` // row of its first token in hidden.f16
}

// Token is one labelled target token.
type Token struct {
	Sample     string  `json:"sample"` // Sample.ID
	Pos        int     `json:"pos"`    // index in the sample's target tokens
	Row        int64   `json:"row"`    // row of its hidden state in hidden.f16
	ID         int32   `json:"id"`
	Text       string  `json:"text"` // the bytes the token stands for
	Greedy     int32   `json:"greedy"`
	GreedyText string  `json:"greedy_text"`
	Entropy    float64 `json:"entropy"`   // nats
	LogProb    float64 `json:"logprob"`   // ln p(target)
	SelfInfo   float64 `json:"self_info"` // bits
	Influence  float64 `json:"influence"`
	// Start and End are the token's byte span in Sample.Target, −1 when the
	// tokens' bytes do not reproduce the target text.
	Start int `json:"start"`
	End   int `json:"end"`
	// The criteria met under the header's thresholds (all three, enabled or
	// not) and the label under the header's rules.
	Mismatch    bool `json:"mismatch"`
	Uncertain   bool `json:"uncertain"`
	Influential bool `json:"influential"`
	Critical    bool `json:"critical"`
}

// Criteria re-evaluates the three criteria under r's thresholds. Mismatch
// is taken from the record (decided on the exact bytes at labelling time).
func (t Token) Criteria(r critical.Rules) critical.Flags {
	f := r.Criteria(critical.Stats{Entropy: t.Entropy, Influence: t.Influence})
	if t.Mismatch {
		f |= critical.Mismatch
	}
	return f
}

// NewToken builds the record of one target token from its statistics.
func NewToken(sample string, pos int, s critical.Stats, r critical.Rules, start, end int) Token {
	f := r.Criteria(s)
	return Token{
		Sample: sample, Pos: pos, ID: s.Target, Text: s.TargetText, Greedy: s.Greedy, GreedyText: s.GreedyText,
		Entropy: s.Entropy, LogProb: s.LogProb, SelfInfo: s.SelfInfo(), Influence: s.Influence,
		Start: start, End: end,
		Mismatch: f.Has(critical.Mismatch), Uncertain: f.Has(critical.Uncertain), Influential: f.Has(critical.Influential),
		Critical: f&r.Enabled != 0,
	}
}

// warnf reports through warn, or slog when warn is nil.
func warnf(warn func(string), format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if warn == nil {
		slog.Warn(msg)
		return
	}
	warn(msg)
}
