package engine

import (
	"math"
	"slices"
	"sync"
	"testing"

	"actor/internal/testsupport"
)

var smolModels sync.Map // flash bool -> *Model, shared by the real-model tests

// smol loads SmolLM2 once per attention mode, with small prefill batches
// so that short sequences already span several of them.
func smol(t *testing.T, flash bool) *Model {
	t.Helper()
	path := testsupport.Model(t, "smollm2-135m")
	if m, ok := smolModels.Load(flash); ok {
		return m.(*Model)
	}
	m, err := Load(path, Options{Threads: 1, ContextLength: 1024, BatchSize: 64, FlashAttention: flash})
	if err != nil {
		t.Fatal(err)
	}
	smolModels.Store(flash, m)
	return m
}

// realIDs returns a deterministic sequence of ordinary token ids.
func realIDs(n int, seed int32) []int32 {
	ids := make([]int32, n)
	x := seed
	for i := range ids {
		x = (x*1103515245 + 12345) & 0x7fffffff
		ids[i] = 100 + x%20000
	}
	return ids
}

// scoreVsSteps scores target after prompt and decodes it step by step; it
// returns the worst differences and the number of top-1 disagreements.
func scoreVsSteps(t *testing.T, m *Model, prompt, target []int32) (lp, hid float64, top1Diff int) {
	t.Helper()
	sc, err := newSession(t, m).Score(prompt, target)
	if err != nil {
		t.Fatal(err)
	}
	st := newSession(t, m)
	st.Hidden = true
	p, err := st.Prefill(prompt)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range target {
		if sc.Top1[i] != p.Top1 {
			top1Diff++
		}
		lp = max(lp, math.Abs(sc.LogProb[i]-p.LogProb(id)), math.Abs(sc.Entropy[i]-p.Entropy))
		hid = max(hid, testsupport.MaxAbsDiff(sc.Hidden[i], p.Hidden))
		if p, err = st.Step(id); err != nil {
			t.Fatal(err)
		}
	}
	for j, row := range sc.Attention {
		var sum float64
		for _, a := range row {
			sum += float64(a)
		}
		if len(row) != j || sum > 1+1e-4 {
			t.Fatalf("attention row %d: %d values summing to %f", j, len(row), sum)
		}
	}
	return lp, hid, top1Diff
}

// With flash attention every row is computed alone whatever the batch (the
// probabilities Score reads are computed beside the fused kernel, not
// instead of it), and SmolLM2's matrices are not repacked, so Score equals
// step decoding bit for bit.
func TestRealScoreMatchesStepsFlash(t *testing.T) {
	lp, hid, diff := scoreVsSteps(t, smol(t, true), realIDs(150, 1), realIDs(40, 2))
	t.Logf("flash: score vs steps: logprob/entropy max diff %.1e, hidden %.1e, top-1 disagreements %d", lp, hid, diff)
	if lp != 0 || hid != 0 || diff > 0 {
		t.Errorf("score differs from step decoding: logprob/entropy %.2e, hidden %.2e, %d top-1", lp, hid, diff)
	}
}

// Without flash attention ggml picks different matmul kernels for one row
// and for many, and a quantised model amplifies their rounding through its
// layers: llama.cpp's default graph behaves the same. Agreement is close,
// not exact.
func TestRealScoreMatchesStepsSoftmax(t *testing.T) {
	lp, hid, diff := scoreVsSteps(t, smol(t, false), realIDs(150, 1), realIDs(40, 2))
	t.Logf("softmax: score vs steps: logprob/entropy max diff %.1e, hidden %.1e, top-1 disagreements %d", lp, hid, diff)
	if lp > 1 || diff > 4 {
		t.Errorf("score far from step decoding: logprob/entropy %.2e, %d top-1", lp, diff)
	}
}

// TestRealPrefixReuse edits the middle of a prompt that spans several
// prefill batches and compares the reused cache with a fresh prefill:
// bitwise equal with flash attention.
func TestRealPrefixReuse(t *testing.T) {
	for _, flash := range []bool{true, false} {
		m := smol(t, flash)
		seq := realIDs(200, 3)
		s := newSession(t, m)
		if _, err := s.Prefill(seq); err != nil {
			t.Fatal(err)
		}
		edited := slices.Clone(seq)
		edited[100] = 1234
		before := s.computed
		reused, err := s.Prefill(edited)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.computed - before; got != 100 {
			t.Errorf("recomputed %d tokens, want 100", got)
		}
		fresh, err := newSession(t, m).Prefill(edited)
		if err != nil {
			t.Fatal(err)
		}
		d := testsupport.MaxAbsDiff(reused.Logits, fresh.Logits)
		t.Logf("flash %v: middle edit: reused vs fresh logits max abs diff %.1e", flash, d)
		if flash && d != 0 {
			t.Errorf("flash attention: reused cache differs from a fresh prefill by %.2e", d)
		}
		if d > 1 {
			t.Errorf("reused cache far from a fresh prefill: %.2e", d)
		}
	}
}

// TestWidenedQwenIsExact runs Qwen2.5-Coder-0.5B (mostly Q5_0) with its
// Q5_0 matrices widened to Q8_0 and kept as stored: a 300-token prefill
// (batched matrix products) and steps after it (dot products) give the
// same logits bit for bit, so widening changes speed, not samples.
func TestWidenedQwenIsExact(t *testing.T) {
	path := testsupport.Model(t, "qwen2.5-coder-0.5b")
	load := func(keep bool) *Model {
		m, err := Load(path, Options{Threads: 2, ContextLength: 512, KeepQ5_0: keep})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Close)
		return m
	}
	kept, wide := load(true), load(false)
	if n, _ := kept.WidenedMatrices(); n != 0 {
		t.Fatalf("KeepQ5_0 widened %d matrices", n)
	}
	if n, extra := wide.WidenedMatrices(); n < 100 || extra <= 0 {
		t.Fatalf("%d matrices widened (+%d bytes), want the file's 133 Q5_0 matrices", n, extra)
	}
	a, b := newSession(t, kept), newSession(t, wide)
	ids := realIDs(300, 7)
	pa, err := a.Prefill(ids)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := b.Prefill(ids)
	if err != nil {
		t.Fatal(err)
	}
	for step := 0; ; step++ {
		if d := testsupport.MaxAbsDiff(pa.Logits, pb.Logits); d != 0 {
			t.Fatalf("step %d: logits differ by %.3g", step, d)
		}
		if step == 4 {
			break
		}
		next := pa.Top1
		if pa, err = a.Step(next); err != nil {
			t.Fatal(err)
		}
		if pb, err = b.Step(next); err != nil {
			t.Fatal(err)
		}
	}
}
