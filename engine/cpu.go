package engine

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

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
// layout, as llama.cpp does; prefill about 40% faster on Q4_K models),
// "avx512f" and "avx512vnni" (make native on a CPU that has them).
func BuildFeatures() []string {
	var f []string
	if ggml.BuiltWithOpenMP() {
		f = append(f, "openmp")
	}
	if ggml.RepackAvailable() {
		f = append(f, "repack")
	}
	isa := ggml.BuiltISA()
	for _, x := range []string{"avx512f", "avx512vnni"} {
		if slices.Contains(isa, x) {
			f = append(f, x)
		}
	}
	return f
}

// CPUCheck refuses a binary built for x86 extensions this CPU lacks (a
// "make native" build copied to an older machine), which would otherwise
// stop with an illegal instruction in the middle of a run.
func CPUCheck() error {
	if runtime.GOARCH != "amd64" {
		return nil
	}
	if miss := missingISA(ggml.BuiltISA(), cpuHas()); len(miss) > 0 {
		return fmt.Errorf("this actor binary was built for x86 extensions this CPU lacks (%s): "+
			"rebuild it on this machine with make build (or make native)", strings.Join(miss, ", "))
	}
	return nil
}

// missingISA lists the extensions in built that has does not report.
func missingISA(built []string, has map[string]bool) []string {
	var miss []string
	for _, f := range built {
		if !has[f] {
			miss = append(miss, f)
		}
	}
	return miss
}

// cpuHas is this CPU's x86 extensions (with the OS's support for their
// registers), named as ggml.BuiltISA names them. x/sys reports GFNI, VAES
// and VPCLMULQDQ only on AVX-512 CPUs, so elsewhere they are not checked.
func cpuHas() map[string]bool {
	x := &cpu.X86
	unknown := !x.HasAVX512
	return map[string]bool{
		"avx": x.HasAVX, "avx2": x.HasAVX2, "fma": x.HasFMA, "f16c": x.HasF16C, "bmi1": x.HasBMI1, "bmi2": x.HasBMI2,
		"avx512f": x.HasAVX512F, "avx512cd": x.HasAVX512CD, "avx512bw": x.HasAVX512BW, "avx512dq": x.HasAVX512DQ,
		"avx512vl": x.HasAVX512VL, "avx512vnni": x.HasAVX512VNNI, "avx512bf16": x.HasAVX512BF16,
		"avx512vbmi": x.HasAVX512VBMI, "avx512vbmi2": x.HasAVX512VBMI2, "avx512ifma": x.HasAVX512IFMA,
		"avx512bitalg": x.HasAVX512BITALG, "avx512vpopcntdq": x.HasAVX512VPOPCNTDQ, "avxvnni": x.HasAVXVNNI,
		"gfni": x.HasAVX512GFNI || unknown, "vaes": x.HasAVX512VAES || unknown,
		"vpclmulqdq": x.HasAVX512VPCLMULQDQ || unknown,
	}
}
