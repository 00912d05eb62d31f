package trainset

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"actor/pysrc"
)

// Options are the extraction filters. The paper keeps repositories with
// more than 15 functions, leaves out the benchmarks' repositories, and
// requires a signature and a complete docstring.
type Options struct {
	MinPerRepo   int      // keep repositories with at least this many functions (paper: 16)
	MaxPerRepo   int      // cap per repository by a seeded sample (0: no cap)
	Limit        int      // cap on the total by a seeded sample (0: no cap)
	Exclude      []string // repository names to leave out (benchmark projects)
	MinBodyLines int      // non-blank body lines required (at least 1)
	MaxBodyLines int      // 0: no cap
	MinDocChars  int      // non-space docstring characters required (at least 1)
	SkipTests    bool     // skip test directories and test_*.py / *_test.py files
	MaxFileBytes int      // skip larger files (0: 1 MiB)
	Seed         uint64
}

// DefaultOptions are the paper's filters.
func DefaultOptions() Options {
	return Options{MinPerRepo: 16, MinBodyLines: 1, MinDocChars: 1, Seed: 42}
}

// Report counts what extraction saw and why functions were left out.
type Report struct {
	Repos, ReposKept              int
	Files, FilesSkipped           int // skipped: too large, not UTF-8 or unreadable
	Functions                     int // function definitions seen (module and class level)
	NoDocstring, BadDocstring     int
	NoBody, InlineBody, ParseErrs int
	BodyLength                    int // outside MinBodyLines..MaxBodyLines
	Kept                          int
}

// String formats the report on one line.
func (r Report) String() string {
	return fmt.Sprintf("%d/%d repositories, %d files (%d skipped), %d functions: %d without docstring, %d incomplete docstring, "+
		"%d without body, %d body on the docstring line, %d with parse errors, %d outside the body-length limits; %d kept",
		r.ReposKept, r.Repos, r.Files, r.FilesSkipped, r.Functions, r.NoDocstring, r.BadDocstring, r.NoBody, r.InlineBody,
		r.ParseErrs, r.BodyLength, r.Kept)
}

// ExtractRepos extracts samples from repository directories (the
// repository name is the directory's base name) and applies the filters.
func ExtractRepos(dirs []string, o Options) ([]Sample, Report, error) {
	var rep Report
	p, err := pysrc.NewParser()
	if err != nil {
		return nil, rep, err
	}
	defer p.Close()
	var all []Sample
	for _, dir := range dirs {
		repo := filepath.Base(filepath.Clean(dir))
		rep.Repos++
		if slices.Contains(o.Exclude, repo) {
			continue
		}
		fns, err := extractRepo(p, dir, repo, o, &rep)
		if err != nil {
			return nil, rep, err
		}
		if len(fns) < o.MinPerRepo {
			continue
		}
		if o.MaxPerRepo > 0 && len(fns) > o.MaxPerRepo {
			fns = sample(fns, o.MaxPerRepo, o.Seed)
		}
		rep.ReposKept++
		all = append(all, fns...)
	}
	if o.Limit > 0 && len(all) > o.Limit {
		all = sample(all, o.Limit, o.Seed)
	}
	count := map[string]int{}
	for i := range all {
		s := &all[i]
		s.ID = fmt.Sprintf("%s/%d", s.Repo, count[s.Repo])
		count[s.Repo]++
	}
	rep.Kept = len(all)
	return all, rep, nil
}

// sample keeps k of s chosen by a seeded shuffle, in their original order.
func sample(s []Sample, k int, seed uint64) []Sample {
	idx := rand.New(rand.NewPCG(seed, 7)).Perm(len(s))[:k]
	slices.Sort(idx)
	out := make([]Sample, k)
	for i, j := range idx {
		out[i] = s[j]
	}
	return out
}

func isTestPath(rel string) bool {
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if part == "test" || part == "tests" || part == "testing" {
			return true
		}
	}
	base := filepath.Base(rel)
	return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")
}

