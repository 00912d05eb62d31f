#!/usr/bin/env bash
# Issue 11's live lever comparison: RawRAG, exact ACToR and ACToR under each
# cost lever on the same tasks and seeds, interleaved STEP tasks at a time so
# that every run sees the same machine load (ratios, not absolute times, are
# the result). Resumable: each `actor run` skips the samples already in its
# predictions, so rerunning continues where it stopped.
#
#   scripts/bench/levers.sh OUT DATA REPOS [RUN ...]
#
# RUN names a run below (default: all). Then, per run folder:
#   python3 scripts/bench/overhead.py OUT/*
#   actor bench run --benchmark repoexec --data DATA --predictions OUT/RUN/predictions.jsonl ...
set -euo pipefail
out=$1 data=$2 repos=$3
shift 3
actor=${ACTOR:-bin/actor}
step=${STEP:-4}
declare -A args=(
  [rawrag]="--method rawrag"
  [actor]="--method actor --exact"
  [actor-set]="--method actor --exact --context-change set --name actor-set"
  [actor-stable]="--method actor --exact --layout stable --name actor-stable"
  [actor-reuse]="--method actor --exact --kv-reuse --name actor-reuse"
  [actor-stable-reuse]="--method actor --exact --layout stable --kv-reuse --name actor-stable-reuse"
  [actor-stable-tail]="--method actor --exact --layout stable --kv-reuse --kv-reuse-tail --name actor-stable-tail"
)
runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(rawrag actor actor-set actor-stable)
total=$(grep -c . "$data/tasks.jsonl" 2>/dev/null || grep -c . "$data")
for ((limit = step; limit < total + step; limit += step)); do
  for r in "${runs[@]}"; do
    # shellcheck disable=SC2086
    "$actor" run --benchmark repoexec --data "$data" --repos "$repos" ${args[$r]} \
      -n 1 --no-eval --trace --threads "${THREADS:-2}" --limit "$limit" --out "$out/$r" 2>>"$out/$r.log"
  done
  echo "$(date +%T) $limit of $total tasks" >&2
done
