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
			`CGO_CFLAGS="-O3 -mavx2 -mfma -mf16c" CGO_CXXFLAGS="-O3 -mavx2 -mfma -mf16c" (make build).`
	}
	return ""
}
