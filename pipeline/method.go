package pipeline

import (
	"errors"
	"fmt"
	"slices"

	"actor/generate"
	"actor/retrieve"
	"actor/tokenizer"
)

// Method chooses a generation method and its switches: what the CLI's
// method flags, a server request and a benchmark work item all say.
type Method struct {
	// Method names a registered method (generate.MethodNames).
	Method string
	// Probe is ACToR's critical-token probe file ("": the model's shipped
	// probe, see ShippedProbe).
	Probe string
	// Samples per task (at least one).
	Samples int
	// NoInference and MeanPool are ACToR's ablations: no critical-token
	// inference, mean-pooled queries.
	NoInference, MeanPool bool
	// Sigma is the σ of ACToR's position-aware query pooling.
	Sigma float64
	// QueryEnds: ACToR's query over the encoder's limit keeps both ends
	// (generate.Options.QueryKeepsEnds).
	QueryEnds bool
	// Threshold overrides the probe's unanimity threshold (0: the probe's).
	Threshold float64
	// Encoder names the dense encoder ("": DefaultEncoder; "none": BM25).
	Encoder string
	// Retries are the regenerations of an empty or bare-pass result.
	Retries int
	// Budget and MaxBlocks bound the retrieved blocks of a prompt.
	Budget, MaxBlocks int
	// Name renames the method in predictions and traces (ablations).
	Name string
	// FullProbs evaluates every probe member for the trace.
	FullProbs bool
	// NoHeal and AllowBlank switch off generate.Config.HealNewline and
	// generate.Config.BlankGuard.
	NoHeal, AllowBlank bool
	// IndentGuard switches on generate.Config.IndentGuard.
	IndentGuard bool `json:",omitempty"`
	// NameIndex shows an index of the names in scope
	// (generate.ContextOptions.NameIndex).
	NameIndex bool `json:",omitempty"`
	// KVCaches are the KV caches kept for returns to earlier prompts.
	KVCaches int
	// Exact runs ACToR as the paper does: the best block first, every
	// prompt prefilled exactly, every token judged. Without it ACToR takes
	// the measured levers (see Resolved); with it the lever switches below
	// add one lever at a time, as the experiments measure them.
	Exact bool
	// Layout and Change are ACToR's prompt layout and context-change rule
	// (generate.Layouts, generate.ChangeRules; Layout "": the method's,
	// see Resolved).
	Layout, Change string
	// SkipComments judges no token inside a # comment.
	SkipComments bool
	// BatchSamples decodes a task's samples together as one batch.
	BatchSamples bool
	// KVReuse places blocks' keys and values after a context change;
	// KVReuseTail also moves the target and generated tokens;
	// KVReuseCheck also prefills exactly and traces the divergence.
	KVReuse, KVReuseTail, KVReuseCheck bool
	// KVStore, with KVReuse, keeps the blocks' keys and values in this
	// folder too, for later processes (generate.BlockStore.Persist).
	KVStore string
	// Entropy, when above 0, triggers retrieval at tokens of at least this
	// many nats of entropy instead of at the probe's critical tokens.
	Entropy float64

	// Format lays the prompts out (retrieve.Formats, or FormatAuto: the
	// model's own; "": the authors'). The context sources below, for every
	// method (generate.ContextOptions): InFile, the target file's own code;
	// Symbols, the definitions in scope; FileTokens and SymbolTokens their
	// budgets (0: the defaults). Lookup is ACToR's name lookup at critical
	// tokens (generate.Lookups). Unset, they leave run records as before.
	Format       string `json:",omitempty"`
	InFile       bool   `json:",omitempty"`
	Symbols      bool   `json:",omitempty"`
	FileTokens   int    `json:",omitempty"`
	SymbolTokens int    `json:",omitempty"`
	Lookup       string `json:",omitempty"`
	// NoContext keeps a method to what its switches say: the authors'
	// prompts unless they add context (Resolved otherwise adds the
	// measured context, DefaultContext).
	NoContext bool `json:",omitempty"`
}

// FormatAuto chooses the model's own prompt format from its special
// tokens (generate.ModelFormat).
const FormatAuto = "auto"

