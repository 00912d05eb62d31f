package generate

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"actor/index"
	"actor/pysrc"
	"actor/retrieve"
	"actor/symbols"
	"actor/tokenizer"
)

// ContextOptions choose what a prompt shows of the repository besides the
// retriever's blocks, and in which format. Every method takes them, so
// that methods compare on the same context.
//
// The budget is filled in a fixed order: the target file's head (its
// imports) always, then its code nearest the function up to FileTokens,
// then the name index and then the definitions in scope, together up to
// SymbolTokens plus what the file code left unused; the retrieved blocks keep the method's own budget
// (Config.Budget), so adding a source never takes blocks away.
type ContextOptions struct {
	// Format lays the prompt out ("" is retrieve.FormatAuthors).
	Format retrieve.Format
	// InFile shows the target file's own code around the function.
	InFile bool
	// Symbols shows the definitions in scope of the target (what its file
	// imports and defines, its class's members), signature and docstring,
	// or whole when short (at most wholeLines lines).
	Symbols bool
	// NameIndex shows, before the definitions, an index of the names in
	// scope: one line each (a constant's statement, a function's or
	// class's signature), grouped by the file that defines them. It takes
	// its lines from the definitions' budget first.
	NameIndex bool
	// FileTokens and SymbolTokens bound the file code and the definitions
	// (with the name index).
	FileTokens, SymbolTokens int
	// Lookup is ACToR's name lookup at critical tokens (LookupAdd,
	// LookupOnly; "" off).
	Lookup Lookup
}

// Lookup is how ACToR's re-retrieval at a critical token uses the
// repository's symbol table.
type Lookup string

const (
	// LookupOff looks nothing up (as "", but said: it overrides a default).
	LookupOff Lookup = "off"
	// LookupAdd puts the definitions whose names extend the name being
	// written before the dense re-query's blocks.
	LookupAdd Lookup = "add"
	// LookupOnly retrieves by name alone: a token that is not part of a
	// name (or whose name nothing extends) keeps the context.
	LookupOnly Lookup = "only"
)

// Lookups lists the name-lookup modes ("" is off).
var Lookups = []Lookup{"", LookupOff, LookupAdd, LookupOnly}

// Default budgets of the context sources.
const (
	DefaultFileTokens   = 1024
	DefaultSymbolTokens = 512
	// wholeLines: a definition of at most this many lines is shown whole.
	wholeLines = 12
)

// Validate reports options that cannot work.
func (o ContextOptions) Validate() error {
	switch {
	case o.Format != "" && !slices.Contains(retrieve.Formats, o.Format):
		return fmt.Errorf("generate: format %q: want one of %v", o.Format, retrieve.Formats)
	case !slices.Contains(Lookups, o.Lookup):
		return fmt.Errorf("generate: name lookup %q: want off, add or only", o.Lookup)
	case o.InFile && o.FileTokens < 1, (o.Symbols || o.NameIndex) && o.SymbolTokens < 1:
		return errors.New("generate: a context source needs a token budget of at least one")
	}
	return nil
}

// authorsOnly reports whether the options add nothing to the authors' prompts.
func (o ContextOptions) authorsOnly() bool {
	return (o.Format == "" || o.Format == retrieve.FormatAuthors) && !o.InFile && !o.Symbols && !o.NameIndex
}

// SupportsFormat reports whether the model's vocabulary has the special
// tokens a format writes.
func SupportsFormat(tok *tokenizer.Tokenizer, f retrieve.Format) bool {
	need := map[retrieve.Format][]string{
		retrieve.FormatRepo: {retrieve.RepoNameToken, retrieve.FileSepToken},
		retrieve.FormatFIM:  {retrieve.RepoNameToken, retrieve.FileSepToken, retrieve.FIMPrefixToken, retrieve.FIMSuffixToken, retrieve.FIMMiddleToken},
	}
	for _, s := range need[f] {
		if _, ok := tok.TokenID(s); !ok {
			return false
		}
	}
	return true
}

