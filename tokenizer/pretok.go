package tokenizer

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
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

// preSpec describes one pre-tokenizer family.
type preSpec struct {
	regexes []string
	// ignoreMerges: a pre-token that is itself a vocabulary entry is
	// emitted whole, without running the merges (Llama 3).
	ignoreMerges bool
	// addBOS is the default of tokenizer.ggml.add_bos_token.
	addBOS bool
}

var (
	preLlama3        = preSpec{regexes: []string{reLlama3}, ignoreMerges: true, addBOS: true}
	preSmolLM        = preSpec{regexes: []string{`\p{N}`, reGPT2}}
	preQwen2         = preSpec{regexes: []string{reQwen2}}
	preGPT2          = preSpec{regexes: []string{reGPT2}}
	preDeepSeekCoder = preSpec{regexes: []string{`[\r\n]`, `\s?\p{L}+`, `\s?\p{P}+`, `[一-龥ࠀ-一가-퟿]+`, `\p{N}`}}
	preDefault       = preSpec{regexes: []string{`[\p{P}\$\+<=>\^~\|]+`, reGPT2, `\p{N}+`, `[0-9][0-9][0-9]`}}
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
	steps []*regexp2.Regexp
}

var (
	compiledMu sync.Mutex
	compiled   = map[string]*regexp2.Regexp{}
)

// compileRegex compiles a pattern once per process; regexp2 values are safe
// for concurrent use. The backtracking stack is unbounded so that a long run
// of one character class (a 100 kB line of '=') cannot make a match fail.
func compileRegex(pattern string) (*regexp2.Regexp, error) {
	compiledMu.Lock()
	defer compiledMu.Unlock()
	if re, ok := compiled[pattern]; ok {
		return re, nil
	}
	re, err := regexp2.Compile(pattern, regexp2.None, regexp2.OptionMaxBacktrackingStackSize(-1))
	if err != nil {
		return nil, fmt.Errorf("tokenizer: pre-tokenizer regex %q: %v", pattern, err)
	}
	compiled[pattern] = re
	return re, nil
}

func newPretokenizer(spec preSpec) (*pretokenizer, error) {
	p := &pretokenizer{}
	for _, s := range spec.regexes {
		re, err := compileRegex(s)
		if err != nil {
			return nil, err
		}
		p.steps = append(p.steps, re)
	}
	return p, nil
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
	for _, re := range p.steps {
		next = next[:0]
		for _, pc := range pieces {
			next = splitPiece(re, runes, pc, next)
		}
		pieces, next = next, pieces
	}
	for _, pc := range pieces {
		words = append(words, span{offs[pc.a], offs[pc.b]})
	}
	sc.runes, sc.offs, sc.pieces, sc.next = runes, offs, pieces, next
	return words
}

// splitPiece appends to out the matches of re in runes[pc.a:pc.b] and the
// non-empty gaps between them, the regex seeing the piece as its whole
// input (as llama.cpp runs std::regex on each piece).
func splitPiece(re *regexp2.Regexp, runes []rune, pc span, out []span) []span {
	prev := 0
	err := re.FindRunesMatches(runes[pc.a:pc.b], 0, func(m regexp2.MatchView) bool {
		i, n, ok := m.GroupRange(0)
		if !ok || n == 0 {
			return true
		}
		if i > prev {
			out = append(out, span{pc.a + prev, pc.a + i})
		}
		out = append(out, span{pc.a + i, pc.a + i + n})
		prev = i + n
		return true
	})
	_ = err // no timeout and no stack limit are set: matching cannot fail
	if pc.a+prev < pc.b {
		out = append(out, span{pc.a + prev, pc.b})
	}
	return out
}