// DefaultMethod is the configuration measured best on the dev tasks:
// RawPrompt over the default context (see Resolved), one sample. ACToR
// is --method actor (over the same context, with its measured levers),
// and the paper's ACToR --method actor --exact.
func DefaultMethod() Method {
	return Method{Method: generate.MethodRawPrompt, Samples: 1, Sigma: retrieve.DefaultSigma,
		Retries: generate.DefaultConfig.Retries, Budget: retrieve.DefaultBudget.MaxTokens,
		MaxBlocks: retrieve.DefaultBudget.MaxBlocks, KVCaches: generate.DefaultSessions,
		Change: string(generate.ChangeOrder)}
}

// Resolved is the method as it runs, valid if m is. Every method but the
// paper's exact ACToR shows, unless NoContext, the context measured best
// on the dev tasks (DefaultContext) besides what its switches add. Exact,
// ACToR is what the switches say, the paper's ranked layout unless
// another is chosen. Otherwise ACToR takes the levers that cost no
// measurable pass@k on the dev tasks while bringing its time per token to
// RawRAG's (BENCHMARKS.md, "ACToR's cost levers"): the stable layout,
// block and tail KV reuse, and no judging inside # comments.
func (m Method) Resolved() Method {
	if m.Method != generate.MethodACToR || m.Exact {
		if m.Layout == "" {
			m.Layout = string(generate.LayoutRanked)
		}
		if info, _ := generate.LookupMethod(m.Method); !m.NoContext && !m.Exact && !info.Plain {
			m = DefaultContext.over(m)
		}
		return m
	}
	if m.Layout == "" {
		m.Layout = string(generate.LayoutStable)
	}
	m.KVReuse, m.KVReuseTail = true, true
	if !m.NoInference {
		m.SkipComments = true
	}
	if !m.NoContext {
		m = DefaultContext.over(m)
	}
	return m
}

// DefaultContext is what every method but the paper's exact ACToR shows
// besides its blocks: the target file's own code, in the model's own
// format (FormatAuto: the repository format where the vocabulary has it),
// with the indent guard. On the dev tasks
// (results/repoexec-dev-qwen2.5-coder-0.5b-indent/context, n = 5,
// docs/RESULTS.md) RawPrompt over it scores 19.41 % pass@1 against 12.65 %
// without, the best measured, and ACToR over it 17.94 % (with
// Qwen2.5-Coder-1.5B on 20 tasks 32 % against 18 %); the definitions in
// scope, the name index and name lookup did not add to it.
var DefaultContext = Method{Format: FormatAuto, InFile: true, IndentGuard: true}

// over returns m with c's context switches where m leaves them unset.
func (c Method) over(m Method) Method {
	if m.Format == "" {
		m.Format = c.Format
	}
	m.InFile = m.InFile || c.InFile
	m.Symbols = m.Symbols || c.Symbols
	m.IndentGuard = m.IndentGuard || c.IndentGuard
	if m.Lookup == "" && !m.NoInference && m.Entropy == 0 {
		m.Lookup = c.Lookup
	}
	return m
}

