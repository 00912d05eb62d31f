#!/usr/bin/env bash
# Throughput of a run spread over 1, 2 and 3 'actor worker' processes on
# this machine through a local NATS JetStream server (BENCHMARKS.md, "Runs
# across machines"). Usage, from the repository root:
#   scripts/queue-throughput.sh DATA REPOS [MODEL] [TASKS] [SAMPLES] [TOKENS]
# DATA and REPOS as for actor run; rawprompt, one thread per worker. KEEP=1
# keeps the scratch folder (runs, logs).
set -euo pipefail
data=$1 repos=$2 model=${3:-smollm2-135m} tasks=${4:-6} n=${5:-2} tokens=${6:-64}
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; [ -n "${KEEP:-}" ] || rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/nats-server" github.com/nats-io/nats-server/v2
go build -o "$tmp/actor" ./cmd/actor
"$tmp/nats-server" -js -sd "$tmp/js" -a 127.0.0.1 -p 14222 2>"$tmp/nats.log" &
pids+=($!)
sleep 1
url=nats://127.0.0.1:14222
echo "scratch: $tmp"
for w in 1 2 3; do
  workers=()
  for i in $(seq "$w"); do
    "$tmp/actor" worker --queue "$url" --data "$data" --repos "$repos" --model "$model" --threads 1 2>"$tmp/worker$w-$i.log" &
    workers+=($!)
  done
  pids+=("${workers[@]}")
  start=$(date +%s.%N)
  "$tmp/actor" run --queue "$url" --benchmark repoexec --data "$data" --repos "$repos" --model "$model" \
    --method rawprompt --limit "$tasks" -n "$n" --max-tokens "$tokens" --temperature 0.6 --seed 1 \
    --threads 1 --no-eval --out "$tmp/run$w" 2>"$tmp/run$w.log"
  end=$(date +%s.%N)
  kill "${workers[@]}"
  wait "${workers[@]}" 2>/dev/null || true
  samples=$(wc -l <"$tmp/run$w/predictions.jsonl")
  echo "$w workers: $samples samples in $(echo "$end - $start" | bc) s: $(echo "scale=3; $samples / ($end - $start)" | bc) samples/s"
done
