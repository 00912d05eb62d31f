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
static const char *built_isa(void) {
	return ""
#ifdef __AVX__
	"avx "
#endif
#ifdef __AVX2__
	"avx2 "
#endif
#ifdef __FMA__
	"fma "
#endif
#ifdef __F16C__
	"f16c "
#endif
#ifdef __BMI__
	"bmi1 "
#endif
#ifdef __BMI2__
	"bmi2 "
#endif
#ifdef __AVX512F__
	"avx512f "
#endif
#ifdef __AVX512CD__
	"avx512cd "
#endif
#ifdef __AVX512BW__
	"avx512bw "
#endif
#ifdef __AVX512DQ__
	"avx512dq "
#endif
#ifdef __AVX512VL__
	"avx512vl "
#endif
#ifdef __AVX512VNNI__
	"avx512vnni "
#endif
#ifdef __AVX512BF16__
	"avx512bf16 "
#endif
#ifdef __AVX512VBMI__
	"avx512vbmi "
#endif
#ifdef __AVX512VBMI2__
	"avx512vbmi2 "
#endif
#ifdef __AVX512IFMA__
	"avx512ifma "
#endif
#ifdef __AVX512BITALG__
	"avx512bitalg "
#endif
#ifdef __AVX512VPOPCNTDQ__
	"avx512vpopcntdq "
#endif
#ifdef __AVXVNNI__
	"avxvnni "
#endif
#ifdef __GFNI__
	"gfni "
#endif
#ifdef __VAES__
	"vaes "
#endif
#ifdef __VPCLMULQDQ__
	"vpclmulqdq "
#endif
	;
}
*/
import "C"

import "strings"

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

// BuiltISA lists the x86 extensions the C code of this binary was compiled
// to use (the compiler's __AVX2__, __AVX512F__, … macros, named as
// golang.org/x/sys/cpu names them, lower case): a CPU without one of them
// stops with an illegal instruction. Empty on other architectures.
func BuiltISA() []string { return strings.Fields(C.GoString(C.built_isa())) }
