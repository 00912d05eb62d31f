// Package recall measures retrieval quality on benchmark tasks without
// running a model: does the top of the ranking show the repository code
// the gold function actually uses?
//
// Gold: the names the gold function's body reads (pysrc.Uses) that resolve
// to definitions in the repository's non-test Python files:
//   - a free name defined at module level in the target's own file
//     resolves to that definition only (Python looks there first);
//     otherwise to module-level definitions of that name in other files;
//   - a name after a dot (obj.attr) resolves to methods and class
//     attributes of that name in any file, and to module-level definitions
//     of that name in other files (module.attr), unless it is a method of
//     a built-in type (str.format, list.append, ...): those calls are
//     usually on built-in values, so the name says nothing about the
//     repository.
//
// Definitions hidden by the exclusion rule (in the target's file, not
// ending before its first line) and the target function itself are left
// out; a name with no definition left is not gold. Tasks without gold
// names are not counted.
//
// With the top-k retrieved blocks (after the exclusion rule), a gold name
// is recalled when a block overlaps one of its definitions (same file,
// intersecting line ranges). Hit@k is the fraction of counted tasks with at
// least one gold name recalled ("a snippet overlapping the lines the gold
// function uses"); Recall@k is the mean over counted tasks of the fraction
// of gold names recalled.
package recall

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"actor/dataset"
	"actor/index"
	"actor/pysrc"
	"actor/retrieve"
)

// Span is a definition's place.
type Span struct {
	Path       string
	Start, End int
}

// def is a definition found in the repository.
type def struct {
	Span
	inClass bool
}

// Repo holds the definitions of a repository's non-test Python files and
// the files themselves, for gold extraction.
type Repo struct {
	defs  map[string][]def
	files map[string][]byte
}

// IsTestFile reports whether a path is test code (tests are not the code a
// library function uses): a test/tests/testing folder, test_*.py,
// *_test.py or conftest.py.
func IsTestFile(p string) bool {
	for _, part := range strings.Split(path.Dir(p), "/") {
		if part == "test" || part == "tests" || part == "testing" {
			return true
		}
	}
	base := path.Base(p)
	return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py"
}

// NewRepo parses the given Python files (path -> source).
func NewRepo(files map[string][]byte) (*Repo, error) {
	r := &Repo{defs: map[string][]def{}, files: files}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if IsTestFile(p) || !strings.HasSuffix(p, ".py") {
			continue
		}
		f, err := pysrc.Parse(files[p])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		for _, d := range f.Definitions() {
			r.defs[d.Name] = append(r.defs[d.Name], def{Span{p, d.Start, d.End}, d.InClass})
		}
		f.Close()
	}
	return r, nil
}

// Gold is what a target's gold function uses: for each gold name, the
// definitions that count.
type Gold map[string][]Span

// Gold computes the gold names of the located target, whose gold function
// is the one in the repository file at tg.Path.
func (r *Repo) Gold(tg retrieve.Target) (Gold, error) {
	src, ok := r.files[tg.Path]
	if !ok {
		return nil, fmt.Errorf("target file %s is not among the repository's files", tg.Path)
	}
	f, err := pysrc.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tg.Path, err)
	}
	defer f.Close()
	fn, err := f.At(tg.Function.Start)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tg.Path, err)
	}
	uses := f.Uses(fn)
	visible := func(d def) bool {
		inTarget := d.Path == tg.Path && d.Start >= tg.Function.DeclStart && d.End <= tg.Function.End
		return !inTarget && !tg.Exclusion.Excludes(index.Candidate{Path: d.Path, Start: d.Start, End: d.End})
	}
	gold := Gold{}
	add := func(name string, keep func(def) bool) {
		for _, d := range r.defs[name] {
			if keep(d) && visible(d) {
				gold[name] = append(gold[name], d.Span)
			}
		}
	}
	for _, name := range uses.Names {
		local := false
		for _, d := range r.defs[name] {
			if d.Path == tg.Path && !d.inClass {
				local = true
			}
		}
		add(name, func(d def) bool { return !d.inClass && (d.Path == tg.Path) == local })
	}
	for _, name := range uses.Attributes {
		if builtinMethods[name] {
			continue
		}
		add(name, func(d def) bool { return d.inClass || d.Path != tg.Path })
	}
	for name, spans := range gold {
		gold[name] = dedupSpans(spans)
	}
	return gold, nil
}

