package engine

import (
	"slices"
	"testing"

	"actor/internal/testsupport"
)

// TestPrefillReusing keeps the common prefix, places the run that only
// moved and computes only the rest: the tokens typed and the last one.
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
	typed := seq(head, span(60, 3), tail, end)
	for _, c := range []struct {
		minRun, kept, moved, computed int
	}{
		{8, 5, 20, 3 + 1},
		{21, 5, 0, len(typed) - 5},
		{0, 5, 0, len(typed) - 5},
	} {
		s := newSession(t, m)
		if _, err := s.Prefill(old); err != nil {
			t.Fatal(err)
		}
		c0 := s.Computed()
		if n := s.Reusable(typed, c.minRun); n != c.kept+c.moved {
			t.Errorf("min run %d: %d reusable, want %d", c.minRun, n, c.kept+c.moved)
		}
		_, got, err := s.PrefillReusing(typed, c.minRun)
		if err != nil {
			t.Fatal(err)
		}
		if got != (Reuse{Kept: c.kept, Moved: c.moved}) || s.Computed()-c0 != c.computed || !slices.Equal(s.Tokens(), typed) {
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
	again, reuse, err := s.PrefillReusing(seq(head, tail), 8)
	if err != nil || reuse.Cached() != len(head)+len(tail)-1 {
		t.Fatalf("the same sequence: %+v %v", reuse, err)
	}
	want, _ := newSession(t, m).Prefill(seq(head, tail))
	if d := testsupport.MaxAbsDiff(again.Logits, want.Logits); d > 1e-5 {
		t.Errorf("the same sequence's logits changed by %g", d)
	}
}

func TestFindRuns(t *testing.T) {
	old := []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	seq := []int32{1, 2, 0, 5, 6, 7, 0, 8, 9, 10, 11}
	got := findRuns(old, seq, 2, 2)
	want := []run{{from: 4, at: 3, n: 3}, {from: 7, at: 7, n: 3}}
	if !slices.Equal(got, want) {
		t.Errorf("runs %+v, want %+v", got, want)
	}
	if r := findRuns(old, seq, 2, 4); r != nil {
		t.Errorf("runs under the minimum: %+v", r)
	}
}
