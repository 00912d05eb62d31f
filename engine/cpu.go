package engine

import (
	"runtime"

	"actor/engine/ggml"

	"golang.org/x/sys/cpu"
)

// CPUWarning returns a warning to show at start-up when the binary was
// built without the AVX2/FMA/F16C flags on a CPU that has them (ggml then
// runs several times slower), or "" when all is well.
func CPUWarning() string {
	if runtime.GOARCH != "amd64" || ggml.BuiltWithAVX2() {
		return ""
	}
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return "WARNING: this actor binary was built without AVX2/FMA/F16C although the CPU has them; " +
			"model inference will be 4-20x slower. Rebuild with " +
			`CGO_CFLAGS="-O3 -mavx2 -mfma -mf16c -DGGML_USE_CPU_REPACK" CGO_CXXFLAGS="$CGO_CFLAGS" (make build).`
	}
	return ""
}

// BuildFeatures lists the optional ggml features this binary was built
// with: "openmp" (CGO_CFLAGS -fopenmp -DGGML_USE_OPENMP, CGO_LDFLAGS
// -fopenmp: threads sleep at barriers instead of spinning, so decoding with
// several threads stays fast on a busy machine) and "repack"
// (-DGGML_USE_CPU_REPACK: Q4_0/Q4_K/IQ4_NL matrices in ggml's interleaved
// layout, as llama.cpp does; prefill about 40% faster on Q4_K models).
func BuildFeatures() []string {
	var f []string
	if ggml.BuiltWithOpenMP() {
		f = append(f, "openmp")
	}
	if ggml.RepackAvailable() {
		f = append(f, "repack")
	}
	return f
}
