package retrieve

import "math"

// minHalfRows is the matrix size from which the half-precision pre-scan
// pays (smaller matrices sit in cache anyway).
const minHalfRows = 4096

// buildHalf makes the half-precision copy of a large matrix on AVX2
// machines, and the bound eps on |half score - float32 score| for unit
// rows and a unit query: rounding each element to half moves it by at most
// 2^-11 relatively (2^-25 absolutely below the normal range), so by
// Cauchy-Schwarz the dot product moves by at most 2^-11 + 2^-25·√d; each
// float32 dot product of d terms is off by at most d·2^-24 more.
func (m *Matrix) buildHalf() {
	if !hasAVX2 || m.n < minHalfRows {
		return
	}
	m.half = make([]uint16, len(m.data))
	for i, x := range m.data {
		m.half[i] = floatToHalf(x)
	}
	d := float64(m.dim)
	m.eps = 1.01 * (math.Ldexp(1, -11) + math.Ldexp(1, -25)*math.Sqrt(d) + 2*d*math.Ldexp(1, -24))
}

// search picks the half-precision pre-scan when the matrix has a copy.
func (m *Matrix) search(q []float32, k int, keep func(int) bool) []Hit {
	if m.half != nil {
		return m.topKHalf(q, k, keep)
	}
	return m.topKExact(q, k, keep)
}

// topKHalf scans the half-precision copy, then rescores from the float32
// rows every kept row whose approximate score is within 2·eps of the k-th
// best approximate score: every row of the exact top k is among them,
// since each approximate score is within eps of the exact one.
func (m *Matrix) topKHalf(q []float32, k int, keep func(int) bool) []Hit {
	approx := make([]float32, m.n)
	parallelRows(m.n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			approx[i] = dotHalf(m.half[i*m.dim:(i+1)*m.dim], q)
		}
	})
	ok := func(i int) bool { return keep == nil || keep(i) }
	first := newTopK(k)
	for i, s := range approx {
		if first.wants(i, float64(s)) && ok(i) {
			first.push(Hit{i, float64(s)})
		}
	}
	cut := math.Inf(-1)
	if len(first.h) == k {
		cut = first.h[0].Score - 2*m.eps
	}
	exact := newTopK(k)
	for i, s := range approx {
		if float64(s) >= cut && ok(i) {
			exact.push(Hit{i, float64(dot(m.Row(i), q))})
		}
	}
	return exact.sorted()
}

// floatToHalf rounds a float32 to the nearest IEEE 754 binary16 value
// (ties to even); values beyond the half range become infinities.
func floatToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff
	switch {
	case exp == 0xff: // infinity or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp > 142: // |f| >= 2^16: overflow
		return sign | 0x7c00
	case exp >= 113: // normal half: 2^-14 <= |f| < 2^16
		h := uint32(exp-112)<<10 | mant>>13
		rest := mant & 0x1fff
		if rest > 0x1000 || (rest == 0x1000 && h&1 == 1) {
			h++ // a carry into the exponent is still the right value
		}
		return sign | uint16(h)
	case exp >= 102: // subnormal half
		m := mant | 0x800000
		shift := uint32(126 - exp)
		h := m >> shift
		rest := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rest > half || (rest == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	return sign // underflow to signed zero
}
