package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"actor/bench/stats"
)

// infillModes are the modes asked of /infill, compared over the lines
// all of them answered; the other modes (completions, a -label's) are
// compared among themselves.
var infillModes = []string{"none", "chunks", "repo", "both", "actor"}

// reportModes are the modes the report compares, in its order: the
// /infill modes and "always", the completions written with the
// repository's context that a server chose from (repo's answers are the
// chosen ones).
var reportModes = []string{"none", "chunks", "always", "repo", "both", "actor"}

// report prints exact match and edit similarity by language and mode
// (with "always", the completions with the repository's context a
// server chose from, where its repo answers carry the choice, and their
// candidates without it standing for none where none was not asked; the
// times are of the answers asked),
// with the median request time and the share of prompt tokens cached,
// over the lines every mode of a group answered (a run in progress
// compares like with like); then each context against none, line by
// line, with 95 % bootstrap intervals over lines, by language and over
// all languages. With -needing FILE (names -needing's lines, of any
// number of languages, the flag repeated), the differences again over
// the lines needing a name the prompt's file text lacks, and over the
// others, for the languages with lines in those files: context can help
// the first through names, and only distract on the second. Last, how
// often a server's choices took the context's completion.
func report(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	var needingFiles []string
	fs.Func("needing", "lines needing a name (names -needing's output; repeat for several)", func(v string) error {
		needingFiles = append(needingFiles, v)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		return errors.New("report: give results files")
	}
	// the lines needing a name, and the languages the -needing files
	// cover (those of no line there are not split)
	var needing map[lineKey]bool
	split := map[string]bool{}
	for _, f := range needingFiles {
		lines, err := readLines[lineKey](f)
		if err != nil {
			return err
		}
		if needing == nil {
			needing = map[lineKey]bool{}
		}
		for _, l := range lines {
			needing[l], split[l.Lang] = true, true
		}
	}
	byLang := map[string]map[string]map[string]result{} // lang → mode → id
	for _, f := range files {
		rs, err := readLines[result](f)
		if err != nil {
			return err
		}
		for _, r := range rs {
			add(byLang, r)
			if c := r.Choice; c != nil && r.Mode == "repo" {
				add(byLang, r.candidateAs("always", c.With))
			}
		}
	}
	if n := deriveNone(byLang); n > 0 {
		fmt.Fprintf(w, "Note: %d repo answers without a choice (their prompt showed no repository context) have no none answer: ask them with -mode none.\n\n", n)
	}
	if n, of := unlikeNone(byLang); n > 0 {
		fmt.Fprintf(w, "Warning: on %d of %d lines none's answer is not the chosen answer's candidate without the context.\n\n", n, of)
	}
	fmt.Fprintln(w, "| language | context | lines | exact match % | edit similarity % | p50 s | prompt tokens cached % |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	// mode → differences from none, all languages: all lines, the lines
	// needing a name, the others
	pairs, need, rest := map[string]*pairedDiffs{}, map[string]*pairedDiffs{}, map[string]*pairedDiffs{}
	var langs []string
	for _, lang := range sortedKeys(byLang) {
		modes := byLang[lang]
		for _, group := range groups(modes) {
			common := commonLines(modes, group)
			if len(common) == 0 {
				fmt.Fprintf(w, "| %s | %s: no line answered by all | | | | | |\n", lang, strings.Join(group, ", "))
				continue
			}
			for _, mode := range group {
				printRow(w, lang, mode, modes[mode], common)
			}
			if group[0] != "none" {
				continue
			}
			langs = append(langs, lang)
			var needLines, restLines []string
			for _, id := range common {
				if needing[lineKey{lang, id}] {
					needLines = append(needLines, id)
				} else {
					restLines = append(restLines, id)
				}
			}
			for _, mode := range group[1:] {
				addPaired(pairs, mode, lang, modes, common)
				if split[lang] {
					addPaired(need, mode, lang, modes, needLines)
					addPaired(rest, mode, lang, modes, restLines)
				}
			}
		}
	}
	if err := printPaired(w, "", pairs, langs); err != nil {
		return err
	}
	if err := printPaired(w, "Lines needing a name the prompt's file text lacks:", need, langs); err != nil {
		return err
	}
	if err := printPaired(w, "The other lines:", rest, langs); err != nil {
		return err
	}
	printChoices(w, byLang)
	return nil
}

// printChoices prints, per language, how many repo answers a server chose
// between its completions with and without the context, and how often it
// took the context's (nothing when none was chosen).
func printChoices(w io.Writer, byLang map[string]map[string]map[string]result) {
	header := false
	for _, lang := range sortedKeys(byLang) {
		n, taken := 0, 0
		for _, r := range byLang[lang]["repo"] {
			if r.Choice != nil {
				n++
				if r.Choice.Context {
					taken++
				}
			}
		}
		if n == 0 {
			continue
		}
		if !header {
			fmt.Fprintln(w, "\n| language | repo answers chosen | the context's taken |\n|---|---|---|")
			header = true
		}
		fmt.Fprintf(w, "| %s | %d | %d (%.0f %%) |\n", lang, n, taken, 100*float64(taken)/float64(n))
	}
}

// deriveNone gives each line with a chosen repo answer and no none
// answer its candidate without the context as none's: the same prompt
// (llama.cpp's), so a run need not ask it twice. It returns how many
// repo answers without a choice have no none answer.
func deriveNone(byLang map[string]map[string]map[string]result) (missing int) {
	for _, modes := range byLang {
		for id, r := range modes["repo"] {
			if _, ok := modes["none"][id]; ok {
				continue
			}
			if r.Choice == nil {
				missing++
				continue
			}
			add(byLang, r.candidateAs("none", r.Choice.Without))
		}
	}
	return missing
}

// unlikeNone counts the lines whose none answer differs from their repo
// answer's candidate without the context, of the lines with both: the
// two are the same prompt, so a difference means another build, or the
// prompt computed from another cache state (ggml rounds a row otherwise
// by how many rows a pass computes, so the part of a prompt taken from
// the cache moves the logits a little, and a near tie can flip).
func unlikeNone(byLang map[string]map[string]map[string]result) (n, of int) {
	for _, modes := range byLang {
		for id, r := range modes["repo"] {
			if none, ok := modes["none"][id]; ok && !none.derived && r.Choice != nil {
				of++
				if none.Got != r.Choice.Without.Got {
					n++
				}
			}
		}
	}
	return n, of
}

// candidateAs is the record of one of r's candidates as the answer of
// mode (derived: its time is r's).
func (r result) candidateAs(mode string, c candidate) result {
	return result{ID: r.ID, Lang: r.Lang, Mode: mode, Target: r.Target, Got: c.Got, Exact: c.Exact, EditSim: c.EditSim, derived: true}
}

// add files a result by language, mode and line.
func add(byLang map[string]map[string]map[string]result, r result) {
	if byLang[r.Lang] == nil {
		byLang[r.Lang] = map[string]map[string]result{}
	}
	if byLang[r.Lang][r.Mode] == nil {
		byLang[r.Lang][r.Mode] = map[string]result{}
	}
	byLang[r.Lang][r.Mode][r.ID] = r
}

// addPaired adds a language's differences of mode from none over lines.
func addPaired(pairs map[string]*pairedDiffs, mode, lang string, modes map[string]map[string]result, lines []string) {
	if len(lines) == 0 {
		return
	}
	if pairs[mode] == nil {
		pairs[mode] = &pairedDiffs{}
	}
	pairs[mode].add(lang, modes["none"], modes[mode], lines)
}

// printPaired prints each context's differences from none, by language
// and pooled, under a title ("": none); nothing when there are none.
func printPaired(w io.Writer, title string, pairs map[string]*pairedDiffs, langs []string) error {
	if len(pairs) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	if title != "" {
		fmt.Fprintln(w, title)
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "| language | context − none | lines | exact match, points [95 %] | edit similarity, points [95 %] | lines more / less similar |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, mode := range reportModes[1:] {
		p := pairs[mode]
		if p == nil {
			continue
		}
		for _, lang := range langs {
			if d := p.byLang[lang]; d != nil {
				if err := d.print(w, lang, mode); err != nil {
					return err
				}
			}
		}
		if len(p.byLang) > 1 {
			if err := p.all.print(w, "all", mode); err != nil {
				return err
			}
		}
	}
	return nil
}

// groups splits a language's modes into the /infill modes (none first)
// and the others, each group in its display order.
func groups(modes map[string]map[string]result) [][]string {
	var infill, other []string
	for _, m := range reportModes {
		if modes[m] != nil {
			infill = append(infill, m)
		}
	}
	for _, m := range sortedKeys(modes) {
		if !slices.Contains(reportModes, m) {
			other = append(other, m)
		}
	}
	return slices.DeleteFunc([][]string{infill, other}, func(g []string) bool { return len(g) == 0 })
}

// commonLines are the ids every mode of group answered, sorted.
func commonLines(modes map[string]map[string]result, group []string) []string {
	var out []string
	for id := range modes[group[0]] {
		all := true
		for _, m := range group[1:] {
			if _, ok := modes[m][id]; !ok {
				all = false
			}
		}
		if all {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// printRow prints a mode's scores over the common lines.
func printRow(w io.Writer, lang, mode string, rs map[string]result, common []string) {
	var exact, cached, prompt int
	var sim float64
	var secs []float64
	for _, id := range common {
		r := rs[id]
		if r.Exact {
			exact++
		}
		sim += r.EditSim
		if r.derived { // its time is its choice's
			continue
		}
		secs = append(secs, r.Seconds)
		cached += r.CacheN
		prompt += r.CacheN + r.PromptN
	}
	n := float64(len(common))
	if len(secs) == 0 {
		fmt.Fprintf(w, "| %s | %s | %d | %.1f | %.1f | – | – |\n", lang, mode, len(common), 100*float64(exact)/n, 100*sim/n)
		return
	}
	fmt.Fprintf(w, "| %s | %s | %d | %.1f | %.1f | %.2f | %.0f |\n", lang, mode, len(common), 100*float64(exact)/n,
		100*sim/n, median(secs), 100*float64(cached)/float64(max(1, prompt)))
}

// diffs are the per-line differences of a context from none, in points.
type diffs struct{ exact, sim []float64 }

// pairedDiffs are a mode's differences from none by language and pooled.
type pairedDiffs struct {
	byLang map[string]*diffs
	all    diffs
}

func (p *pairedDiffs) add(lang string, none, mode map[string]result, common []string) {
	if p.byLang == nil {
		p.byLang = map[string]*diffs{}
	}
	d := &diffs{}
	for _, id := range common {
		e := 0.0
		switch a, b := none[id].Exact, mode[id].Exact; {
		case b && !a:
			e = 100
		case a && !b:
			e = -100
		}
		d.exact = append(d.exact, e)
		d.sim = append(d.sim, 100*(mode[id].EditSim-none[id].EditSim))
	}
	p.byLang[lang] = d
	p.all.exact = append(p.all.exact, d.exact...)
	p.all.sim = append(p.all.sim, d.sim...)
}

// print prints the mean differences with their intervals (seed 1).
func (d diffs) print(w io.Writer, lang, mode string) error {
	e, err := stats.Bootstrap(d.exact, stats.Resamples, 1)
	if err != nil {
		return err
	}
	s, err := stats.Bootstrap(d.sim, stats.Resamples, 1)
	if err != nil {
		return err
	}
	better, worse := 0, 0
	for _, x := range d.sim {
		if x > 0 {
			better++
		} else if x < 0 {
			worse++
		}
	}
	fmt.Fprintf(w, "| %s | %s | %d | %+.1f [%+.1f, %+.1f] | %+.1f [%+.1f, %+.1f] | %d / %d |\n", lang, mode, len(d.sim),
		mean(d.exact), e.Lo, e.Hi, mean(d.sim), s.Lo, s.Hi, better, worse)
	return nil
}

// median is the middle value of xs, or the mean of the two middle ones.
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
