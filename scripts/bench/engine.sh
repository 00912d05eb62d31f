#!/bin/sh
# Engine speed, actor vs llama.cpp (llama-cpp-python) on the same GGUF files,
# interleaved run by run. Usage:
#   scripts/bench/engine.sh [REPS] [MODEL...]
# MODEL defaults to the pulled smollm2-135m and qwen2.5-coder-1.5b files.
# Writes bin/bench-engine.jsonl and prints the Markdown table (BENCHMARKS.md).
set -eu
cd "$(dirname "$0")/../.."
REPS=${1:-3}
[ $# -gt 0 ] && shift
export CGO_CFLAGS="-O3 -mavx2 -mfma -mf16c" CGO_CXXFLAGS="-O3 -mavx2 -mfma -mf16c"
go build -o bin/enginebench ./scripts/bench/enginebench
if [ $# -eq 0 ]; then
	dir=${ACTOR_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/actor}/models
	set -- "$dir/smollm2-135m.gguf" "$dir/qwen2.5-coder-1.5b.gguf"
fi
out=bin/bench-engine.jsonl
: >"$out"
for model in "$@"; do
	for threads in 1 2; do
		for rep in $(seq "$REPS"); do
			echo "$(basename "$model") threads=$threads rep=$rep" >&2
			bin/enginebench --model "$model" --threads "$threads" >>"$out"
			python3 scripts/bench/llamacpp_bench.py --model "$model" --threads "$threads" >>"$out"
		done
	done
done
python3 scripts/bench/engine_table.py "$out"
