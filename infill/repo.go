package infill

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"actor/codesrc"
	"actor/generate"
	"actor/index"
	"actor/pysrc"
	"actor/retrieve"
	"actor/symbols"
	"actor/tokenizer"
)

// Repository is a served repository as cursor completion reads it: its
// source files of every language cut into blocks along their definitions
// (codesrc.Split), their definitions by name, the Python symbol table, and
// its files' lines (to find the file an editor's text comes from).
type Repository struct {
	Name   string
	Corpus *generate.Corpus
	Files  *Files
	// defs are the definitions of the files other than Python's, by name.
	defs map[string][]namedDef
	// spans are the lines of each file's definitions (the regions a
	// context is kept for).
	spans map[string][][2]int

	mu    sync.Mutex
	memo  map[regionKey][]Chunk
	order []regionKey
}

// regionKey names the part of a file a context was made for, under a
// budget.
type regionKey struct {
	path   string
	region int
	budget ContextBudget
}

// memoRegions bounds the contexts kept.
const memoRegions = 64

// regionLines is the size of the regions outside any definition.
const regionLines = 32

// namedDef is a definition, its file and its text as a chunk shows it.
type namedDef struct {
	codesrc.Def
	Path, Text string
}

// wholeLines: a definition of at most this many lines is shown whole; a
// longer type by as many first lines (its first members), a longer
// function by its header.
const wholeLines = 12

// typeKinds are the kinds of definitions that define types.
var typeKinds = map[string]bool{"type": true, "struct": true, "class": true, "interface": true, "trait": true,
	"enum": true, "record": true, "union": true}

// NewRepository reads a repository's source files (path → content) with
// its Python symbol table (nil: none).
func NewRepository(name string, files map[string][]byte, tab *symbols.Table) *Repository {
	r := &Repository{Name: name, Corpus: &generate.Corpus{Name: name, Symbols: tab}, Files: NewFiles(files),
		defs: map[string][]namedDef{}, spans: map[string][][2]int{}, memo: map[regionKey][]Chunk{}}
	paths := slices.Sorted(maps.Keys(files))
	for _, p := range paths {
		r.Corpus.Blocks = append(r.Corpus.Blocks, codesrc.Split(p, files[p])...)
		if codesrc.Lang(p) == nil {
			continue
		}
		defs := codesrc.Definitions(p, files[p])
		for _, d := range defs {
			r.spans[p] = append(r.spans[p], [2]int{d.Start, d.End})
		}
		if strings.HasSuffix(p, ".py") {
			continue
		}
		lines := strings.Split(string(files[p]), "\n")
		for _, d := range defs {
			text := d.Header
			switch {
			case d.End-d.Start+1 <= wholeLines:
				text = strings.Join(lines[d.Start-1:min(d.End, len(lines))], "\n")
			case typeKinds[d.Kind]: // its first members
				text = strings.Join(lines[d.Start-1:min(d.Start-1+wholeLines, len(lines))], "\n")
			}
			r.defs[d.Name] = append(r.defs[d.Name], namedDef{d, p, text})
		}
	}
	r.Corpus.Blocks = index.Dedup(r.Corpus.Blocks)
	return r
}

// ContextBudget bounds the repository's context of one completion, in
// tokens: the definitions (in Python those in scope at the cursor, in
// the other languages those of the names used above it), then the
// blocks retrieved for the lines above it.
type ContextBudget struct {
	Symbols, Blocks int
}

// DefaultContextBudget is 512 tokens of definitions and 512 of blocks.
var DefaultContextBudget = ContextBudget{Symbols: 512, Blocks: 512}

// Chunk sources of the repository's context.
const (
	SourceEditor = "editor" // an editor's chunk
	SourceSymbol = "symbol" // a definition in scope at the cursor
	SourceBlock  = "block"  // a block retrieved for the lines above the cursor
)

// queryLines is how many non-blank lines above the cursor's line make the
// retrieval query (the cursor's own line is left out, so the query, the
// blocks and the cached prompt stay the same while a line is typed).
const queryLines = 12

// Cursor is where a completion is asked in a repository's file.
type Cursor struct {
	// Path is the file, Line the cursor's 1-based line in it as the
	// repository holds it.
	Path string
	Line int
	// Above and Below are how many lines of the file the prompt shows
	// above and below the cursor's line (the editor's text, narrowed to
	// what the prompt keeps by Shown).
	Above, Below int
	// Prefix is the editor's text above the cursor's line, Suffix the
	// rest of its line and the text below.
	Prefix, Suffix string
}

