#!/usr/bin/env bash
# check-cuda.sh: the CUDA build checked on a machine with an NVIDIA GPU, in
# under 5 minutes, as one table (docs/CUDA.md; paste it into BENCHMARKS.md).
#
#   make cuda                      # bin/actor, bin/enginebench, bin/libggml-cuda.so + cuBLAS
#   scripts/check-cuda.sh          # BIN=DIR to check binaries elsewhere
#
# Rows:
#   device      actor device: the GPU found (the script stops without one)
#   logits      engine/ggml's TestCUDAMatchesCPU (random models in F32, F16,
#               Q8_0, Q4_0, Q4_K, Q6_K, flash attention off and on: logits,
#               hidden states and attention rows, GPU vs CPU): bin/ggml.test,
#               or go test when go is here
#   tiny/NAME   each fixture model of engine/testdata/tiny: greedy ids of 24
#               tokens equal on both, and the largest difference of a chosen
#               token's log-probability
#   greedy/NAME SmolLM2-135M and Qwen2.5-Coder-0.5B ($ACTOR_HOME/models,
#               'actor models pull NAME' first): 64 greedy ids, GPU vs CPU
#   speed/NAME  enginebench: prefill of 512 tokens, decode of 64 (PROMPT,
#               DECODE), and a batched step of 8 sequences, tokens/s on CPU
#               and GPU
# Exit status: 0 when every row that ran passed, 1 otherwise (2: no GPU).
# GPU=cpu runs the whole script with the CPU in the GPU's place (no GPU
# needed; every comparison must then be exact): a check of the script.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$ROOT/bin}
ACTOR=$BIN/actor
export ACTOR_CUDA_LIB=${ACTOR_CUDA_LIB:-$BIN/libggml-cuda.so}
THREADS=${THREADS:-$(nproc)}
PROMPT=${PROMPT:-512}  # enginebench prompt tokens
DECODE=${DECODE:-64}   # and decoded tokens
GPU=${GPU:-cuda}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
rows=()
row() { rows+=("$(printf '| %s | %s | %s | %s |' "$1" "$2" "$3" "$4")"); }

[[ -x $ACTOR ]] || { echo "check-cuda: no $ACTOR (make cuda)" >&2; exit 2; }
dev=$("$ACTOR" device)
gpu=$(grep -P '^cuda\t' <<<"$dev" | head -1 | cut -f2)
if [[ $GPU == cpu ]]; then
	gpu="none, CPU in its place (GPU=cpu)"
elif [[ -z $gpu || $gpu == none:* ]]; then
	echo "check-cuda: no GPU to check: ${gpu:-$dev}" >&2
	exit 2
fi
row device "$gpu" "" ok

# Greedy continuation with --trace on one device: the ids, one a line, and
# the log-probabilities in $3.ids / $3.lp.
greedy() { # model prompt out device tokens
	"$ACTOR" generate --model "$1" --prompt-file "$2" --max-tokens "$5" --threads "$THREADS" \
		--device "$4" --trace "$3.trace" >/dev/null 2>"$3.err" || { cat "$3.err" >&2; return 1; }
	grep -o '"id":[0-9-]*' "$3.trace" | cut -d: -f2 >"$3.ids"
	grep -o '"logprob":[-0-9.e+]*' "$3.trace" | cut -d: -f2 >"$3.lp"
}
# compare NAME MODEL TOKENS: greedy ids on both devices and the largest
# log-probability difference.
compare() {
	local name=$1 model=$2 n=$3 label=${4:-$2} prompt=$TMP/prompt.txt
	printf 'def fibonacci(n):\n    """Return the n-th Fibonacci number."""\n' >"$prompt"
	if ! greedy "$model" "$prompt" "$TMP/cpu" cpu "$n" || ! greedy "$model" "$prompt" "$TMP/gpu" "$GPU" "$n"; then
		row "$name" "$label" "run failed" FAIL; fail=1; return
	fi
	local same total diff
	total=$(wc -l <"$TMP/cpu.ids")
	same=$(paste "$TMP/cpu.ids" "$TMP/gpu.ids" | awk '$1 != $2 {exit} {n++} END {print n+0}')
	diff=$(paste "$TMP/cpu.lp" "$TMP/gpu.lp" | awk '{d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d} END {printf "%.2g", m}')
	if [[ $same -eq $total && $total -gt 0 ]]; then
		row "$name" "$label" "$same/$total greedy ids equal, max |Δ logprob| $diff" ok
	else
		row "$name" "$label" "first $same of $total greedy ids equal, max |Δ logprob| $diff" FAIL
		fail=1
	fi
}

