# Build flags: ggml is compiled through cgo; without these it runs as baseline
# SSE code, 4-20x slower (see ../shared/docs/ARCHITECTURE.md).
SIMD_FLAGS := -O3 -mavx2 -mfma -mf16c -DGGML_USE_CPU_REPACK
export CGO_CFLAGS := $(SIMD_FLAGS)
export CGO_CXXFLAGS := $(SIMD_FLAGS)

.PHONY: build test vet fmt

build:
	go build -o bin/actor ./cmd/actor

test: build
	go vet ./...
	go test -timeout 30m ./...

fmt:
	gofmt -l -w .
