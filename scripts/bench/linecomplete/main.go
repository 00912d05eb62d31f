// Command linecomplete measures line completion at an editor's cursor on
// real code: lines of function bodies are masked one at a time and asked
// of a server's POST /infill as llama.vscode asks (the lines above and
// below, the cursor at the start of the empty line, n_indent its
// indentation), greedy; the first line of the answer is compared with the
// masked line (exact match and edit similarity, both without the
// indentation).
//
//	go run ./scripts/bench/linecomplete prepare -src DIR -lang go -n 200 [-seed N] [-exclude TASKS.jsonl] -out TASKS.jsonl
//	go run ./scripts/bench/linecomplete run -tasks TASKS.jsonl -url http://127.0.0.1:8012 -mode repo -out RESULTS.jsonl
//	go run ./scripts/bench/linecomplete report [-needing NEEDING.jsonl]... RESULTS.jsonl...
//	go run ./scripts/bench/linecomplete names -src DIR -tasks TASKS.jsonl [-needing NEEDING.jsonl]
//
// prepare picks lines of at least 10 characters inside function bodies
// (codesrc.Definitions; not comments, docstrings or the lines of a
// multi-line backtick string), the same ones for a seed, and for each file the
// editor's chunks llama.vim would have gathered from files visited before
// (its ring, the same for every line of the file): 16 chunks of up to 32
// lines of the package's other files, chosen by the seed. run's modes:
// none (llama.cpp's prompt, no chunks), chunks (llama.cpp's prompt with
// the chunks), repo (the server's repository context, no chunks; serve the
// package with --repo), both (the chunks, then the repository's context),
// actor (repo with ACToR's re-retrieval at critical tokens), completions (POST /v1/completions with the suffix and no context, which
// llama-cpp-python's server answers too; -label names such a run in the
// report). run appends one line per task and skips the tasks its output
// already has; -block asks blocks of neighbouring lines in a fixed
// shuffled order, -first only the first tasks of that order. names
// measures, without the model, whether the repository's context and the
// editor's chunks hold the names the masked lines need.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"actor/codesrc"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: linecomplete prepare|run|report|names ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "prepare":
		err = prepare(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	case "report":
		err = report(os.Stdout, os.Args[2:])
	case "names":
		err = names(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "linecomplete:", err)
		os.Exit(1)
	}
}

// task is one masked line.
type task struct {
	ID     string  `json:"id"`
	Lang   string  `json:"lang"`
	Path   string  `json:"path"`
	Line   int     `json:"line"`
	Prefix string  `json:"prefix"`
	Suffix string  `json:"suffix"`
	Indent int     `json:"indent"`
	Target string  `json:"target"`
	Chunks []chunk `json:"chunks"`
}

// chunk is an editor's chunk, as llama.vim sends it.
type chunk struct {
	Filename string `json:"filename"`
	Text     string `json:"text"`
}

// The plugins' defaults: lines above and below the cursor, chunks.
const (
	linesAbove = 256
	linesBelow = 64
	nChunks    = 16
	chunkLines = 32
	minTarget  = 10
)

func prepare(args []string) error {
	fs := flag.NewFlagSet("prepare", flag.ExitOnError)
	src := fs.String("src", "", "the package's source folder")
	lang := fs.String("lang", "", "the language to take lines of (codesrc's name: python, go, javascript, typescript, java, rust, c, cpp)")
	n := fs.Int("n", 200, "lines to mask")
	seed := fs.Uint64("seed", 1, "the choice of lines and chunks")
	out := fs.String("out", "", "tasks file (JSON lines)")
	exclude := fs.String("exclude", "", "a tasks file whose lines are left out (after the choice, so the others and their chunks stay those of the seed): lines for choosing settings apart from the reported ones")
	fs.Parse(args)
	if *src == "" || *lang == "" || *out == "" {
		return errors.New("prepare: give -src, -lang and -out")
	}
	skip := map[string]bool{}
	if *exclude != "" {
		old, err := readLines[task](*exclude)
		if err != nil {
			return fmt.Errorf("prepare: -exclude: %w", err)
		}
		for _, t := range old {
			skip[t.ID] = true
		}
	}
	files, err := readSources(*src)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(*seed, 7))
	type cand struct {
		path string
		line int
	}
	var cands []cand
	paths := slices.Sorted(func(yield func(string) bool) {
		for p := range files {
			if !yield(p) {
				return
			}
		}
	})
	for _, p := range paths {
		l := codesrc.Lang(p)
		if l == nil || l.Name != *lang || strings.Contains(p, "test") {
			continue
		}
		lines := strings.Split(string(files[p]), "\n")
		for _, d := range codesrc.Definitions(p, files[p]) {
			if d.Kind != "function" && d.Kind != "method" && d.Kind != "constructor" {
				continue
			}
			body := lines[d.Start-1 : min(d.End, len(lines))]
			inside, str := prose(body), make([]bool, len(body))
			if l.Name == "go" || l.Name == "javascript" || l.Name == "typescript" {
				str = inBackticks(body, l.Name != "go")
			}
			for ln := d.Start + 1; ln < min(d.End, len(lines)); ln++ {
				if t := strings.TrimSpace(lines[ln-1]); len(t) >= minTarget && !comment(t) && !inside[ln-d.Start] && !str[ln-d.Start] {
					cands = append(cands, cand{p, ln})
				}
			}
		}
	}
	cands = slices.CompactFunc(cands, func(a, b cand) bool { return a == b })
	rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	total := len(cands)
	if len(cands) > *n {
		cands = cands[:*n]
	}
	slices.SortFunc(cands, func(a, b cand) int { return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(a.line, b.line)) })
	ring := map[string][]chunk{}
	left := 0 // lines left out by -exclude
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, c := range cands {
		lines := strings.Split(strings.TrimSuffix(string(files[c.path]), "\n"), "\n")
		target := lines[c.line-1]
		t := task{ID: fmt.Sprintf("%s:%d", c.path, c.line), Lang: *lang, Path: c.path, Line: c.line, Target: target,
			Indent: len(target) - len(strings.TrimLeft(target, " \t"))}
		above := lines[max(0, c.line-1-linesAbove) : c.line-1]
		below := lines[c.line:min(len(lines), c.line+linesBelow)]
		t.Prefix = strings.Join(above, "\n") + "\n"
		t.Suffix = "\n" + strings.Join(below, "\n") + "\n"
		if ring[c.path] == nil {
			ring[c.path] = chunks(rng, files, paths, c.path)
		}
		t.Chunks = ring[c.path]
		if skip[t.ID] {
			left++
			continue
		}
		if err := enc.Encode(t); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d lines of %d candidates in %s (%d of them left out)\n", len(cands), total, *src, left)
	return f.Close()
}

