package generate

import (
	"math"
	"slices"
	"testing"
)

// TestDecoderCachesReturnToEarlierContexts prefills two sequences that
// share nothing, steps each, and returns to both: each return evaluates only
// the tokens its cache lacks, and the logits equal a fresh prefill's.
func TestDecoderCachesReturnToEarlierContexts(t *testing.T) {
	m, tok := loadTiny(t)
	d := newDecoder(t, m, tok)
	a := tok.Encode("# file path: lib/math.py\n\n# def double(x):\n#     return 2 * x\n\ndef run(x):\n", true)
	b := tok.Encode("# something else entirely, a longer context\n\ndef run(x):\n", true)
	step := func(seq []int32, ids ...int32) []int32 {
		for _, id := range ids {
			if _, err := d.step(id); err != nil {
				t.Fatal(err)
			}
			seq = append(seq, id)
		}
		return seq
	}
	prefill := func(seq []int32) (int, []float32) {
		before := d.stats.Evaluated
		p, err := d.prefill(seq, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		return d.stats.Evaluated - before, p.Logits
	}
	if n, _ := prefill(a); n != len(a) {
		t.Fatalf("first prefill evaluated %d of %d", n, len(a))
	}
	ca := step(slices.Clone(a), 40, 41)
	if n, _ := prefill(b); n != len(b) || len(d.kv.slots) != 2 {
		t.Fatalf("second context evaluated %d of %d in %d caches", n, len(b), len(d.kv.slots))
	}
	cb := step(slices.Clone(b), 50)
	// Back to a with two more tokens: only those two are evaluated.
	back := append(slices.Clone(ca), 42, 43)
	n, logits := prefill(back)
	if n != 2 || len(d.kv.slots) != 2 {
		t.Errorf("return to the first context evaluated %d tokens, want 2 (%d caches)", n, len(d.kv.slots))
	}
	fresh, err := m.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	want, err := fresh.Prefill(back)
	if err != nil {
		t.Fatal(err)
	}
	for i := range logits {
		if math.Abs(float64(logits[i]-want.Logits[i])) > 1e-4 {
			t.Fatalf("logit %d: %g from the kept cache, %g fresh", i, logits[i], want.Logits[i])
		}
	}
	// b's cache is untouched too: extending it evaluates one token.
	if n, _ := prefill(append(cb, 51)); n != 1 {
		t.Errorf("return to the second context evaluated %d tokens, want 1", n)
	}
}

// TestDecoderEvictsLeastRecentlyUsed fills the caches and checks that a
// new unrelated sequence replaces the least recently used one.
func TestDecoderEvictsLeastRecentlyUsed(t *testing.T) {
	m, tok := loadTiny(t)
	d := newDecoder(t, m, tok, DecoderOptions{Sessions: 2})
	seqs := [][]int32{tok.Encode("alpha alpha alpha", true), tok.Encode("beta beta beta", true), tok.Encode("gamma gamma gamma", true)}
	for _, s := range seqs {
		if _, err := d.prefill(s, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	if len(d.kv.slots) != 2 {
		t.Fatalf("%d caches, limit 2", len(d.kv.slots))
	}
	held := map[string]bool{}
	for _, s := range d.kv.slots {
		held[tok.Decode(s.cached)] = true
	}
	if !held["beta beta beta"] || !held["gamma gamma gamma"] {
		t.Errorf("caches hold %v; alpha was the least recently used", held)
	}
}
