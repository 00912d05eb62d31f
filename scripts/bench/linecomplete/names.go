package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strings"

	"actor/codesrc"
	"actor/engine"
	"actor/index"
	"actor/infill"
	"actor/internal/atomicfile"
	"actor/pipeline"
	"actor/symbols"
	"actor/tokenizer"
)

// name is an identifier of at least three characters: shorter ones (i,
// ok, fn) are in almost every text and say nothing about context.
var name = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]{2,}`)

// names measures, without running the model, whether a prompt's context
// holds the names a masked line needs: of the names in the masked line
// that the prompt's own text of the file (what the prefix and suffix
// budgets keep) lacks, how many the repository's context (the server's,
// as `actor serve` makes it for the package) and how many the editor's
// chunks (those the context budget keeps) show. A name neither shows
// must be guessed or is not the repository's (a string's word, a
// built-in, the standard library's).
func names(args []string) error {
	fs := flag.NewFlagSet("names", flag.ExitOnError)
	src := fs.String("src", "", "the package's source folder (as served)")
	tasksFile := fs.String("tasks", "", "tasks file (prepare's)")
	model := fs.String("model", "qwen2.5-coder-0.5b", "the model whose tokenizer counts the budgets (name or GGUF path)")
	needingOut := fs.String("needing", "", "also write the lines needing such a name to this file (JSON lines of lang and id, for report -needing)")
	budget := infill.DefaultContextBudget
	fs.IntVar(&budget.Symbols, "symbols", budget.Symbols, "the repository context's tokens of definitions (as actor serve --cursor-symbols)")
	fs.IntVar(&budget.Blocks, "blocks", budget.Blocks, "its tokens of retrieved blocks (--cursor-blocks)")
	show := fs.Bool("show", false, "also print each line needing such a name: its id, target and names, each marked with where the prompt shows it")
	fs.Parse(args)
	if *src == "" || *tasksFile == "" {
		return errors.New("names: give -src and -tasks")
	}
	tok, err := pipeline.OpenTokenizer(*model)
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	walk := pipeline.DefaultIndexConfig().Walk
	walk.Include = codesrc.Globs()
	if err := index.Walk(*src, walk, func(f index.File) error { files[f.Path] = f.Data; return nil }); err != nil {
		return err
	}
	tasks, err := readLines[task](*tasksFile)
	if err != nil {
		return err
	}
	if len(tasks) == 0 {
		return fmt.Errorf("names: %s has no tasks", *tasksFile)
	}
	c, err := countNames(tok, files, tasks, budget)
	if err != nil {
		return err
	}
	if *show { // p: elsewhere in the package, r: in the repository's context, c: in the chunks
		for _, l := range c.needingLines {
			fmt.Printf("%s\t%q\t%s\n", l.ID, l.target, strings.Join(l.marked, " "))
		}
	}
	if *needingOut != "" {
		if err := writeNeeding(*needingOut, c.needingLines); err != nil {
			return err
		}
	}
	fmt.Println("| language | lines | lines needing a name the prompt's file text lacks | such names | in the package elsewhere | in the repository's context | in the editor's chunks | context tokens per line: repository / chunks |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	fmt.Printf("| %s | %d | %d | %d | %d (%.0f %%) | %d (%.0f %%) | %d (%.0f %%) | %d / %d |\n", tasks[0].Lang, c.lines, c.needing, c.needed,
		c.inPackage, pct(c.inPackage, c.needed), c.inRepo, pct(c.inRepo, c.needed), c.inChunks, pct(c.inChunks, c.needed),
		c.repoTokens/c.lines, c.chunkTokens/c.lines)
	return nil
}

// nameCounts is what names measures over a package's tasks.
type nameCounts struct {
	// lines masked; of them, needing a name the prompt's text of the file
	// lacks; such names (once per line)
	lines, needing, needed int
	// of those names: elsewhere in the package, in the repository's
	// context, in the editor's chunks the prompt keeps
	inPackage, inRepo, inChunks int
	// the context's tokens, summed over lines
	repoTokens, chunkTokens int
	// needingLines are the lines needing such a name.
	needingLines []needingLine
}

// lineKey names a masked line across languages.
type lineKey struct {
	Lang string `json:"lang"`
	ID   string `json:"id"`
}

// needingLine is a line needing a name: its target (trimmed) and each
// such name marked with where the prompt shows it (NAME:prc, p elsewhere
// in the package, r in the repository's context, c in the chunks).
type needingLine struct {
	lineKey
	target string
	marked []string
}

// writeNeeding writes the lines needing a name to path, whole or not at
// all.
func writeNeeding(path string, lines []needingLine) error {
	var b strings.Builder
	for _, l := range lines {
		j, err := json.Marshal(l.lineKey)
		if err != nil {
			return err
		}
		b.Write(append(j, '\n'))
	}
	if err := atomicfile.Write(path, []byte(b.String())); err != nil {
		return fmt.Errorf("names: -needing: %w", err)
	}
	return nil
}

// countNames counts, for tasks of the package whose source files are
// files, the names each masked line needs and where a prompt shows them.
func countNames(tok *tokenizer.Tokenizer, files map[string][]byte, tasks []task, cb infill.ContextBudget) (nameCounts, error) {
	repo := infill.NewRepository("package", files, symbols.New(files))
	everywhere := map[string]map[string]bool{} // word → files holding it
	for p, b := range files {
		for _, w := range name.FindAllString(string(b), -1) {
			if everywhere[w] == nil {
				everywhere[w] = map[string]bool{}
			}
			everywhere[w][p] = true
		}
	}
	budget := infill.BatchBudget(infill.LlamaCppBatch, engine.DefaultContextLength, infill.DefaultPredict) // actor serve's, default --ctx
	var c nameCounts
	// the server's order: the context is kept per region for the next lines
	for _, t := range blockOrder(tasks, 10) {
		cur := infill.Cursor{Path: t.Path, Line: t.Line, Prefix: t.Prefix, Suffix: t.Suffix,
			Above: strings.Count(t.Prefix, "\n"), Below: max(0, strings.Count(t.Suffix, "\n")-1)}
		cur = cur.Shown(tok, "", budget)
		ctx, err := repo.Context(tok, cur, cb)
		if err != nil {
			return c, fmt.Errorf("%s: %w", t.ID, err)
		}
		var editor []infill.Chunk
		for _, ch := range t.Chunks {
			editor = append(editor, infill.Chunk{Path: ch.Filename, Text: ch.Text})
		}
		repoText, n, err := shown(tok, t, ctx, budget)
		if err != nil {
			return c, err
		}
		chunkText, m, err := shown(tok, t, editor, budget)
		if err != nil {
			return c, err
		}
		c.lines, c.repoTokens, c.chunkTokens = c.lines+1, c.repoTokens+n, c.chunkTokens+m
		fresh := 0
		var marked []string
		for _, w := range unique(name.FindAllString(t.Target, -1)) {
			if has(cur.Prefix+cur.Suffix, w) {
				continue
			}
			fresh++
			mark := w + ":"
			if elsewhere(everywhere[w], files, t, w) {
				c.inPackage++
				mark += "p"
			}
			if has(repoText, w) {
				c.inRepo++
				mark += "r"
			}
			if has(chunkText, w) {
				c.inChunks++
				mark += "c"
			}
			marked = append(marked, mark)
		}
		c.needed += fresh
		if fresh > 0 {
			c.needing++
			c.needingLines = append(c.needingLines, needingLine{lineKey{t.Lang, t.ID}, strings.TrimSpace(t.Target), marked})
		}
	}
	return c, nil
}

// shown returns the text of the chunks a prompt for t keeps within the
// budget, and their tokens.
func shown(tok *tokenizer.Tokenizer, t task, chunks []infill.Chunk, b infill.Budget) (string, int, error) {
	p, err := infill.Layout(tok, infill.Input{Prefix: t.Prefix, Suffix: t.Suffix, Path: t.Path, Repo: "package"}, chunks, b)
	if err != nil {
		return "", 0, err
	}
	var text strings.Builder
	n := 0
	for _, c := range p.Chunks {
		text.WriteString(c.Path + "\n" + c.Text + "\n")
		n += 1 + len(tok.Encode(c.Path+"\n"+c.Text, false)) // <|file_sep|>PATH\nTEXT, as Layout shows it
	}
	return text.String(), n, nil
}

// elsewhere reports whether word is in the package outside t's masked
// line: in another file, or in t's file on another line.
func elsewhere(in map[string]bool, files map[string][]byte, t task, word string) bool {
	for p := range in {
		if p != t.Path {
			return true
		}
	}
	if !in[t.Path] {
		return false
	}
	lines := strings.Split(string(files[t.Path]), "\n")
	for i, l := range lines {
		if i != t.Line-1 && has(l, word) {
			return true
		}
	}
	return false
}

// has reports whether text holds word as a whole word.
func has(text, word string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		if (start == 0 || !wordByte(text[start-1])) && (end == len(text) || !wordByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

func wordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// unique returns words without repeats, in their first order.
func unique(words []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range words {
		if !seen[w] {
			seen[w], out = true, append(out, w)
		}
	}
	return out
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
