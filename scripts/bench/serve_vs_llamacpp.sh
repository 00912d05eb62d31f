#!/bin/bash
# Plain completions: actor serve against llama.cpp's server (llama-cpp-python's
# llama_cpp.server) on the same GGUF file, one thread each, the same requests
# (scripts/bench/serve_load.py: greedy, --max-tokens tokens), in alternating
# rounds so that both see the same machine load. Prints one Markdown row per
# server and round.
#
#   scripts/bench/serve_vs_llamacpp.sh MODEL.gguf VENV [ROUNDS] [CLIENTS] [REQUESTS] [MAX_TOKENS]
#
# VENV is a Python environment with llama-cpp-python and its server extras
# (pip install 'llama-cpp-python[server]').
set -euo pipefail
model=$1 venv=$2 rounds=${3:-2} clients=${4:-1} requests=${5:-20} tokens=${6:-32}
here=$(cd "$(dirname "$0")" && pwd)
actor=${ACTOR:-bin/actor}
. "$here/servers.sh"
logs=$(mktemp -d)
free http://127.0.0.1:18181
free http://127.0.0.1:18182
for r in $(seq "$rounds"); do
  "$actor" serve --model "$model" --repo examples/inventory --addr 127.0.0.1:18181 --threads 1 --queue 64 --method rawprompt --encoder none >"$logs/actor.log" 2>&1 &
  pid=$!
  wait_up http://127.0.0.1:18181 $pid "$logs/actor.log"
  echo -n "actor serve, round $r: "
  python3 "$here/serve_load.py" --url http://127.0.0.1:18181 --pid $pid --clients "$clients" --requests "$requests" --max-tokens "$tokens" | tail -1
  kill $pid; wait $pid 2>/dev/null || true
  "$venv/bin/python" -m llama_cpp.server --model "$model" --host 127.0.0.1 --port 18182 --n_threads 1 --n_threads_batch 1 --n_ctx 2048 >"$logs/llama.log" 2>&1 &
  pid=$!
  wait_up http://127.0.0.1:18182 $pid "$logs/llama.log"
  echo -n "llama.cpp server, round $r: "
  python3 "$here/serve_load.py" --url http://127.0.0.1:18182 --pid $pid --clients "$clients" --requests "$requests" --max-tokens "$tokens" | tail -1
  kill $pid; wait $pid 2>/dev/null || true
done
