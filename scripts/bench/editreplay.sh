#!/bin/bash
# An editing session replayed against actor serve and llama-cpp-python's
# server on the same model file (issue: editor completions): the lines of
# the first short function bodies of click's utils.py typed again in
# place, a request at every word (scripts/bench/editreplay). Each row gets a
# freshly started server, so its first request is cold; rows run one
# after the other, never side by side. A row whose log is in OUT is not
# run again (resumable: logs are moved there whole).
#
#   SRC=DIR [VENV=DIR] [LINE_LAST=1] [ROWS="infill infill-reuse0"] scripts/bench/editreplay.sh
#
# SRC holds click-8.1.7 (scripts/bench/linecomplete.sh fetches it); VENV,
# when set, is a Python environment holding llama-cpp-python[server].
# LINE_LAST=1 serves with --cursor-line-last (the cursor line's typed
# text after <|fim_middle|>) into OUT's default with -line-last.
# Rows (actor serve with its default --cache-reuse 256 unless named:
# llama.cpp's reuse, runs that moved toward the start because text before
# them was removed are placed from the cache, and chunks moved by chunks
# added before them):
#   infill            /infill as llama.vim asks, 3 functions, the
#                     repository's context (--method rawprompt)
#   infill-reuse0     the same with --cache-reuse 0 (exact), for what
#                     reuse costs and saves
#   infill-actor      the first function with "actor": true (--method
#                     actor: the shipped probe)
#   infill-actor-reuse0  the same with --cache-reuse 0
#   infill-1          the first function without ACToR, for the row above
#   completions       /v1/completions with a suffix, greedy, 16 tokens,
#                     no repository context, the first function
#   llama-cpp-python  the same prompts to llama-cpp-python's server (laid
#                     out as text, llama.cpp's layout: -fim-text)
# ROWS, when set, names the rows to run (default all). FILE (a path in
# click-8.1.7) and AFTER (a line: only functions after it) replay
# elsewhere.
# Each row prints the completions' first lines against the rest of the
# line in the file (exact, edit similarity) beside the latencies.
set -euo pipefail
cd "$(dirname "$0")/../.."
SRC=${SRC:?set SRC to the folder holding click-8.1.7}
LINE_LAST=${LINE_LAST:-}
OUT=${OUT:-results/editreplay-qwen2.5-coder-0.5b${LINE_LAST:+-line-last}}
ACTOR=${ACTOR:-bin/actor}
MODEL=${MODEL:-qwen2.5-coder-0.5b}
THREADS=${THREADS:-2}
file=$SRC/click-8.1.7/${FILE:-src/click/utils.py}
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -z "${pid:-}" ] || kill $pid 2>/dev/null || true' EXIT
replay=$tmp/editreplay
go build -o "$replay" ./scripts/bench/editreplay
. scripts/bench/servers.sh

serve() { # METHOD REUSE: start actor serve on click with --cache-reuse REUSE
	free http://127.0.0.1:18015
	"$ACTOR" serve --model "$MODEL" --repo "$SRC/click-8.1.7" --addr 127.0.0.1:18015 --threads "$THREADS" \
		--method "$1" --encoder none --cache-reuse "$2" ${LINE_LAST:+--cursor-line-last} >"$SRC/editreplay-serve.log" 2>&1 &
	pid=$!
	wait_up http://127.0.0.1:18015 $pid "$SRC/editreplay-serve.log"
}
stop() { kill $pid; wait $pid 2>/dev/null || true; pid=; }
row() { # NAME ARGS...: one replay into OUT/NAME.jsonl and OUT/NAME.txt
	local name=$1
	shift
	"$replay" -file "$file" -after "${AFTER:-0}" -out "$tmp/$name.jsonl" "$@" >"$tmp/$name.txt"
	mv "$tmp/$name.jsonl" "$tmp/$name.txt" "$OUT/"
	echo "$name: $(tail -1 "$OUT/$name.txt")"
}
# done_before NAME: the row is in OUT already, or not asked for in ROWS
done_before() { [ -s "$OUT/$1.txt" ] || { [ -n "${ROWS:-}" ] && [[ " $ROWS " != *" $1 "* ]]; }; }

actor_row() { # NAME METHOD REUSE ARGS...: a row against a fresh actor serve --method METHOD --cache-reuse REUSE
	local name=$1 method=$2 reuse=$3
	shift 3
	done_before "$name" && return 0
	serve "$method" "$reuse"
	row "$name" -url http://127.0.0.1:18015 "$@"
	stop
}
actor_row infill rawprompt 256 -functions 3
actor_row infill-reuse0 rawprompt 0 -functions 3
actor_row infill-1 rawprompt 256 -functions 1
actor_row completions rawprompt 256 -functions 1 -api completions -max-tokens 16
actor_row infill-actor actor 256 -functions 1 -actor
actor_row infill-actor-reuse0 actor 0 -functions 1 -actor
if [ -n "${VENV:-}" ] && ! done_before llama-cpp-python; then
	free http://127.0.0.1:18016
	"$VENV/bin/python" -m llama_cpp.server --model "${ACTOR_HOME:-$HOME/.cache/actor}/models/$MODEL.gguf" --host 127.0.0.1 --port 18016 \
		--n_threads "$THREADS" --n_threads_batch "$THREADS" --n_ctx 8192 >"$SRC/editreplay-llamacpp.log" 2>&1 &
	pid=$!
	wait_up http://127.0.0.1:18016 $pid "$SRC/editreplay-llamacpp.log"
	row llama-cpp-python -url http://127.0.0.1:18016 -functions 1 -api completions -max-tokens 16 -fim-text
	stop
fi
for f in "$OUT"/*.txt; do echo "$(basename "$f" .txt): $(tail -1 "$f")"; done