// ModelFormat is the best format the model's vocabulary supports for
// writing a function: the repository format when it has the repository
// tokens, else plain code. Fill in the middle is not chosen: with
// Qwen2.5-Coder-0.5B-Instruct it wrote unrelated code on the dev tasks
// (docs/RESULTS.md); it stays for cursor completion (--format fim, and
// the server's /infill).
func ModelFormat(tok *tokenizer.Tokenizer) retrieve.Format {
	if SupportsFormat(tok, retrieve.FormatRepo) {
		return retrieve.FormatRepo
	}
	return retrieve.FormatPlain
}

// framer builds, once per target, the frame of a method's prompts.
type framer struct {
	opt    ContextOptions
	corpus *Corpus
	tok    *tokenizer.Tokenizer

	mu   sync.Mutex
	key  string
	last *retrieve.Frame
}

// frame returns the target's frame (the last one is kept: a task's samples
// come one after another).
func (f *framer) frame(t retrieve.Target, repoCoder bool) (*retrieve.Frame, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%t", t.ID, t.Path, t.Prompt, repoCoder)
	if f.last != nil && key == f.key {
		return f.last, nil
	}
	fr := &retrieve.Frame{Format: f.opt.Format, RepoCoder: repoCoder, Repo: f.corpus.Name, Path: t.Path, Prompt: t.Prompt}
	if f.opt.authorsOnly() {
		f.key, f.last = key, fr
		return fr, nil
	}
	tab := f.corpus.Symbols
	src, ok := tab.File(t.Path)
	if !ok {
		return nil, fmt.Errorf("generate: %s is not a Python file of the repository", t.Path)
	}
	tc := TokenCounter{Tok: f.tok, Special: fr.Special()}
	fn := t.Function
	var code retrieve.FileCode
	symbolTokens := f.opt.SymbolTokens
	if f.opt.InFile {
		var err error
		if code, err = retrieve.CutFile(src, fn.DeclStart, fn.End, tc, f.opt.FileTokens, fr.Format == retrieve.FormatFIM); err != nil {
			return nil, fmt.Errorf("%s: %w", t.Path, err)
		}
		fr.Above, fr.Below, fr.Code = code.Above, code.Below, code
		if used, err := tc.CountTokens(code.Above + code.Below); err == nil {
			symbolTokens += max(0, f.opt.FileTokens-used)
		}
	}
	if f.opt.NameIndex {
		idx, used, err := f.nameIndex(t, code, tc, symbolTokens)
		if err != nil {
			return nil, err
		}
		fr.Symbols, symbolTokens = idx, symbolTokens-used
	}
	if f.opt.Symbols {
		defs, err := f.symbols(t, code, tc, symbolTokens)
		if err != nil {
			return nil, err
		}
		fr.Symbols = append(fr.Symbols, defs...)
	}
	f.key, f.last = key, fr
	return fr, nil
}

// symbols renders the definitions in scope of t, best first, that fit the
// budget, leaving out those the file code already shows.
func (f *framer) symbols(t retrieve.Target, code retrieve.FileCode, tc retrieve.TokenCounter, tokens int) ([]retrieve.Result, error) {
	fn := t.Function
	tg := f.corpus.Symbols.Locate(t.Path, fn.DeclStart, fn.End, t.Prompt)
	var out []retrieve.Result
	used := 0
	for _, s := range f.corpus.Symbols.InScope(tg) {
		if f.opt.InFile && s.Path == t.Path && code.Shows(s.Start, s.End) {
			continue
		}
		r := defResult(s, retrieve.SourceSymbol)
		n, err := tc.CountTokens(r.Text)
		if err != nil {
			return nil, err
		}
		if used+n <= tokens {
			out, used = append(out, r), used+n
		}
	}
	return out, nil
}

// InScope returns the definitions in scope of t in the corpus as the
// repository format shows them (whole when short, else signature and
// docstring), best first, those that fit tokens: the symbol context of
// generation, for any target (cursor completion passes the lines around
// the cursor as t's function).
func InScope(c *Corpus, tok *tokenizer.Tokenizer, t retrieve.Target, tokens int) ([]retrieve.Result, error) {
	f := &framer{opt: ContextOptions{Symbols: true, SymbolTokens: tokens}, corpus: c, tok: tok}
	return f.symbols(t, retrieve.FileCode{}, TokenCounter{Tok: tok, Special: true}, tokens)
}

