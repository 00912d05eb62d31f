package ggml

/*
#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
static int built_with_avx2(void) { return 1; }
#else
static int built_with_avx2(void) { return 0; }
#endif
#ifdef _OPENMP
static int built_with_openmp(void) { return 1; }
#else
static int built_with_openmp(void) { return 0; }
#endif
*/
import "C"

// BuiltWithAVX2 reports whether the C code of this binary (ggml included:
// cgo compiles every package with the same CGO_CFLAGS) was compiled with
// AVX2, FMA and F16C enabled. Without them ggml falls back to SSE kernels
// that are 4–20× slower.
func BuiltWithAVX2() bool { return C.built_with_avx2() == 1 }

// BuiltWithOpenMP reports whether ggml was compiled with OpenMP
// (-fopenmp -DGGML_USE_OPENMP in CGO_CFLAGS, -fopenmp in CGO_LDFLAGS). Its
// worker threads then sleep at barriers after a short spin instead of
// spinning forever, which keeps multi-threaded decoding fast on a machine
// shared with other processes.
func BuiltWithOpenMP() bool { return C.built_with_openmp() == 1 }
