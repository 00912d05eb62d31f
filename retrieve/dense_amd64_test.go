package retrieve

import (
	"math"
	"math/rand/v2"
	"testing"
)

// hwHalf converts a half to float32 with the CPU's F16C instruction (the
// reference for floatToHalf): a dot product with 1.
func hwHalf(t *testing.T, h uint16) float32 {
	if !hasAVX2 {
		t.Skip("no AVX2/F16C: the half-precision scan is not used on this CPU")
	}
	return dotHalf([]uint16{h}, []float32{1})
}

func TestFloatToHalf(t *testing.T) {
	// Every finite half is a float32 that must convert back to itself
	// (negative zero aside: the FMA sum turns it into +0).
	if floatToHalf(float32(math.Copysign(0, -1))) != 0x8000 {
		t.Error("negative zero")
	}
	for h := 0; h < 1<<16; h++ {
		f := hwHalf(t, uint16(h))
		if math.IsNaN(float64(f)) || h == 0x8000 {
			continue
		}
		if got := floatToHalf(f); got != uint16(h) {
			t.Fatalf("half %#04x = %v converts back to %#04x", h, f, got)
		}
	}
	// Any float32 rounds to the nearest half, ties to the even one.
	r := rand.New(rand.NewPCG(7, 8))
	check := func(x float32) {
		h := floatToHalf(x)
		y := hwHalf(t, h)
		if math.Abs(float64(x)) >= 65520 { // rounds to infinity
			if !math.IsInf(float64(y), 0) {
				t.Fatalf("%v -> %v, want infinity", x, y)
			}
			return
		}
		for _, nb := range []uint16{h - 1, h + 1} {
			z := hwHalf(t, nb)
			if nb&0x8000 != h&0x8000 || math.IsNaN(float64(z)) || math.IsInf(float64(z), 0) {
				continue // past zero or the largest finite half
			}
			dy, dz := math.Abs(float64(x)-float64(y)), math.Abs(float64(x)-float64(z))
			if dz < dy || (dz == dy && h&1 == 1) {
				t.Fatalf("%v -> %#04x (%v), but %#04x (%v) is nearer or the even tie", x, h, y, nb, z)
			}
		}
	}
	for i := 0; i < 200000; i++ {
		check(float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(40)-30))))
	}
	for h := uint16(1); h < 0x7bff; h += 97 { // exact midpoints between halves
		a, b := hwHalf(t, h), hwHalf(t, h+1)
		check(float32((float64(a) + float64(b)) / 2))
	}
}

// The half-precision pre-scan must give exactly the float32 scan's result,
// even with many rows within the rounding margin of the k-th score.
func TestHalfScanEqualsExactScan(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2/F16C: the half-precision scan is not used on this CPU")
	}
	r := rand.New(rand.NewPCG(9, 10))
	const n, dim = 6000, 64
	base := make([]float32, dim)
	for j := range base {
		base[j] = float32(r.NormFloat64())
	}
	flat := make([]float32, 0, n*dim)
	for i := 0; i < n; i++ {
		for j := 0; j < dim; j++ {
			// Near-copies of one direction: cosines crowd near 1.
			flat = append(flat, base[j]+float32(r.NormFloat64()*1e-3))
		}
	}
	m, err := NewMatrix(flat, dim)
	if err != nil {
		t.Fatal(err)
	}
	if m.half == nil {
		t.Fatal("no half copy for a large matrix")
	}
	q := append([]float32(nil), base...)
	for _, k := range []int{1, 10, 50, n} {
		for _, keep := range []func(int) bool{nil, func(i int) bool { return i%7 == 0 }} {
			qn, _ := unit(q)
			want := m.topKExact(qn, k, keep)
			got := m.topKHalf(qn, k, keep)
			if len(got) != len(want) {
				t.Fatalf("k=%d: %d hits, want %d", k, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("k=%d rank %d: %+v, want %+v", k, i, got[i], want[i])
				}
			}
		}
	}
}
