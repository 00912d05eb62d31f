package experiment

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"actor/dataset"
	"actor/generate"
	"actor/index"
	"actor/retrieve"
	"actor/retrieve/recall"
)

// What retrieval showed the model: does a sample's prompt hold the
// repository code its task's gold function uses (gold names, as `actor
// recall` defines them in retrieve/recall)? It tells a context change
// that brought the code the task needs from one that did not, and
// retrieval that found the code from a model that could not use it.

// contexts are the blocks one sample was generated with: its first
// prompt's, its final prompt's (the last attempt's after its last context
// change: the prompt its last token was drawn with) and each context
// change's before and after.
type contexts struct {
	first, final []generate.Block
	changes      [][2][]generate.Block
}

// sampleContexts reads a trace's contexts.
func sampleContexts(tr generate.Trace) contexts {
	var c contexts
	for i, a := range tr.Attempts {
		if i == 0 {
			c.first = a.Blocks
		}
		c.final = a.Blocks
		for _, e := range a.Events {
			if e.Changed {
				c.changes = append(c.changes, [2][]generate.Block{e.Before, e.After})
				c.final = e.After
			}
		}
	}
	return c
}

// blockNames names blocks by file and lines, in their order.
func blockNames(bs []generate.Block) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = fmt.Sprintf("%s:%d-%d", b.Path, b.Start, b.End)
	}
	return out
}

// firstKey names the blocks of the first prompt, in their order.
func (c contexts) firstKey() string { return strings.Join(blockNames(c.first), ";") }

// reorders counts the context changes whose new blocks are the old ones
// in another order (the authors' rule counts them: the token is re-drawn
// with the same information).
func (c contexts) reorders() int {
	set := func(bs []generate.Block) []string {
		names := blockNames(bs)
		slices.Sort(names)
		return names
	}
	n := 0
	for _, ch := range c.changes {
		if slices.Equal(set(ch[0]), set(ch[1])) {
			n++
		}
	}
	return n
}

// goldTasks returns the gold names of every task of the experiment that
// has any, or a reason why they cannot be known here (the repositories or
// the data are not where the settings say).
func (p *Plan) goldTasks() (map[string]recall.Gold, string) {
	set, err := dataset.Load(p.Settings.Benchmark, p.Settings.Data)
	if err != nil {
		return nil, err.Error()
	}
	repos := map[string]*recall.Repo{}
	out := map[string]recall.Gold{}
	for i := range set.Tasks {
		t := &set.Tasks[i]
		if !slices.Contains(p.Settings.Tasks, t.ID) {
			continue
		}
		root, err := t.Root(p.Settings.Repos)
		if err != nil {
			return nil, err.Error()
		}
		repo, ok := repos[root]
		if !ok {
			if repo, err = recall.LoadRepo(root, index.WalkOptions{}); err != nil {
				return nil, err.Error()
			}
			repos[root] = repo
		}
		_, g, err := repo.TaskGold(t, root)
		if err != nil {
			return nil, err.Error()
		}
		if len(g) > 0 {
			out[t.ID] = g
		}
	}
	return out, ""
}

// shown is how many of the gold names the blocks show.
func shown(g recall.Gold, blocks []generate.Block) int {
	rs := make([]retrieve.Result, len(blocks))
	for i, b := range blocks {
		rs[i] = retrieve.Result{Candidate: index.Candidate{Path: b.Path, Start: b.Start, End: b.End}}
	}
	return len(recall.Evaluate(g, rs).Recalled)
}

// goldRow is one configuration's figures.
type goldRow struct {
	label string
	// samples of tasks with gold names; firstShown, finalShown: those
	// whose first / final prompt shows one; recall: summed share of gold
	// names the final prompt shows.
	samples, firstShown, finalShown int
	recall                          float64
	// passShown, passHidden: passing samples among those whose final
	// prompt shows / does not show a gold name.
	passShown, passHidden int
	// more, fewer, same: context changes after which the prompt shows
	// more, fewer or as many gold names.
	more, fewer, same int
}

// goldRows computes every configuration with retrieval over its tested
// samples of tasks with gold names.
func (p *Plan) goldRows(rows []row, gold map[string]recall.Gold) ([]goldRow, error) {
	var out []goldRow
	for _, r := range rows {
		if r.t == nil || !r.t.retrieves {
			continue
		}
		recs, err := p.records(r.Name)
		if err != nil {
			return nil, err
		}
		g := goldRow{label: r.Label}
		for _, rec := range recs {
			k := sampleKey{rec.TaskID, rec.Sample}
			c, ok := r.t.contexts[k]
			names := gold[rec.TaskID]
			if !ok || len(names) == 0 {
				continue
			}
			g.samples++
			g.firstShown += b2i(shown(names, c.first) > 0)
			fin := shown(names, c.final)
			g.recall += float64(fin) / float64(len(names))
			if fin > 0 {
				g.finalShown++
				g.passShown += b2i(rec.Passed)
			} else {
				g.passHidden += b2i(rec.Passed)
			}
			for _, ch := range c.changes {
				switch before, after := shown(names, ch[0]), shown(names, ch[1]); {
				case after > before:
					g.more++
				case after < before:
					g.fewer++
				default:
					g.same++
				}
			}
		}
		out = append(out, g)
	}
	return out, nil
}

// goldSection is the report's section on what retrieval showed.
func (p *Plan) goldSection(rows []row) (string, error) {
	gold, why := p.goldTasks()
	if why != "" {
		return "Not computed: " + why + ".\n", nil
	}
	grs, err := p.goldRows(rows, gold)
	if err != nil || len(grs) == 0 {
		return "", err
	}
	var b bytes.Buffer
	b.WriteString("| configuration | samples | first prompt shows gold code | final prompt shows gold code | gold names shown (final) | passed: gold shown / not shown | context changes: more / fewer / as many gold names |\n" +
		"|---|---:|---:|---:|---:|---:|---:|\n")
	pct := func(n, of int) string { return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(max(1, of))) }
	for _, g := range grs {
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %.1f %% | %d of %d / %d of %d | %d / %d / %d |\n", g.label, g.samples,
			pct(g.firstShown, g.samples), pct(g.finalShown, g.samples), 100*g.recall/float64(max(1, g.samples)),
			g.passShown, g.finalShown, g.passHidden, g.samples-g.finalShown, g.more, g.fewer, g.same)
	}
	fmt.Fprintf(&b, "\nGold code: the repository definitions a task's gold function uses (names it reads that resolve to "+
		"definitions outside the lines the exclusion rule hides; `actor recall`, retrieve/recall), shown when a "+
		"prompt's block overlaps one. %d of the %d tasks have gold names; the table counts their tested samples. "+
		"The final prompt is the one a sample's last token was drawn with (RepoCoder's second round; ACToR's after its "+
		"last context change).\n", len(gold), len(p.Settings.Tasks))
	return b.String(), nil
}