// prose marks the lines that lie in a docstring or a block comment, or
// start or end one: what a line completion benchmark leaves out.
func prose(lines []string) []bool {
	out := make([]bool, len(lines))
	var closer string
	for i, l := range lines {
		if closer != "" {
			out[i] = true
			if strings.Contains(l, closer) {
				closer = ""
			}
			continue
		}
		for _, q := range [][2]string{{`"""`, `"""`}, {"'''", "'''"}, {"/*", "*/"}} {
			if j := strings.Index(l, q[0]); j >= 0 {
				out[i] = true
				if !strings.Contains(l[j+len(q[0]):], q[1]) {
					closer = q[1]
				}
				break
			}
		}
	}
	return out
}

// inBackticks marks the lines that start or end inside a string between
// backticks (Go's raw strings, JavaScript's template literals) spanning
// lines: another language's text (a shell script, a template), not the
// file's code. escapes: a backslash escapes a backtick in such a string
// (JavaScript's, not Go's).
func inBackticks(lines []string, escapes bool) []bool {
	out := make([]bool, len(lines))
	open := false
	for i, l := range lines {
		before := open
		if open || !comment(strings.TrimSpace(l)) {
			open = backtickAfter(l, open, escapes)
		}
		out[i] = before || open
	}
	return out
}

// backtickAfter scans a line that starts inside a backtick string (open)
// or not, and says whether it ends inside one. Outside such a string,
// literals between double or single quotes are skipped (a backtick there
// is a character) and a line comment ends the scan.
func backtickAfter(l string, open, escapes bool) bool {
	var quote byte // the quote of a literal being skipped
	for i := 0; i < len(l); i++ {
		switch c := l[i]; {
		case open && escapes && c == '\\', quote != 0 && c == '\\':
			i++
		case open:
			open = c != '`'
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '`':
			open = true
		case c == '/' && strings.HasPrefix(l[i:], "//"):
			return false
		}
	}
	return open
}

// comment reports whether a trimmed line is only a comment.
func comment(t string) bool {
	for _, p := range []string{"//", "#", "/*", "*", "\"\"\"", "'''"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// chunks picks the editor's chunks: of other files, chunkLines lines from
// a random line, as llama.vim picks them from buffers it visited.
func chunks(rng *rand.Rand, files map[string][]byte, paths []string, self string) []chunk {
	var others []string
	for _, p := range paths {
		if p != self && codesrc.Lang(p) != nil {
			others = append(others, p)
		}
	}
	var out []chunk
	for i := 0; i < nChunks && len(others) > 0; i++ {
		p := others[rng.IntN(len(others))]
		lines := strings.Split(strings.TrimRight(string(files[p]), "\n"), "\n")
		if len(lines) < 3 {
			continue
		}
		from := rng.IntN(max(1, len(lines)-chunkLines+1))
		out = append(out, chunk{Filename: p, Text: strings.Join(lines[from:min(len(lines), from+chunkLines)], "\n") + "\n"})
	}
	return out
}

// readSources reads the source files under dir by slash path.
func readSources(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != dir || d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if d.IsDir() || !codesrc.Source(p) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	return files, err
}
