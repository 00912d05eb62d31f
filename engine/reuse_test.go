package engine

import (
	"slices"
	"testing"

	"actor/internal/testsupport"
)

// TestPrefillReusing keeps the common prefix, places the run that only
// moved toward the start and computes only the rest (the last token);
// text inserted before a run stops the reuse, as in llama.cpp.
func TestPrefillReusing(t *testing.T) {
	r := loadRef(t, "llama_mha")
	m := loadTiny(t, r, false) // 64 positions
	seq := func(parts ...[]int32) []int32 { return slices.Concat(parts...) }
	span := func(from, n int) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(from + i)
		}
		return out
	}
	head, tail, end := span(10, 5), span(100, 20), []int32{250}
	old := seq(head, span(40, 2), tail, end)
	deleted := seq(head, tail, end)
	typed := seq(head, span(60, 3), tail, end)
	// a chunk (opened by tail's first token, 100) inserted before tail
	chunk := seq([]int32{100}, span(70, 4), tail, end)
	chunk = seq(head, span(40, 2), chunk)
	for _, c := range []struct {
		next                          []int32
		minRun, kept, moved, computed int
		boundary                      int32 // chunked when above 0
	}{
		{deleted, 8, 5, 20, 1, 0},
		{deleted, 21, 5, 0, len(deleted) - 5, 0},
		{deleted, 0, 5, 0, len(deleted) - 5, 0},
		{typed, 8, 5, 0, len(typed) - 5, 0},
		{typed, 8, 5, 0, len(typed) - 5, 999}, // no boundary after the typed text
		// the prefix keeps the inserted chunk's boundary token (it equals
		// tail's first); the chunk's other 4 and the boundary before tail
		// are computed, tail's other 19 placed, and the last token
		{chunk, 8, 8, 19, 5 + 1, 100},
		{chunk, 8, 8, 0, len(chunk) - 8, 0},
	} {
		s := newSession(t, m)
		if _, err := s.Prefill(old); err != nil {
			t.Fatal(err)
		}
		c0 := s.Computed()
		p := ReusePolicy{MinRun: c.minRun, Chunked: c.boundary > 0, Boundary: c.boundary}
		if n := s.Reusable(c.next, p); n != c.kept+c.moved {
			t.Errorf("min run %d: %d reusable, want %d", c.minRun, n, c.kept+c.moved)
		}
		_, got, err := s.PrefillReusing(c.next, p)
		if err != nil {
			t.Fatal(err)
		}
		if got != (Reuse{Kept: c.kept, Moved: c.moved}) || s.Computed()-c0 != c.computed || !slices.Equal(s.Tokens(), c.next) {
			t.Errorf("min run %d: reuse %+v, computed %d (want %d/%d, %d), holds %v", c.minRun, got, s.Computed()-c0, c.kept, c.moved, c.computed, s.Tokens())
		}
	}
	// Unchanged text after the cursor is reused at its place: the
	// prefill's logits are those of the same sequence computed whole (to
	// the rounding of a one-row pass against a whole-sequence one, the
	// tolerance of the placed-keys test in kv_test.go).
	s := newSession(t, m)
	if _, err := s.Prefill(seq(head, tail)); err != nil {
		t.Fatal(err)
	}
	again, reuse, err := s.PrefillReusing(seq(head, tail), ReusePolicy{MinRun: 8})
	if err != nil || reuse.Cached() != len(head)+len(tail)-1 {
		t.Fatalf("the same sequence: %+v %v", reuse, err)
	}
	want, _ := newSession(t, m).Prefill(seq(head, tail))
	if d := testsupport.MaxAbsDiff(again.Logits, want.Logits); d > 1e-5 {
		t.Errorf("the same sequence's logits changed by %g", d)
	}
}

// TestFindRuns follows llama.cpp's walk on cases worked by hand, and
// with chunks goes on after inserted text at a boundary token.
func TestFindRuns(t *testing.T) {
	old := []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct {
		seq  []int32
		p    ReusePolicy
		want []run
	}{
		// 3 and 4 removed, then 8: two runs moved toward the start; the
		// last token (11) is left to compute
		{[]int32{1, 2, 5, 6, 7, 9, 10, 11}, ReusePolicy{MinRun: 2}, []run{{from: 4, at: 2, n: 3}, {from: 8, at: 5, n: 2}}},
		{[]int32{1, 2, 5, 6, 7, 9, 10, 11}, ReusePolicy{MinRun: 3}, []run{{from: 4, at: 2, n: 3}}},
		{[]int32{1, 2, 5, 6, 7, 9, 10, 11}, ReusePolicy{MinRun: 4}, nil},
		// a token inserted at the next place stops the reuse
		{[]int32{1, 2, 0, 3, 4, 5, 6, 7, 8, 9, 10}, ReusePolicy{MinRun: 2}, nil},
		// a run taken, then an insertion: nothing after it
		{[]int32{1, 2, 4, 5, 0, 6, 7, 8, 9, 10}, ReusePolicy{MinRun: 2}, []run{{from: 3, at: 2, n: 2}}},
		// with chunks opened by 6: after the inserted 0 0 the walk goes
		// on after the next 6, so the chunk's 7 8 9 move right
		{[]int32{1, 2, 3, 4, 5, 0, 0, 6, 7, 8, 9, 10}, ReusePolicy{MinRun: 2, Chunked: true, Boundary: 6}, []run{{from: 2, at: 2, n: 3}, {from: 6, at: 8, n: 3}}},
		// typed text (0) and no boundary after it: nothing more
		{[]int32{1, 2, 3, 0, 4, 5, 6, 7, 8, 9, 10}, ReusePolicy{MinRun: 2, Chunked: true, Boundary: 1}, nil},
	} {
		if got := findRuns(old, c.seq, 2, c.p); !slices.Equal(got, c.want) {
			t.Errorf("%v, %+v: runs %+v, want %+v", c.seq, c.p, got, c.want)
		}
	}
}
