package retrieve

import "golang.org/x/sys/cpu"

// hasAVX2 selects the assembly dot products on CPUs with AVX2, FMA and
// F16C (every AVX2 CPU has F16C; it is checked anyway).
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C

// dotAVX2 is implemented in dot_amd64.s.
//
//go:noescape
func dotAVX2(a, b *float32, n int) float32

// dotHalfAVX2 is implemented in dot_amd64.s.
//
//go:noescape
func dotHalfAVX2(h *uint16, q *float32, n int) float32

// dotHalf returns the inner product of the half floats h and q[:len(h)];
// only called when hasAVX2 (a matrix has a half copy only then).
func dotHalf(h []uint16, q []float32) float32 {
	if len(h) == 0 {
		return 0
	}
	q = q[:len(h)]
	return dotHalfAVX2(&h[0], &q[0], len(h))
}

// dot returns the inner product of a and b[:len(a)].
func dot(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	b = b[:len(a)]
	if hasAVX2 {
		return dotAVX2(&a[0], &b[0], len(a))
	}
	return dotGeneric(a, b)
}
