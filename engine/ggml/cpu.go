package ggml

/*
#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
static int built_with_avx2(void) { return 1; }
#else
static int built_with_avx2(void) { return 0; }
#endif
*/
import "C"

// BuiltWithAVX2 reports whether the C code of this binary (ggml included:
// cgo compiles every package with the same CGO_CFLAGS) was compiled with
// AVX2, FMA and F16C enabled. Without them ggml falls back to SSE kernels
// that are 4–20× slower.
func BuiltWithAVX2() bool { return C.built_with_avx2() == 1 }