# The GPU-vs-CPU test of engine/ggml: bin/ggml.test (make cuda builds it),
# else go test.
gotest=()
if [[ -x $BIN/ggml.test ]]; then
	gotest=("$BIN/ggml.test" -test.count=1 -test.v -test.run '^TestCUDAMatchesCPU$')
elif command -v go >/dev/null; then
	gotest=(go test -tags cudacheck -count=1 -v -run '^TestCUDAMatchesCPU$' ./engine/ggml/)
fi
if [[ ${#gotest[@]} -eq 0 ]]; then
	row logits "random models" "neither bin/ggml.test nor go here" skipped
elif out=$(cd "$ROOT/engine/ggml" && "${gotest[@]}" 2>&1); then
	if grep -q -- '--- PASS' <<<"$out"; then
		worst=$(grep -o 'max |GPU-CPU| [0-9.e+-]* of max [0-9.e+-]*' <<<"$out" |
			awk '{r = $3 / ($6 > 0 ? $6 : 1); if (r > m) {m = r; w = $0}} END {print w}')
		row logits "random models, 6 types × flash off/on" "worst: $worst" ok
	else
		row logits "random models" "$(grep -m1 -B1 -- '--- SKIP' <<<"$out" | head -1 | sed 's/^ *[a-z_]*\.go:[0-9]*: //')" skipped
	fi
else
	row logits "random models" "$(grep -m1 'differs\|FAIL\|Error' <<<"$out")" FAIL
	fail=1
fi

for f in "$ROOT"/engine/testdata/tiny/*.gguf; do
	compare "tiny/$(basename "$f" .gguf)" "$f" 24 "$(basename "$f")"
done
for m in smollm2-135m qwen2.5-coder-0.5b; do
	if "$ACTOR" models list 2>/dev/null | grep -q "^$m .* missing "; then
		row "greedy/$m" "$m" "not in \$ACTOR_HOME/models (actor models pull $m)" skipped
		continue
	fi
	compare "greedy/$m" "$m" 64
done

# Speed: the model files as actor resolves them.
bench=$BIN/enginebench
for m in smollm2-135m qwen2.5-coder-0.5b; do
	path=$("$ACTOR" models list 2>/dev/null | awk -v m="$m" '$1 == m {for (i = 2; i <= NF; i++) if ($i ~ /^\//) {print $i; exit}}')
	if [[ ! -x $bench || ! -f $path ]]; then
		row "speed/$m" "$m" "no enginebench or model file" skipped
		continue
	fi
	line=""
	for d in cpu "$GPU"; do
		j=$("$bench" --model "$path" --device "$d" --threads "$THREADS" --prompt "$PROMPT" --decode "$DECODE" --lanes 8 2>"$TMP/bench.err") ||
			{ row "speed/$m" "$d" "$(tail -1 "$TMP/bench.err")" FAIL; fail=1; continue 2; }
		line+=$(sed 's/[{}"]//g' <<<"$j" | tr ',' '\n' | awk -F: -v d="$d" '
			$1 == "prefill_tps" {p = $2} $1 == "decode_tps" {t = $2} $1 == "lanes_step_ms" {l = $2}
			END {printf "%s: prefill %.0f, decode %.1f, 8 lanes %.0f tok/s; ", d, p, t, 8000 / l}')
	done
	row "speed/$m" "$m ($PROMPT prompt, $DECODE decode)" "${line%; }" ok
done

echo "| check | model / device | result | status |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
exit $fail
