package retrieve

import (
	"fmt"
	"strings"

	"actor/index"
)

// Scorer ranks the candidates of a corpus for a query text: the k best
// among those keep accepts (all when keep is nil), best first.
type Scorer interface {
	TopK(query string, k int, keep func(i int) bool) ([]Hit, error)
}

// Result is a retrieved candidate with its score.
type Result struct {
	index.Candidate
	Score float64
	// Source says where a snippet came from (SourceSimilarity, the
	// retriever's, is ""); Why, for the other sources, why it is shown.
	Source, Why string
}

// Exclusion hides the target function's own lines: candidates from the
// target's file that do not end before its first line (the benchmarks'
// context_start_lineno). The zero value hides nothing.
type Exclusion struct {
	Path      string
	StartLine int
}

// Excludes reports whether c must not be shown for the target.
func (e Exclusion) Excludes(c index.Candidate) bool {
	return e.Path != "" && c.Path == e.Path && c.End >= e.StartLine
}

// Retriever runs one retrieval: the Depth best candidates by Scorer (the
// authors' top 50), with the exclusion applied before ranking, of which the
// first Keep (10) are returned.
type Retriever struct {
	Candidates []index.Candidate
	Scorer     Scorer
	Depth      int
	Keep       int
}

// New returns a retriever with the paper's depth 50 and 10 kept blocks.
func New(cands []index.Candidate, s Scorer) *Retriever {
	return &Retriever{Candidates: cands, Scorer: s, Depth: 50, Keep: 10}
}

// Retrieve returns the best blocks for the query, best first.
func (r *Retriever) Retrieve(query string, ex Exclusion) ([]Result, error) {
	hits, err := r.Scorer.TopK(query, r.Depth, func(i int) bool { return !ex.Excludes(r.Candidates[i]) })
	if err != nil {
		return nil, err
	}
	n := min(len(hits), r.Keep)
	out := make([]Result, n)
	for i, h := range hits[:n] {
		if h.Index < 0 || h.Index >= len(r.Candidates) {
			return nil, fmt.Errorf("retrieval: scorer returned candidate %d of %d", h.Index, len(r.Candidates))
		}
		out[i] = Result{Candidate: r.Candidates[h.Index], Score: h.Score}
	}
	return out, nil
}

// SameBlocks reports whether two retrievals selected the same blocks (same
// count and the same path and lines at every rank), ACToR's test for a
// context change after a critical token.
func SameBlocks(a, b []Result) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Path != b[i].Path || a[i].Start != b[i].Start || a[i].End != b[i].End {
			return false
		}
	}
	return true
}

// ACToRQuery is the authors' retrieval query: the lines of the target's
// signature and docstring followed by the non-blank lines generated so far
// (critical token included), joined by newlines.
func ACToRQuery(targetPrompt, generated string) string {
	lines := strings.Split(strings.TrimSuffix(targetPrompt, "\n"), "\n")
	for _, l := range strings.Split(generated, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
