#!/bin/sh
# Quiet-machine check of the project's build (repacking, no OpenMP) beside
# llama.cpp, on zero-weight copies of the model files, from a folder DIR
# (default bin/device) prepared on the machine that has the models:
#   DIR/enginebench-repack   make's flags: CGO_CFLAGS/CGO_CXXFLAGS="-O3 -mavx2 -mfma -mf16c
#                            -DGGML_USE_CPU_REPACK" go build -o DIR/enginebench-repack ./scripts/bench/enginebench
#   DIR/MODEL.gguf           head -c <tensor data offset> MODEL.gguf (truncated back to full size here)
#   DIR/pylib, DIR/lib       llama-cpp-python 0.3.36's package folder and its shared libraries
# Run from the repository root: THREADS="2 1" scripts/bench/device_repack.sh [DIR]
# Writes one JSON line per run to $OUT/device.jsonl.
set -u
root=$(pwd)
cd "${1:-bin/device}"
truncate -s 98362432 smollm2-135m.gguf
truncate -s 1117320768 qwen2.5-coder-1.5b.gguf
export LD_LIBRARY_PATH=$PWD/lib PYTHONPATH=$PWD/pylib
nproc; uptime
OUT=${OUT:-/tmp}
for rep in $(seq "${REPS:-1}"); do
	for m in qwen2.5-coder-1.5b smollm2-135m; do
		for t in ${THREADS:-2 1}; do
			echo "$(date +%T) $m t=$t rep=$rep" >&2
			taskset -c 0,1 ./enginebench-repack --model $m.gguf --threads $t --decode 32 2>/dev/null >>"$OUT/device.jsonl"
			taskset -c 0,1 python3 "$root/scripts/bench/llamacpp_bench.py" --model $m.gguf --threads $t --decode 32 >>"$OUT/device.jsonl"
		done
	done
done
wc -l "$OUT/device.jsonl"
