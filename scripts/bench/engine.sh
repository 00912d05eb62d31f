#!/bin/sh
# Engine speed: actor vs llama.cpp (llama-cpp-python) on the same GGUF files,
# interleaved run by run so each repetition sees the same machine load.
#   scripts/bench/engine.sh [REPS] [MODEL...]
# MODEL defaults to the pulled smollm2-135m and qwen2.5-coder-1.5b files.
# Two actor builds are measured: the project's flags (make build, which
# include ggml's CPU weight repacking) and the same plus OpenMP (see
# BENCHMARKS.md; the first build with those flags compiles ggml again, a few
# minutes).
# Results go to bin/bench-engine.jsonl; the Markdown table to stdout.
set -eu
cd "$(dirname "$0")/../.."
REPS=${1:-3}
DECODE=${DECODE:-32} # decoded tokens per run (enginebench decodes them twice: plain, then reading the hidden state)
[ $# -gt 0 ] && shift
SIMD="-O3 -mavx2 -mfma -mf16c -DGGML_USE_CPU_REPACK"
FAST="$SIMD -fopenmp -DGGML_USE_OPENMP"
CGO_CFLAGS="$SIMD" CGO_CXXFLAGS="$SIMD" go build -o bin/enginebench ./scripts/bench/enginebench
CGO_CFLAGS="$FAST" CGO_CXXFLAGS="$FAST" CGO_LDFLAGS="-fopenmp" go build -o bin/enginebench-fast ./scripts/bench/enginebench
if [ $# -eq 0 ]; then
	dir=${ACTOR_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/actor}/models
	set -- "$dir/smollm2-135m.gguf" "$dir/qwen2.5-coder-1.5b.gguf"
fi
out=bin/bench-engine.jsonl
: >"$out"
for model in "$@"; do
	for threads in 1 2; do
		for rep in $(seq "$REPS"); do
			echo "$(date +%T) $(basename "$model") threads=$threads rep=$rep load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
			bin/enginebench --model "$model" --threads "$threads" --decode "$DECODE" 2>/dev/null >>"$out"
			python3 scripts/bench/llamacpp_bench.py --model "$model" --threads "$threads" --decode "$DECODE" >>"$out"
			bin/enginebench-fast --model "$model" --threads "$threads" --decode "$DECODE" 2>/dev/null >>"$out"
		done
	done
done
python3 scripts/bench/engine_table.py "$out"