// Context returns the repository's chunks for a completion at the
// cursor: the definitions in scope of the function around it (or of the
// module) for a Python file, then the blocks retrieved for the lines
// above the cursor's line, in the order of their files and lines so that
// the same blocks make the same prompt. What the prompt shows of the file
// (its lines from Above lines over the cursor on, for blocks;
// Above to Below, for definitions) is left out. Each part fits its
// budget. The chunks are kept for the cursor's region (the innermost
// definition around it): while the cursor stays there, new lines typed
// above it change neither the context nor the cached prompt.
func (r *Repository) Context(tok *tokenizer.Tokenizer, c Cursor, b ContextBudget) ([]Chunk, error) {
	key := regionKey{c.Path, r.region(c.Path, c.Line), b}
	r.mu.Lock()
	kept, ok := r.memo[key]
	r.mu.Unlock()
	if ok {
		return slices.Clone(kept), nil
	}
	out, err := r.context(tok, c, b)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if len(r.order) == memoRegions {
		delete(r.memo, r.order[0])
		r.order = r.order[1:]
	}
	r.memo[key], r.order = slices.Clone(out), append(r.order, key)
	r.mu.Unlock()
	return out, nil
}

// Requery is the repository's context for the cursor after text was
// written there (ACToR's re-retrieval at a critical token): Context's
// chunks with the editor's text above the cursor followed by text, made
// anew and not kept.
func (r *Repository) Requery(tok *tokenizer.Tokenizer, c Cursor, text string, b ContextBudget) ([]Chunk, error) {
	c.Prefix += text
	return r.context(tok, c, b)
}

// region is the innermost definition of the file around line (its first
// line), or, outside every definition, the regionLines lines around it
// (negative numbers).
func (r *Repository) region(path string, line int) int {
	best := [2]int{0, 0}
	for _, s := range r.spans[path] {
		if s[0] <= line && line <= s[1] && (best[0] == 0 || s[0] >= best[0]) {
			best = s
		}
	}
	if best[0] > 0 {
		return best[0]
	}
	return -1 - line/regionLines
}

// context makes the chunks Context keeps for a region.
func (r *Repository) context(tok *tokenizer.Tokenizer, c Cursor, b ContextBudget) ([]Chunk, error) {
	var out []Chunk
	var shown []retrieve.Result
	first := max(1, c.Line-c.Above)
	if b.Symbols > 0 && r.Corpus.Symbols != nil {
		if src, ok := r.Corpus.Symbols.File(c.Path); ok {
			defs, err := generate.InScope(r.Corpus, tok, cursorTarget(c.Path, src, c.Line), b.Symbols)
			if err != nil {
				return nil, err
			}
			for _, d := range defs {
				if d.Path == c.Path && d.Start >= first && d.End <= c.Line+c.Below {
					continue // the prompt shows it
				}
				out = append(out, Chunk{Path: d.Path, Text: d.Text + "\n", Source: SourceSymbol})
				shown = append(shown, d)
			}
		}
	}
	query := lastLines(c.Prefix, queryLines)
	if b.Symbols > 0 && !r.python(c.Path) {
		named, err := r.named(tok, c, query, b.Symbols)
		if err != nil {
			return nil, err
		}
		for _, n := range named {
			out = append(out, n.Chunk)
		}
		for _, n := range named {
			shown = append(shown, retrieve.Result{Candidate: index.Candidate{Path: n.Path, Start: n.start, End: n.end}})
		}
	}
	if b.Blocks <= 0 || strings.TrimSpace(query) == "" || len(r.Corpus.Blocks) == 0 {
		return out, nil
	}
	found, err := r.Corpus.BM25().Retrieve(query, retrieve.Exclusion{Path: c.Path, StartLine: first})
	if err != nil {
		return nil, err
	}
	tc := generate.TokenCounter{Tok: tok, Special: true}
	var kept []retrieve.Result
	used := 0
	near := nearLines(c.Prefix, c.Suffix)
	for _, f := range found {
		if covered(shown, f) || similar(f.Text, near) {
			continue
		}
		n, err := tc.CountTokens(retrieve.FileSepToken + f.Path + "\n" + f.Text + "\n")
		if err != nil {
			return nil, fmt.Errorf("counting context tokens: %w", err)
		}
		if used+n <= b.Blocks {
			kept, used = append(kept, f), used+n
		}
	}
	slices.SortFunc(kept, func(a, b retrieve.Result) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Start, b.Start))
	})
	for _, k := range kept {
		out = append(out, Chunk{Path: k.Path, Text: k.Text + "\n", Source: SourceBlock})
	}
	return out, nil
}

