package tokenizer

import (
	"sync"
	"unicode/utf8"
)

// The pre-tokenizer regexes of llama.cpp (llm_tokenizer_bpe), by the name a
// GGUF file gives in tokenizer.ggml.pre. A pre-tokenizer is a sequence of
// regexes: each splits every piece left by the previous one into its
// matches and the gaps between them.
const (
	reGPT2 = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)`
	// Llama 3's (?i:'s|...) written without the inline flag, as llama.cpp does.
	reLlama3 = `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	reQwen2  = `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// The regexes of Llama 3 and Qwen2 as their tokenizer.json files spell them
// (Split pre-tokenizers, run by Oniguruma), and the same in regexp2 syntax
// with Oniguruma's meaning: its (?i:...) also folds U+017F (ſ) to s.
const (
	hfLlama3   = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	hfQwen2    = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	specFoldHF = `(?:'[sSſ]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])`
)

// knownSplits maps Split regexes of tokenizer.json files to hand-written
// matchers; the step's regex is the specification they are fuzzed against.
var knownSplits = map[string]step{
	hfLlama3: {specFoldHF + hfLlama3[len("(?i:'s|'t|'re|'ve|'m|'ll|'d)"):], matchLlama3HF},
	hfQwen2:  {specFoldHF + hfQwen2[len("(?i:'s|'t|'re|'ve|'m|'ll|'d)"):], matchQwen2HF},
}

// step is one pre-tokenizer regex and the matcher that implements it.
type step struct {
	regex string
	match matcher
}

// preSpec describes one pre-tokenizer family.
type preSpec struct {
	steps []step
	// ignoreMerges: a pre-token that is itself a vocabulary entry is
	// emitted whole, without running the merges (Llama 3).
	ignoreMerges bool
	// addBOS is the default of tokenizer.ggml.add_bos_token.
	addBOS bool
}

var (
	stepGPT2  = step{reGPT2, matchGPT2}
	stepDigit = step{`\p{N}`, matchEach(isNumber)}

	preLlama3        = preSpec{steps: []step{{reLlama3, matchLlama3}}, ignoreMerges: true, addBOS: true}
	preSmolLM        = preSpec{steps: []step{stepDigit, stepGPT2}}
	preQwen2         = preSpec{steps: []step{{reQwen2, matchQwen2}}}
	preGPT2          = preSpec{steps: []step{stepGPT2}}
	preDeepSeekCoder = preSpec{steps: []step{
		{`[\r\n]`, matchEach(isCRLF)},
		{`\s?\p{L}+`, matchRuns(isLetter, true)},
		{`\s?\p{P}+`, matchRuns(isPunct, true)},
		{`[一-龥ࠀ-一가-퟿]+`, matchRuns(isCJK, false)},
		stepDigit,
	}}
	preDefault = preSpec{steps: []step{
		{`[\p{P}\$\+<=>\^~\|]+`, matchRuns(isPunctOrSymbolASCII, false)},
		stepGPT2,
		{`\p{N}+`, matchRuns(isNumber, false)},
		{`[0-9][0-9][0-9]`, matchASCIIDigits3},
	}}
)

// preSpecs maps tokenizer.ggml.pre values to their pre-tokenizer (the
// names llama.cpp accepts for the families implemented here).
var preSpecs = map[string]preSpec{
	"":                 preDefault,
	"default":          preDefault,
	"gpt-2":            preGPT2,
	"llama3":           preLlama3,
	"llama-v3":         preLlama3,
	"llama-bpe":        preLlama3,
	"smollm":           preSmolLM,
	"starcoder":        preSmolLM,
	"refact":           preSmolLM,
	"qwen2":            preQwen2,
	"deepseek-r1-qwen": preQwen2,
	"deepseek-coder":   preDeepSeekCoder,
}

// pretokenizer splits text into pre-tokens ("words") that BPE encodes
// independently.
type pretokenizer struct {
	steps []matcher
}

func newPretokenizer(spec preSpec) *pretokenizer {
	p := &pretokenizer{}
	for _, s := range spec.steps {
		p.steps = append(p.steps, s.match)
	}
	return p
}

// span is a half-open range [a,b).
type span struct{ a, b int }

// splitScratch holds reusable buffers of one split call.
type splitScratch struct {
	runes  []rune
	offs   []int
	pieces []span
	next   []span
}

var scratchPool = sync.Pool{New: func() any { return new(splitScratch) }}

// split appends to words the byte ranges of text's pre-tokens, in order;
// together they cover text exactly. Bytes that are not valid UTF-8 are
// matched as U+FFFD but stay themselves in the words, so encoding keeps
// every byte (llama.cpp replaces them by U+FFFD, losing them).
func (p *pretokenizer) split(text string, words []span) []span {
	sc := scratchPool.Get().(*splitScratch)
	defer scratchPool.Put(sc)
	runes, offs := sc.runes[:0], sc.offs[:0]
	for i := 0; i < len(text); {
		r, n := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(text[i:])
		}
		runes = append(runes, r)
		offs = append(offs, i)
		i += n
	}
	offs = append(offs, len(text))
	pieces := append(sc.pieces[:0], span{0, len(runes)})
	next := sc.next[:0]
	for _, match := range p.steps {
		next = next[:0]
		for _, pc := range pieces {
			next = match(runes, pc, next)
		}
		pieces, next = next, pieces
	}
	for _, pc := range pieces {
		words = append(words, span{offs[pc.a], offs[pc.b]})
	}
	sc.runes, sc.offs, sc.pieces, sc.next = runes, offs, pieces, next
	return words
}
