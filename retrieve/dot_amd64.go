package retrieve

import "golang.org/x/sys/cpu"

// hasAVX2 selects the assembly dot product on CPUs with AVX2 and FMA.
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// dotAVX2 is implemented in dot_amd64.s.
//
//go:noescape
func dotAVX2(a, b *float32, n int) float32

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