// named returns the definitions, in files other than Python's, of the
// names the lines above the cursor use, the names nearest the cursor
// first while they fit tokens (those the prompt shows left out),
// in the order of their files and lines.
func (r *Repository) named(tok *tokenizer.Tokenizer, c Cursor, query string, tokens int) ([]namedChunk, error) {
	words := identifier.FindAllString(query, -1)
	slices.Reverse(words)
	tc := generate.TokenCounter{Tok: tok, Special: true}
	seen := map[string]bool{}
	var kept []namedDef
	used := 0
	for _, w := range words {
		if seen[w] || builtin[w] {
			continue
		}
		seen[w] = true
		for i, d := range r.defs[w] {
			if i == maxPerName {
				break
			}
			if d.Path == c.Path && d.End >= c.Line-c.Above && d.Start <= c.Line+c.Below {
				continue
			}
			n, err := tc.CountTokens(retrieve.FileSepToken + d.Path + "\n" + d.Text + "\n")
			if err != nil {
				return nil, fmt.Errorf("counting context tokens: %w", err)
			}
			if used+n <= tokens {
				kept, used = append(kept, d), used+n
			}
		}
	}
	slices.SortFunc(kept, func(a, b namedDef) int { return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Start, b.Start)) })
	var out []namedChunk
	for _, d := range kept {
		out = append(out, namedChunk{Chunk{Path: d.Path, Text: d.Text + "\n", Source: SourceSymbol}, d.Start, d.End})
	}
	return out, nil
}

// python reports whether the symbol table has the file.
func (r *Repository) python(path string) bool {
	if r.Corpus.Symbols == nil {
		return false
	}
	_, ok := r.Corpus.Symbols.File(path)
	return ok
}

// namedChunk is a definition's chunk and its lines.
type namedChunk struct {
	Chunk
	start, end int
}

// maxPerName bounds the definitions shown for one name.
const maxPerName = 3

var identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// builtin are the languages' built-in names and keywords that name no
// definition worth showing even where a repository defines a method so
// named (String, Error).
var builtin = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 float32 float64
		byte rune bool error any len cap make new append copy delete panic nil true false self this super null
		undefined String Error Len Less Swap Equal Hash Clone Default Display Debug From Into Some None Ok Err
		Object Integer Boolean Long Double toString equals hashCode size get set map filter reduce push pop`) {
		builtin[w] = true
	}
}

// cursorTarget is the function around line in a Python file's source
// (the module's line itself when none, or when the file does not parse),
// as the symbol table's target.
func cursorTarget(path string, src []byte, line int) retrieve.Target {
	t := retrieve.Target{Path: path, Function: pysrc.Function{Start: line, DeclStart: line, End: line}}
	f, err := pysrc.Parse(src)
	if err != nil {
		return t
	}
	defer f.Close()
	if fn, err := f.At(line); err == nil {
		t.Function, t.Prompt = fn, fn.Prompt
	}
	return t
}

// nearWindow is how many lines on each side of the cursor a retrieved
// block is compared with.
const nearWindow = 32

// nearLines are the trimmed lines around the cursor.
func nearLines(prefix, suffix string) map[string]bool {
	above := strings.Split(prefix, "\n")
	below := strings.Split(suffix, "\n")
	out := map[string]bool{}
	for _, l := range slices.Concat(above[max(0, len(above)-nearWindow):], below[:min(len(below), nearWindow)]) {
		if t := strings.TrimSpace(l); t != "" {
			out[t] = true
		}
	}
	return out
}

// similar reports whether more than half of a block's lines are among the
// lines around the cursor: a near copy of the code being written makes the
// model repeat it rather than continue (llama.vim drops its chunks that
// resemble the cursor's surroundings for the same reason).
func similar(text string, near map[string]bool) bool {
	n, common := 0, 0
	for _, l := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			n++
			if near[t] {
				common++
			}
		}
	}
	return n > 0 && 2*common > n
}

// covered reports whether a shown definition holds all of r's lines.
func covered(shown []retrieve.Result, r retrieve.Result) bool {
	for _, s := range shown {
		if s.Path == r.Path && s.Start <= r.Start && r.End <= s.End {
			return true
		}
	}
	return false
}

// lastLines returns the last n non-blank lines of text.
func lastLines(text string, n int) string {
	lines := strings.Split(text, "\n")
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			out = append(out, lines[i])
		}
	}
	slices.Reverse(out)
	return strings.Join(out, "\n")
}