// builtinMethods are the public attributes of Python 3.11's str, bytes,
// bytearray, list, dict, set, frozenset, tuple, int, float, complex and
// object.
var builtinMethods = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`add append as_integer_ratio bit_count bit_length capitalize casefold
		center clear conjugate copy count decode denominator difference difference_update discard
		encode endswith expandtabs extend find format format_map from_bytes fromhex fromkeys get hex
		imag index insert intersection intersection_update is_integer isalnum isalpha isascii
		isdecimal isdigit isdisjoint isidentifier islower isnumeric isprintable isspace issubset
		issuperset istitle isupper items join keys ljust lower lstrip maketrans numerator partition
		pop popitem real remove removeprefix removesuffix replace reverse rfind rindex rjust
		rpartition rsplit rstrip setdefault sort split splitlines startswith strip swapcase
		symmetric_difference symmetric_difference_update title to_bytes translate union update
		upper values zfill`) {
		m[n] = true
	}
	return m
}()

func dedupSpans(s []Span) []Span {
	seen := map[Span]bool{}
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// Score is one task's outcome.
type Score struct {
	Gold     int      // gold names
	Recalled []string // gold names with a definition overlapped by a retrieved block
}

// Hit reports whether any gold name was recalled.
func (s Score) Hit() bool { return len(s.Recalled) > 0 }

// Evaluate scores retrieved blocks against the gold.
func Evaluate(g Gold, results []retrieve.Result) Score {
	s := Score{Gold: len(g)}
	names := make([]string, 0, len(g))
	for n := range g {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
	spans:
		for _, sp := range g[n] {
			for _, r := range results {
				if r.Path == sp.Path && r.Start <= sp.End && sp.Start <= r.End {
					s.Recalled = append(s.Recalled, n)
					break spans
				}
			}
		}
	}
	return s
}

// Summary aggregates task scores.
type Summary struct {
	Tasks   int     // tasks scored
	Counted int     // tasks with at least one gold name
	Hit     float64 // fraction of counted tasks with a gold name recalled
	Recall  float64 // mean fraction of gold names recalled
}

// Summarize aggregates scores.
func Summarize(scores []Score) Summary {
	s := Summary{Tasks: len(scores)}
	for _, sc := range scores {
		if sc.Gold == 0 {
			continue
		}
		s.Counted++
		if sc.Hit() {
			s.Hit++
		}
		s.Recall += float64(len(sc.Recalled)) / float64(sc.Gold)
	}
	if s.Counted > 0 {
		s.Hit /= float64(s.Counted)
		s.Recall /= float64(s.Counted)
	}
	return s
}

// LoadRepo reads the Python files of the repository at root with the
// walk options (those of the index).
func LoadRepo(root string, opt index.WalkOptions) (*Repo, error) {
	files := map[string][]byte{}
	err := index.Walk(root, opt, func(f index.File) error {
		if strings.HasSuffix(f.Path, ".py") {
			files[f.Path] = f.Data
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return NewRepo(files)
}

// Project is one repository ready for scoring: its root, definitions and
// a retriever over its candidates.
type Project struct {
	Root      string
	Repo      *Repo
	Retriever *retrieve.Retriever
}

// TaskScore is one task's result.
type TaskScore struct {
	Task    *dataset.Task
	Target  retrieve.Target
	Gold    Gold
	Results []retrieve.Result
	Score
}

// TaskGold locates task t in the repository at root, whose definitions r
// holds, and returns its generation target and gold names.
func (r *Repo) TaskGold(t *dataset.Task, root string) (retrieve.Target, Gold, error) {
	tg, err := retrieve.TaskTarget(t, root)
	if err != nil {
		return tg, nil, err
	}
	g, err := r.Gold(tg)
	return tg, g, err
}

// ScoreTask locates the task in the project, retrieves the top k blocks
// for its signature and docstring (ACToRQuery with nothing generated: the
// initial query of RawRAG and ACToR) with the exclusion rule, and scores
// them.
func ScoreTask(p Project, t *dataset.Task, k int) (TaskScore, error) {
	tg, gold, err := p.Repo.TaskGold(t, p.Root)
	if err != nil {
		return TaskScore{}, err
	}
	res, err := p.Retriever.Retrieve(retrieve.ACToRQuery(tg.Prompt, ""), tg.Exclusion)
	if err != nil {
		return TaskScore{}, err
	}
	res = res[:min(k, len(res))]
	return TaskScore{Task: t, Target: tg, Gold: gold, Results: res, Score: Evaluate(gold, res)}, nil
}
