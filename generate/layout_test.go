package generate

import (
	"actor/internal/testsupport"
	"testing"

	"actor/engine"
	"actor/index"
	"actor/retrieve"
)

// listRetriever returns first for the target prompt alone and second for
// any critical token's query.
type listRetriever struct {
	prompt        string
	first, second []retrieve.Result
}

func (l *listRetriever) Retrieve(q string, _ retrieve.Exclusion) ([]retrieve.Result, error) {
	if q == l.prompt {
		return l.first, nil
	}
	return l.second, nil
}

// threeBlocks are the tiny repository's two blocks and a third file's.
func threeBlocks(t *testing.T) (text, math, other retrieve.Result) {
	t.Helper()
	files := map[string]string{"lib/misc.py": "def half(x):\n    return x / 2\n"}
	for k, v := range tinyRepo {
		files[k] = v
	}
	c, err := ReadCorpus(testsupport.WriteTree(t, t.TempDir(), files), index.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return block(blockOf(t, c, "lib/text.py")), block(blockOf(t, c, "lib/math.py")), block(blockOf(t, c, "lib/misc.py"))
}

// twoBlockRun generates with an always-critical probe, a two-block budget
// and r; it returns the sample and the prefilled sequences.
func twoBlockRun(t *testing.T, r Retriever, opt ACToROptions) (*Sample, [][]int32) {
	t.Helper()
	m, tok := loadTiny(t)
	var seqs [][]int32
	d := newDecoder(t, m, tok, DecoderOptions{OnPrefill: func(seq []int32, _ engine.Prediction) { seqs = append(seqs, seq) }})
	cfg := tinyConfig()
	cfg.Budget = retrieve.Budget{MaxTokens: 120, MaxBlocks: 2}
	cfg.MaxNewTokens = 6
	opt.Probe = testsupport.ConstProbe(m.Config.Embed, 10)
	g, err := NewACToR(d, cfg, r, opt)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Generate(t.Context(), tinyTarget, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, seqs
}

func TestACToRReorderIsAChangeOnlyByOrder(t *testing.T) {
	text, math, _ := threeBlocks(t)
	r := &listRetriever{prompt: tinyTarget.Prompt, first: []retrieve.Result{text, math}, second: []retrieve.Result{math, text}}
	for _, tc := range []struct {
		opt     ACToROptions
		changes int
	}{
		{ACToROptions{}, 1},                     // the authors' rule: new order, a change
		{ACToROptions{Change: ChangeOrder}, 1},  // the same, named
		{ACToROptions{Change: ChangeSet}, 0},    // the same set: no change
		{ACToROptions{Layout: LayoutStable}, 0}, // blocks keep their place
	} {
		s, seqs := twoBlockRun(t, r, tc.opt)
		if s.Trace.ContextChanges != tc.changes || s.Trace.Triggers < 2 {
			t.Errorf("%+v: %d changes in %d triggers, want %d", tc.opt, s.Trace.ContextChanges, s.Trace.Triggers, tc.changes)
		}
		if tc.changes == 0 && (len(seqs) != 1 || s.Trace.ReprefillTokens != 0) {
			t.Errorf("%+v: %d prefills, %d tokens re-prefilled without a change", tc.opt, len(seqs), s.Trace.ReprefillTokens)
		}
	}
}

func TestACToRStableLayoutKeepsThePrefix(t *testing.T) {
	text, math, other := threeBlocks(t)
	// The critical retrieval drops math and ranks a new block above text.
	r := &listRetriever{prompt: tinyTarget.Prompt, first: []retrieve.Result{text, math}, second: []retrieve.Result{other, text}}
	reprefilled := map[Layout]int{}
	for _, l := range Layouts {
		s, seqs := twoBlockRun(t, r, ACToROptions{Layout: l})
		if s.Trace.ContextChanges != 1 || len(seqs) != 2 {
			t.Fatalf("%s: %d changes, %d prefills; want one change", l, s.Trace.ContextChanges, len(seqs))
		}
		a := s.Trace.Attempts[0]
		_, ev := changeEvent(t, a)
		want := "lib/misc.py lib/text.py"
		if l == LayoutStable {
			want = "lib/text.py lib/misc.py"
		}
		if got := blockPaths(ev.After); got != want {
			t.Errorf("%s: blocks after the change %s, want %s", l, got, want)
		}
		// The rebuilt prompt re-prefills what follows the prefix it shares
		// with the cached one (prompt + body), at least its last token;
		// the ranked layout shares so little that it gets a fresh cache.
		lcp := commonPrefix(seqs[0], seqs[1])
		if l == LayoutRanked {
			lcp = 0
		}
		if ev.Reprefilled != len(seqs[1])-lcp || s.Trace.ReprefillTokens != ev.Reprefilled {
			t.Errorf("%s: re-prefilled %d (trace %d), want %d of %d", l, ev.Reprefilled, s.Trace.ReprefillTokens, len(seqs[1])-lcp, len(seqs[1]))
		}
		reprefilled[l] = ev.Reprefilled
	}
	// The stable prompt keeps text's block, the first one, token for token.
	_, tok := loadTiny(t)
	head := len(tok.Encode("# file path: lib/text.py\n\n"+"# def shout(s):\n#     return s.upper()", true))
	if reprefilled[LayoutRanked]-reprefilled[LayoutStable] < head-2 {
		t.Errorf("stable layout re-prefilled %d tokens, ranked %d: the kept block is %d tokens", reprefilled[LayoutStable], reprefilled[LayoutRanked], head)
	}
}

func TestACToRRejectsUnknownSwitches(t *testing.T) {
	m, tok := loadTiny(t)
	d := newDecoder(t, m, tok)
	if _, err := NewACToR(d, tinyConfig(), nil, ACToROptions{Layout: "sorted"}); err == nil {
		t.Error("layout sorted accepted")
	}
	if _, err := NewACToR(d, tinyConfig(), nil, ACToROptions{Change: "any"}); err == nil {
		t.Error("change rule any accepted")
	}
}

func blockPaths(bs []Block) string {
	s := ""
	for i, b := range bs {
		if i > 0 {
			s += " "
		}
		s += b.Path
	}
	return s
}
