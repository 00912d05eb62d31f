// Package analysis reproduces the paper's RQ4 study of critical tokens
// from a labels directory: the share of critical tokens and the overlap of
// the three criteria (Fig. 5), and the syntax classes of critical tokens as
// absolute and relative-to-baseline distributions (Figs. 7–8), written as
// Markdown tables and PNG bar charts.
package analysis

import (
	"fmt"
	"path/filepath"

	"actor/probe"
	"actor/probe/critical"
	"actor/probe/labelstore"
	"actor/probe/syntax"
	"actor/pysrc"
)

// Regions lists the Venn-diagram regions of the three criteria in report
// order; a region is the exact set of criteria a token meets.
var Regions = []critical.Flags{
	critical.Mismatch, critical.Uncertain, critical.Influential,
	critical.Mismatch | critical.Uncertain, critical.Mismatch | critical.Influential,
	critical.Uncertain | critical.Influential, critical.AllFlags, 0,
}

// RegionName is the paper's wording for a region.
func RegionName(f critical.Flags) string {
	switch f {
	case 0:
		return "None"
	case critical.AllFlags:
		return "All three"
	}
	var s string
	for _, c := range []struct {
		f    critical.Flags
		name string
	}{{critical.Mismatch, "Mismatch"}, {critical.Uncertain, "Uncertainty"}, {critical.Influential, "Attention"}} {
		if f.Has(c.f) {
			if s != "" {
				s += " + "
			}
			s += c.name
		}
	}
	if f == critical.Mismatch || f == critical.Uncertain || f == critical.Influential {
		s += " only"
	}
	return s
}

// nClasses counts syntax classes including Whitespace and Unknown.
const nClasses = int(syntax.Unknown) + 1

// Result is the analysis of one labels directory.
type Result struct {
	// Labels names the labels folder by its last element (a report names
	// no path of the machine it ran on).
	Labels  string
	Model   probe.ModelInfo
	Rules   critical.Rules
	Samples int
	Tokens  int
	// Positions counts every position of the labelled sequences: prompt
	// tokens and target tokens. The paper's "critical tokens are 5.08–10.62
	// % of the total" reads like a share of these, not of target tokens.
	Positions int
	// Critical counts tokens critical under Rules (enabled criteria only).
	Critical int
	// Region[f] counts tokens meeting exactly the criteria f (all three
	// criteria evaluated, enabled or not).
	Region [8]int
	// Syntax[f][c] counts tokens of region f with syntax class c;
	// CriticalSyntax and AllSyntax the same for critical and all tokens.
	Syntax         [8][nClasses]int
	CriticalSyntax [nClasses]int
	AllSyntax      [nClasses]int
	// Flagged is filled by Flag when a probe is given.
	Flagged *Flagging
}

// Analyze computes the composition and syntax statistics of set under r.
func Analyze(set *labelstore.Set, r critical.Rules) (*Result, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	res := &Result{Labels: filepath.Base(set.Dir()), Model: set.Header.Model, Rules: r, Samples: len(set.Samples), Tokens: len(set.Tokens)}
	p, err := pysrc.NewParser()
	if err != nil {
		return nil, err
	}
	defer p.Close()
	for _, s := range set.Samples {
		res.Positions += s.PromptTokens + s.Tokens
		toks := set.Tokens[s.FirstRow : s.FirstRow+int64(s.Tokens)]
		spans := make([][2]int, len(toks))
		off := len(s.Prefix)
		for i, t := range toks {
			spans[i] = [2]int{-1, -1}
			if t.Start >= 0 {
				spans[i] = [2]int{off + t.Start, off + t.End}
			}
		}
		classes, err := syntax.Spans(p, []byte(s.Prefix+s.Target), spans)
		if err != nil {
			return nil, fmt.Errorf("labels %s: sample %s: %w", set.Dir(), s.ID, err)
		}
		for i, t := range toks {
			f := t.Criteria(r)
			c := classes[i]
			res.Region[f]++
			res.Syntax[f][c]++
			res.AllSyntax[c]++
			if f&r.Enabled != 0 {
				res.Critical++
				res.CriticalSyntax[c]++
			}
		}
	}
	return res, nil
}

// Share returns n as a percentage of d (0 when d is 0).
func Share(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

// Distribution turns class counts into percentages over the reported
// classes (whitespace, indent/dedent and unknown filtered out, as the
// paper does), and returns the count they are taken of.
func Distribution(counts [nClasses]int) ([]float64, int) {
	var n int
	for _, c := range syntax.Reported {
		n += counts[c]
	}
	out := make([]float64, len(syntax.Reported))
	for i, c := range syntax.Reported {
		out[i] = Share(counts[c], n)
	}
	return out, n
}

// Relative divides a distribution by the baseline's, class by class
// (0 where the baseline has none).
func Relative(dist, base []float64) []float64 {
	out := make([]float64, len(dist))
	for i := range dist {
		if base[i] > 0 {
			out[i] = dist[i] / base[i]
		}
	}
	return out
}
