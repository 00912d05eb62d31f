package labelstore

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Every half value survives half → float32 → half unchanged (NaNs stay NaN).
func TestHalfRoundTripAll(t *testing.T) {
	for i := range 1 << 16 {
		h := uint16(i)
		f := fromHalf(h)
		if math.IsNaN(float64(f)) {
			if g := toHalf(f); g&0x7c00 != 0x7c00 || g&0x3ff == 0 {
				t.Fatalf("NaN %#04x came back as %#04x", h, g)
			}
			continue
		}
		if g := toHalf(f); g != h {
			t.Fatalf("%#04x → %v → %#04x", h, f, g)
		}
	}
}

// Known values, by hand from the binary16 definition.
func TestHalfKnown(t *testing.T) {
	for _, c := range []struct {
		f float32
		h uint16
	}{
		{0, 0}, {1, 0x3c00}, {-2, 0xc000}, {0.5, 0x3800}, {65504, 0x7bff}, {65520, 0x7c00}, // rounds up to Inf
		{1e9, 0x7c00}, {float32(math.Pow(2, -24)), 0x0001}, {float32(math.Pow(2, -25)), 0}, // tie → even (0)
		{float32(1.5 * math.Pow(2, -25)), 0x0001}, {float32(math.Pow(2, -14)), 0x0400},
		{1 + 1.0/2048, 0x3c00}, // exactly half-way between 1 and 1+2^-10 → even (1)
		{1 + 3.0/2048, 0x3c02}, // half-way between 1+2^-10 and 1+2^-9 → even
		{0.1, 0x2e66},
	} {
		if got := toHalf(c.f); got != c.h {
			t.Errorf("toHalf(%v) = %#04x, want %#04x", c.f, got, c.h)
		}
	}
}

// Random float32s round to the nearest half (ties to even): checked against
// the two neighbouring representable values in float64.
func TestHalfNearest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		f := float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(40)-28)))
		h := toHalf(f)
		got := float64(fromHalf(h))
		if math.IsInf(got, 0) {
			if math.Abs(float64(f)) < 65504 {
				t.Fatalf("%v became Inf", f)
			}
			continue
		}
		err := math.Abs(got - float64(f))
		for _, nb := range []uint16{h + 1, h - 1} {
			v := float64(fromHalf(nb))
			if nb&0x7c00 == 0x7c00 || math.Signbit(v) != math.Signbit(got) && v != 0 {
				continue
			}
			if e := math.Abs(v - float64(f)); e < err || (e == err && h&1 == 1) {
				t.Fatalf("%v → %#04x (%v), neighbour %#04x (%v) is nearer/even", f, h, got, nb, v)
			}
		}
	}
}
