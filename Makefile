# Build flags: ggml is compiled through cgo; without these it runs as baseline
# SSE code, 4-20x slower (BENCHMARKS.md).
SIMD_FLAGS := -O3 -mavx2 -mfma -mf16c -DGGML_USE_CPU_REPACK
export CGO_CFLAGS := $(SIMD_FLAGS)
export CGO_CXXFLAGS := $(SIMD_FLAGS)

.PHONY: build native test vet fmt cuda

build:
	go build -o bin/actor ./cmd/actor

# native: every extension of this machine's CPU (AVX-512 and VNNI where it
# has them; faster prefill and decoding, BENCHMARKS.md "Lever 4"). The
# binary then refuses to start on a CPU without them.
native:
	CGO_CFLAGS="-O3 -march=native -DGGML_USE_CPU_REPACK" CGO_CXXFLAGS="-O3 -march=native -DGGML_USE_CPU_REPACK" \
		go build -o bin/actor ./cmd/actor

# test: fetches what the tests need, then runs them all with every check
# required (scripts/test.sh).
test: build
	scripts/test.sh

fmt:
	gofmt -l -w .

# cuda: ggml's CUDA backend beside the binary (bin/libggml-cuda.so, loaded at
# start when a GPU answers; docs/CUDA.md). Compiler from PyPI wheels into
# .cache/cuda; resumable. CUDA_ARCHS / CUDA_PTX / JOBS choose (see the script).
# bin/enginebench and bin/ggml.test are for scripts/check-cuda.sh (speed
# rows; GPU-vs-CPU logits where no Go toolchain is at hand).
cuda: build
	go build -o bin/enginebench ./scripts/bench/enginebench
	go test -tags cudacheck -c -o bin/ggml.test ./engine/ggml
	scripts/build-cuda.sh