// defResult shows a definition as a prompt snippet: whole when short, else
// its summary.
func defResult(s symbols.Found, source string) retrieve.Result {
	text := s.Summary
	if s.End-s.Start+1 <= wholeLines {
		text = s.Source
	}
	return retrieve.Result{Candidate: index.Candidate{Path: s.Path, Start: s.Start, End: s.End, Text: strings.TrimSuffix(text, "\n")},
		Source: source, Why: s.Why()}
}

// lookup returns the definitions whose names extend the name being written
// at the end of text (the target's body so far), as snippets, and the name
// as read ("receiver.partial"; "" when text does not end in a name).
func (f *framer) lookup(t retrieve.Target, text string) ([]retrieve.Result, string) {
	recv, partial, ok := symbols.NameAt(text)
	if !ok {
		return nil, ""
	}
	fn := t.Function
	tg := f.corpus.Symbols.Locate(t.Path, fn.DeclStart, fn.End, t.Prompt)
	var out []retrieve.Result
	for _, s := range f.corpus.Symbols.Lookup(tg, recv, partial) {
		out = append(out, defResult(s, retrieve.SourceLookup))
	}
	return out, receiverDot(recv) + partial
}

func receiverDot(r string) string {
	if r == "" {
		return ""
	}
	return r + "."
}

// lookupMode is the frame's name-lookup mode ("" when off or without a
// frame).
func (f *framer) lookupMode() Lookup {
	if f == nil || f.opt.Lookup == LookupOff {
		return ""
	}
	return f.opt.Lookup
}

// contextBlocks describes for the trace what the frame shows besides the
// blocks: the target file's lines (source "file") and the definitions in
// scope (source "symbol").
func contextBlocks(fr *retrieve.Frame, fn pysrc.Function) []Block {
	if fr == nil {
		return nil
	}
	var out []Block
	c := fr.Code
	file := func(start, end int, why string) {
		if start <= end {
			out = append(out, Block{Path: fr.Path, Start: start, End: end, Source: "file", Why: why})
		}
	}
	if fr.Above != "" {
		file(1, c.HeadEnd, "the target file's head (imports)")
		file(c.AboveFrom, fn.DeclStart-1, "the target file's code above the function")
	}
	if fr.Below != "" {
		file(fn.End+1, c.BelowTo, "the target file's code below the function")
	}
	return append(out, traceBlocks(fr.Symbols)...)
}

// traceContext is contextBlocks of the method's frame for t (nil without
// context options).
func (b *base) traceContext(t retrieve.Target, repoCoder bool) []Block {
	if b.fr == nil {
		return nil
	}
	fr, err := b.fr.frame(t, repoCoder)
	if err != nil {
		return nil
	}
	return contextBlocks(fr, t.Function)
}

// Frame returns what the prompts of a method with options o show for target
// t besides its blocks, from corpus c (repoCoder: RepoCoder's own layout in
// the authors' format); actor prompt prints prompts through it.
func Frame(c *Corpus, tok *tokenizer.Tokenizer, o ContextOptions, t retrieve.Target, repoCoder bool) (*retrieve.Frame, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Format != "" && !SupportsFormat(tok, o.Format) {
		return nil, fmt.Errorf("generate: the model's vocabulary lacks the special tokens of the %s format", o.Format)
	}
	return (&framer{opt: o, corpus: c, tok: tok}).frame(t, repoCoder)
}

// notes say what the options add to the paper's prompts.
func (o ContextOptions) notes() []string {
	var out []string
	if o.Format != "" && o.Format != retrieve.FormatAuthors {
		out = append(out, fmt.Sprintf("prompt format %s instead of the authors' layout", o.Format))
	}
	if o.InFile {
		out = append(out, fmt.Sprintf("the target file's own code (imports, nearest lines; %d tokens)", o.FileTokens))
	}
	if o.Symbols {
		out = append(out, fmt.Sprintf("the definitions in scope of the target (%d tokens)", o.SymbolTokens))
	}
	switch o.Lookup {
	case LookupAdd:
		out = append(out, "name lookup: at a critical token inside a name, the definitions extending it come before the re-query's blocks")
	case LookupOnly:
		out = append(out, "name lookup only: at a critical token inside a name, the definitions extending it instead of a re-query")
	}
	return out
}
