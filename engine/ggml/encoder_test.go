package ggml

import (
	"math"
	"slices"
	"testing"
)

// TestAttnGroups checks the cut of sorted lengths into attention blocks.
func TestAttnGroups(t *testing.T) {
	got := attnGroups([]int{3, 5, 9, 40, 41, 600}, 512)
	want := []attnGroup{
		{first: 0, count: 3, width: 16, short: 3, long: 9},      // 4·9 ≤ 5·3+32
		{first: 3, count: 2, width: 48, short: 40, long: 41},    // 40 > 1.25·3+8: new block
		{first: 5, count: 1, width: 512, short: 600, long: 600}, // capped at the positions
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	// The token budget of a block: 200 sequences of 30 tokens (width 32)
	// make blocks of 4096/32 = 128.
	lens := make([]int, 200)
	for i := range lens {
		lens[i] = 30
	}
	if g := attnGroups(lens, 512); len(g) != 2 || g[0].count != 128 || g[1].count != 72 {
		t.Errorf("budget: %+v", g)
	}
}

// TestBlockIndex works the gather, scatter and mask of a block of two
// sequences of 2 and 3 tokens, padded to width 3, starting at packed
// token 10, by hand.
func TestBlockIndex(t *testing.T) {
	g := attnGroup{first: 1, count: 2, width: 3}
	gather, scatter, mask := blockIndex([]int{7, 2, 3}, g, 10)
	if want := []int32{10, 11, 10, 12, 13, 14}; !slices.Equal(gather, want) {
		t.Errorf("gather %v, want %v", gather, want)
	}
	if want := []int32{0, 1, 3, 4, 5}; !slices.Equal(scatter, want) {
		t.Errorf("scatter %v, want %v", scatter, want)
	}
	inf := float32(math.Inf(-1))
	want := []float32{
		0, 0, inf, 0, 0, inf, 0, 0, inf, // sequence of 2: key 2 masked for every query
		0, 0, 0, 0, 0, 0, 0, 0, 0,
	}
	if !slices.Equal(mask, want) {
		t.Errorf("mask %v, want %v", mask, want)
	}
}