// extractRepo walks one repository in lexical order.
func extractRepo(p *pysrc.Parser, dir, repo string, o Options, rep *Report) ([]Sample, error) {
	maxBytes := o.MaxFileBytes
	if maxBytes <= 0 {
		maxBytes = 1 << 20
	}
	var out []Sample
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("repository %s: %w", dir, err)
		}
		name := d.Name()
		if d.IsDir() {
			if path != dir && (strings.HasPrefix(name, ".") || name == "__pycache__" || name == "node_modules" || name == "site-packages") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".py") || !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if o.SkipTests && isTestPath(rel) {
			return nil
		}
		rep.Files++
		src, err := os.ReadFile(path)
		if err != nil || len(src) > maxBytes || !utf8.Valid(src) {
			rep.FilesSkipped++
			return nil
		}
		fns, err := Functions(p, src, o, rep)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for i := range fns {
			fns[i].Repo, fns[i].Path = repo, filepath.ToSlash(rel)
		}
		out = append(out, fns...)
		return nil
	})
	return out, err
}

// Functions extracts the module- and class-level functions of one Python
// source that have a complete docstring and a body, counting the others in
// rep.
func Functions(p *pysrc.Parser, src []byte, o Options, rep *Report) ([]Sample, error) {
	f, err := p.Parse(src)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lines := strings.SplitAfter(string(src), "\n")
	var out []Sample
	var visit func(n *sitter.Node)
	visit = func(n *sitter.Node) {
		for _, c := range pysrc.Children(n) {
			switch c.Kind() {
			case "function_definition":
				rep.Functions++
				if s, ok := function(f, lines, c, o, rep); ok {
					out = append(out, s)
				}
			case "decorated_definition", "class_definition", "block", "if_statement", "else_clause", "try_statement":
				// descend into classes (and code guarded at module or
				// class level), never into functions
				if def := c.ChildByFieldName("definition"); def != nil && def.Kind() == "function_definition" {
					rep.Functions++
					if s, ok := function(f, lines, def, o, rep); ok {
						out = append(out, s)
					}
					continue
				}
				visit(c)
			}
		}
	}
	visit(f.Root())
	return out, nil
}

// function turns one function_definition node into a sample, or reports
// why it does not qualify.
func function(f *pysrc.File, lines []string, fn *sitter.Node, o Options, rep *Report) (Sample, bool) {
	if fn.HasError() {
		rep.ParseErrs++
		return Sample{}, false
	}
	body := fn.ChildByFieldName("body")
	if body == nil {
		rep.NoBody++
		return Sample{}, false
	}
	stmts := pysrc.Statements(body)
	_, content, ok := f.Docstring(body)
	if !ok {
		rep.NoDocstring++
		return Sample{}, false
	}
	if len(strings.Join(strings.Fields(content), "")) < max(1, o.MinDocChars) {
		rep.BadDocstring++
		return Sample{}, false
	}
	if len(stmts) < 2 {
		rep.NoBody++
		return Sample{}, false
	}
	defRow := int(fn.StartPosition().Row)
	docEnd := int(stmts[0].EndPosition().Row)
	if int(stmts[1].StartPosition().Row) == docEnd {
		rep.InlineBody++
		return Sample{}, false
	}
	endRow := int(fn.EndPosition().Row)
	if fn.EndPosition().Column == 0 && endRow > defRow {
		endRow--
	}
	indent := lines[defRow][:fn.StartPosition().Column]
	if strings.TrimSpace(indent) != "" {
		rep.InlineBody++ // "x = 1; def f(): ..." or similar
		return Sample{}, false
	}
	prompt := strings.Join(dedent(lines[defRow:docEnd+1], indent), "")
	if !strings.HasSuffix(prompt, "\n") {
		prompt += "\n"
	}
	bodyStart := docEnd + 1
	for bodyStart <= endRow && blank(lines[bodyStart]) {
		bodyStart++
	}
	bodyLines := dedent(lines[bodyStart:endRow+1], indent)
	n := 0
	for _, l := range bodyLines {
		if !blank(l) {
			n++
		}
	}
	if n < max(1, o.MinBodyLines) || (o.MaxBodyLines > 0 && n > o.MaxBodyLines) {
		rep.BodyLength++
		return Sample{}, false
	}
	sigEnd := fn.ChildByFieldName("parameters").EndByte()
	if rt := fn.ChildByFieldName("return_type"); rt != nil {
		sigEnd = rt.EndByte()
	}
	sig := strings.Join(strings.Fields(string(f.Src()[fn.StartByte():sigEnd])), " ") + ":"
	return Sample{
		Signature: sig, Docstring: content, Prompt: prompt,
		Body:      strings.TrimRight(strings.Join(bodyLines, ""), " \t\r\n"),
		StartLine: defRow, BodyLine: bodyStart,
	}, true
}
