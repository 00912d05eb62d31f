package generate

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"actor/engine"
	"actor/index"
	"actor/retrieve"
)

// reuseBlocks are four small blocks and the target they precede.
var reuseBlocks = map[string]retrieve.Result{
	"a": block(index.Candidate{Path: "lib/a.py", Start: 1, End: 2, Text: "def a(x):\n    return x + 1"}),
	"b": block(index.Candidate{Path: "lib/b.py", Start: 1, End: 1, Text: "B = 2"}),
	"c": block(index.Candidate{Path: "lib/c.py", Start: 3, End: 3, Text: "def c(): pass"}),
	"d": block(index.Candidate{Path: "lib/d.py", Start: 1, End: 2, Text: "def d(y):\n    return a(y)"}),
}

// reusePrompt lays out the named blocks before the target, best first.
func reusePrompt(t *testing.T, names ...string) retrieve.Prompt {
	t.Helper()
	var res []retrieve.Result
	for _, n := range names {
		res = append(res, reuseBlocks[n])
	}
	p, err := retrieve.ACToRPrompt(res, "lib/t.py", "def t(z):\n", wordCounter{}, retrieve.DefaultBudget)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// wordCounter counts words, enough for a budget the test never reaches.
type wordCounter struct{}

func (wordCounter) CountTokens(s string) (int, error) { return len(s) / 4, nil }

// reuseGen is the tokens generated after the first prompt of the reuse tests.
var reuseGen = []int32{40, 41, 42}

// decodeThenChange prefills the prompt of blocks a, b, c, steps reuseGen,
// then prefills (placing blocks) the prompt of d, a, b followed by
// reuseGen: a new best block, so the ranked layout moves a and b. It
// returns the first prompt's tokens and spans, the new sequence, its
// spans, the prediction after it and the tokens that prefill evaluated.
func decodeThenChange(t *testing.T, d *Decoder) (ids []int32, spans []tokenSpan, seq []int32, spans2 []tokenSpan, pred engine.Prediction, evaluated int) {
	t.Helper()
	ids, spans = d.encode(reusePrompt(t, "a", "b", "c"), false)
	if _, err := d.prefill(ids, spans, false); err != nil {
		t.Fatal(err)
	}
	for _, g := range reuseGen {
		if _, err := d.step(g); err != nil {
			t.Fatal(err)
		}
	}
	ids2, spans2 := d.encode(reusePrompt(t, "d", "a", "b"), false)
	seq = append(slices.Clone(ids2), reuseGen...)
	w0 := d.stats.Evaluated
	pred, err := d.prefill(seq, spans2, true)
	if err != nil {
		t.Fatal(err)
	}
	return ids, spans, seq, spans2, pred, d.stats.Evaluated - w0
}

// After a context change with block KV reuse, the blocks the first prompt
// showed are placed from the store (harvested from its cache), a new block
// is computed alone, and only it, the target's prompt and the generated
// tokens are evaluated. Placing blocks where they were computed, after the
// same blocks, gives exactly the logits of a plain prefill.
func TestBlockReuseAfterContextChange(t *testing.T) {
	m, tok := loadTiny(t)
	d := newDecoder(t, m, tok)
	d.opt.Blocks = NewBlockStore(0)
	defer d.opt.Blocks.Close()

	ids, spans, seq, spans2, moved, evaluated := decodeThenChange(t, d)
	first := reusePrompt(t, "a", "b", "c")
	if len(spans) != 3 || spans[0].start != 0 || spans[2].end >= len(ids) {
		t.Fatalf("spans %v of %d tokens, want 3 blocks before the target", spans, len(ids))
	}
	for i, sp := range spans { // each span is its block's text alone
		text := first.Text[first.Spans[i].Start:first.Spans[i].End]
		if !slices.Equal(ids[sp.start:sp.end], tok.Encode(text, i == 0)) {
			t.Errorf("span %d holds other tokens than its text %q", i, text)
		}
	}
	gen := reuseGen
	dTokens := spans2[0].end - spans2[0].start
	ab := spans2[2].end - spans2[0].end
	target := len(seq) - len(gen) - spans2[2].end
	st := d.opt.Blocks.Stats()
	if got, want := evaluated, dTokens+target+len(gen); got != want {
		t.Errorf("the prompt after the change evaluated %d tokens, want %d (d alone %d + target %d + generated %d)",
			got, want, dTokens, target, len(gen))
	}
	if st.Placed != ab || st.Computed != dTokens || st.Harvested != spans[2].end {
		t.Errorf("store %+v, want %d placed (a, b), %d computed (d), %d harvested (a, b, c)", st, ab, dTokens, spans[2].end)
	}

	// Back to the first blocks in a fresh decoder sharing the store: a, b
	// and c are placed where they were computed, after the same blocks.
	d2 := newDecoder(t, m, tok)
	d2.opt.Blocks = d.opt.Blocks
	seq1 := append(slices.Clone(ids), gen...)
	got, err := d2.prefill(seq1, spans, true)
	if err != nil {
		t.Fatal(err)
	}
	if n := d2.stats.Evaluated; n != len(ids)-spans[2].end+len(gen) {
		t.Errorf("the first prompt again evaluated %d tokens, want the target and generated ones, %d", n, len(ids)-spans[2].end+len(gen))
	}
	fresh, err := m.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	want, err := fresh.Prefill(seq1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Logits {
		if got.Logits[i] != want.Logits[i] {
			t.Fatalf("logit %d: %g with placed blocks, %g from a plain prefill", i, got.Logits[i], want.Logits[i])
		}
	}
	d2.opt.CheckReuse = true
	rc, err := d2.checkReuse(seq1, got)
	if err != nil || rc.KL != 0 || !rc.SameTop1 || rc.ExactEvaluated != len(seq1) {
		t.Errorf("check of an exact placement: %+v, %v; want KL 0, same top token, %d tokens evaluated", rc, err, len(seq1))
	}
	// The moved blocks of the change above are an approximation: the
	// check sees it.
	rc, err = d2.checkReuse(seq, moved)
	if err != nil || rc.KL <= 0 {
		t.Errorf("check of moved blocks: %+v, %v; want a positive KL", rc, err)
	}
}

// A prompt whose block spans do not fall on token boundaries gets no spans
// from the first one that does not, and is then decoded exactly.
func TestPromptTokensStopAtMisalignedSpan(t *testing.T) {
	m, tok := loadTiny(t)
	d := newDecoder(t, m, tok)
	d.opt.Blocks = NewBlockStore(0)
	defer d.opt.Blocks.Close()
	p := reusePrompt(t, "a", "b")
	p.Spans[1].Start++ // no longer where the first span ends
	if _, spans := d.encode(p, false); len(spans) != 1 {
		t.Errorf("spans %v, want only the first", spans)
	}
	d.opt.Blocks = nil
	if _, spans := d.encode(p, false); spans != nil {
		t.Errorf("spans %v without a block store", spans)
	}
}

// Through ACToR's loop: the change from shout to double places nothing
// (double is new, computed alone at position 0, where the exact prefill
// computes it too, after nothing), so the check finds the exact prediction.
func TestACToRBlockReuseCheck(t *testing.T) {
	store := NewBlockStore(0)
	_, _, s, _, _ := swapSetup(t, DecoderOptions{Blocks: store, CheckReuse: true}, nil)
	defer store.Close()
	_, ev := changeEvent(t, s.Trace.Attempts[0])
	if ev.Reuse == nil || ev.Reuse.KL > 1e-9 || !ev.Reuse.SameTop1 || ev.Placed != 0 {
		t.Errorf("change event %+v, reuse check %+v: want nothing placed and the exact prediction", ev, ev.Reuse)
	}
	if st := store.Stats(); st.Computed == 0 || st.Harvested == 0 || ev.Reprefilled != ev.Reuse.ExactEvaluated || ev.Alone != st.Computed {
		t.Errorf("store %+v; re-prefilled %d (%d alone), exact %d: want shout harvested, double computed alone (and traced so), as many tokens as the exact prefill",
			st, ev.Reprefilled, ev.Alone, ev.Reuse.ExactEvaluated)
	}
}

// With ReuseTail the target's prompt and the generated tokens move too:
// after the change only the new block (alone) and the last token are
// computed.
// With one KV cache the prompt after the change is built in the cache
// that holds the prompt before it (as with the stable layout, whose
// common prefix is longest there): the tail is still found.
func TestTailReuseComputesOnlyTheLastToken(t *testing.T) {
	m, tok := loadTiny(t)
	for _, caches := range []int{DefaultSessions, 1} {
		d := newDecoder(t, m, tok, DecoderOptions{Sessions: caches, Blocks: NewBlockStore(0), ReuseTail: true})
		defer d.opt.Blocks.Close()
		_, _, seq, spans2, got, evaluated := decodeThenChange(t, d)
		dTokens := spans2[0].end - spans2[0].start
		tail := len(seq) - 1 - spans2[2].end
		if n := evaluated; n != dTokens+1 {
			t.Errorf("%d caches: evaluated %d tokens after the change, want %d (d alone) + 1", caches, n, dTokens)
		}
		if st := d.opt.Blocks.Stats(); st.Tail != tail || d.placedTokens != spans2[2].end-spans2[0].end+tail {
			t.Errorf("%d caches: store %+v, placed %d: want a tail of %d tokens", caches, st, d.placedTokens, tail)
		}
		if !slices.Equal(d.cur.sess.Tokens(), seq) || len(got.Logits) != m.Config.Vocab {
			t.Errorf("%d caches: the cache holds %d tokens, want the %d of the new sequence", caches, d.cur.sess.Len(), len(seq))
		}
	}
}

// A store kept in a folder (Persist) writes every block it harvests or
// computes there; a new store on the same folder, as a later process
// would make, places them from the files: the first prompt again
// evaluates only the target and the generated tokens, with the logits of
// a plain prefill bit for bit. An unreadable file is a miss, replaced
// when the block is computed again.
func TestBlockStorePersists(t *testing.T) {
	m, tok := loadTiny(t)
	dir := t.TempDir()
	d := newDecoder(t, m, tok)
	d.opt.Blocks = NewBlockStore(0)
	if err := d.opt.Blocks.Persist(dir, m); err != nil {
		t.Fatal(err)
	}
	ids, spans, _, spans2, _, _ := decodeThenChange(t, d)
	st := d.opt.Blocks.Stats()
	d.opt.Blocks.Close()
	if dTokens := spans2[0].end - spans2[0].start; st.Stored != st.Harvested+st.Computed || st.Stored != spans[2].end+dTokens {
		t.Fatalf("stored %d block tokens, want the %d harvested and %d computed", st.Stored, st.Harvested, st.Computed)
	}

	later := func() (*Decoder, engine.Prediction) {
		d2 := newDecoder(t, m, tok)
		d2.opt.Blocks = NewBlockStore(0)
		t.Cleanup(d2.opt.Blocks.Close)
		if err := d2.opt.Blocks.Persist(dir, m); err != nil {
			t.Fatal(err)
		}
		got, err := d2.prefill(append(slices.Clone(ids), reuseGen...), spans, true)
		if err != nil {
			t.Fatal(err)
		}
		return d2, got
	}
	d2, got := later()
	if n, want := d2.stats.Evaluated, len(ids)-spans[2].end+len(reuseGen); n != want || d2.opt.Blocks.Stats().Loaded != spans[2].end {
		t.Errorf("from the folder: %d tokens evaluated (want %d), %d loaded (want %d)", n, want, d2.opt.Blocks.Stats().Loaded, spans[2].end)
	}
	fresh, err := m.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	want, err := fresh.Prefill(append(slices.Clone(ids), reuseGen...))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Logits, want.Logits) {
		t.Error("blocks read from the folder give other logits than a plain prefill")
	}

	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.kv"))
	if len(files) != 4 {
		t.Fatalf("%d block files, want 4 (a, b, c, d)", len(files))
	}
	for _, f := range files {
		os.WriteFile(f, []byte("not keys and values"), 0o644)
	}
	d3, _ := later()
	d4 := newDecoder(t, m, tok) // an empty store in memory only
	d4.opt.Blocks = NewBlockStore(0)
	defer d4.opt.Blocks.Close()
	if _, err := d4.prefill(append(slices.Clone(ids), reuseGen...), spans, true); err != nil {
		t.Fatal(err)
	}
	if d3.opt.Blocks.Stats().Loaded != 0 || d3.stats.Evaluated != d4.stats.Evaluated {
		t.Errorf("unreadable files: %d loaded, %d evaluated; want 0 and %d, as an empty store", d3.opt.Blocks.Stats().Loaded, d3.stats.Evaluated, d4.stats.Evaluated)
	}
	// They were replaced by the blocks computed then.
	if d5, _ := later(); d5.opt.Blocks.Stats().Loaded != spans[2].end {
		t.Errorf("after unreadable files were replaced: %d loaded, want %d", d5.opt.Blocks.Stats().Loaded, spans[2].end)
	}
}