// Validate says what is wrong with a combination of switches, naming the
// CLI flag.
func (m *Method) Validate() error {
	switch {
	case !m.registered():
		return generate.UnknownMethod("--method", m.Method)
	case m.Samples < 1:
		return fmt.Errorf("-n %d: want at least one sample", m.Samples)
	case m.Exact && m.Method != generate.MethodACToR:
		return fmt.Errorf("--exact is the paper's ACToR, not %s's: leave --method out or give --method actor", m.Method)
	case m.Layout != "" && !slices.Contains(generate.Layouts, generate.Layout(m.Layout)):
		return fmt.Errorf("--layout %q: want ranked or stable", m.Layout)
	case !slices.Contains(generate.ChangeRules, generate.ChangeRule(m.Change)):
		return fmt.Errorf("--context-change %q: want order or set", m.Change)
	case (m.KVReuse || m.KVReuseTail || m.KVReuseCheck || m.KVStore != "") && m.Method != generate.MethodACToR:
		return fmt.Errorf("--kv-reuse and its switches are ACToR's (--method actor), not %s's", m.Method)
	case m.SkipComments && (m.Method != generate.MethodACToR || m.NoInference):
		return errors.New("--skip-comments is for ACToR with critical-token inference on (--method actor, no --no-inference)")
	case (m.KVReuseCheck || m.KVReuseTail || m.KVStore != "") && m.Exact && !m.KVReuse:
		return errors.New("with --exact, --kv-reuse-check, --kv-reuse-tail and --kv-store go with --kv-reuse: give it too")
	case m.Entropy < 0 || (m.Entropy > 0 && (m.Method != generate.MethodACToR || m.NoInference)):
		return errors.New("--entropy-trigger is a threshold ≥ 0 nats for ACToR with critical-token inference on (--method actor, no --no-inference)")
	case m.KVCaches < 1:
		return fmt.Errorf("--kv-caches %d: want at least one", m.KVCaches)
	case m.Format != "" && m.Format != FormatAuto && !slices.Contains(retrieve.Formats, retrieve.Format(m.Format)):
		return fmt.Errorf("--format %q: want auto, authors, plain, repo or fim", m.Format)
	case m.FileTokens < 0 || m.SymbolTokens < 0:
		return errors.New("--file-tokens and --symbol-tokens are budgets of at least one token (0: the default)")
	case !slices.Contains(generate.Lookups, generate.Lookup(m.Lookup)):
		return fmt.Errorf("--name-lookup %q: want off, add or only", m.Lookup)
	case m.Lookup != "" && m.Lookup != string(generate.LookupOff) && (m.Method != generate.MethodACToR || m.NoInference):
		return errors.New("--name-lookup is for ACToR with critical-token inference on (--method actor, no --no-inference)")
	}
	return nil
}

// contextFor is context for one of the methods: name lookup only for
// ACToR, none for a plain method (generate.MethodInfo.Plain).
func (m *Method) contextFor(method string, tok *tokenizer.Tokenizer) generate.ContextOptions {
	if info, _ := generate.LookupMethod(method); info.Plain && method != m.Method {
		return generate.ContextOptions{}
	}
	o := m.context(tok)
	if method != generate.MethodACToR {
		o.Lookup = ""
	}
	return o
}

// context is the method's generate.ContextOptions for a model with
// tokenizer tok (which resolves FormatAuto).
func (m *Method) context(tok *tokenizer.Tokenizer) generate.ContextOptions {
	o := generate.ContextOptions{Format: retrieve.Format(m.Format), InFile: m.InFile, Symbols: m.Symbols, NameIndex: m.NameIndex,
		FileTokens: m.FileTokens, SymbolTokens: m.SymbolTokens, Lookup: generate.Lookup(m.Lookup)}
	if m.Format == FormatAuto {
		o.Format = generate.ModelFormat(tok)
	}
	if o.FileTokens == 0 {
		o.FileTokens = generate.DefaultFileTokens
	}
	if o.SymbolTokens == 0 {
		o.SymbolTokens = generate.DefaultSymbolTokens
	}
	return o
}

// registered reports whether the method is a registered one.
func (m *Method) registered() bool {
	_, ok := generate.LookupMethod(m.Method)
	return ok
}

// usesProbe reports whether the method needs a probe file.
func (m *Method) usesProbe() bool {
	info, _ := generate.LookupMethod(m.Method)
	return info.Probed && !m.NoInference && m.Entropy == 0
}

// ProbeFile is the probe file the method loads for model: Probe, or the
// model's shipped probe; "" when the method has no probe. A queue worker
// hashes it to check that it runs a run's probe.
func (m *Method) ProbeFile(model string) (string, error) {
	switch {
	case !m.usesProbe():
		return "", nil
	case m.Probe != "":
		return m.Probe, nil
	}
	return ShippedProbe(model)
}

// usesEncoder reports whether the method retrieves densely.
func (m *Method) usesEncoder() bool {
	info, _ := generate.LookupMethod(m.Method)
	return info.Dense
}

// apply sets the generation switches the method carries on cfg.
func (m *Method) apply(cfg generate.Config) generate.Config {
	cfg.Retries, cfg.Budget = m.Retries, retrieve.Budget{MaxTokens: m.Budget, MaxBlocks: m.MaxBlocks}
	cfg.HealNewline, cfg.BlankGuard, cfg.IndentGuard = !m.NoHeal, !m.AllowBlank, m.IndentGuard
	return cfg
}
