#!/usr/bin/env python3
"""Summarise scripts/bench/engine.sh results (JSON lines) as a Markdown table.

engine.sh alternates the engines on the same model and thread count, so
repetition i of each engine ran in the same time window. For every actor
build the table gives the median over repetitions of its tokens/s and of
llama.cpp's, and the median of the per-repetition ratios actor / llama.cpp
(robust to load from other processes on a shared machine).
"""

import json
import os
import statistics
import sys
from collections import defaultdict

def main() -> None:
    runs = defaultdict(lambda: defaultdict(list))
    for line in open(sys.argv[1]):
        r = json.loads(line)
        runs[(os.path.basename(r["model"]).removesuffix(".gguf"), r["threads"])][r["engine"]].append(r)
    med = statistics.median
    print("| model | thr | actor build | prefill tok/s: actor / llama.cpp = ratio | decode tok/s: actor / llama.cpp = ratio "
          "| ratios per CPU-s (prefill, decode) | peak RSS MB: actor / llama.cpp (budget) | step ms with / without hidden |")
    print("|---|---|---|---|---|---|---|---|")
    for (model, threads), by in sorted(runs.items()):
        ref = by["llama.cpp"]
        for engine in sorted(e for e in by if e != "llama.cpp"):
            a = by[engine]
            n = min(len(a), len(ref))

            def cell(key: str) -> str:
                ratio = med(a[i][key] / ref[i][key] for i in range(n))
                return f"{med(x[key] for x in a):.1f} / {med(x[key] for x in ref):.1f} = **{ratio:.2f}**"

            def ratio(key: str) -> str:
                return f"{med(a[i][key] / ref[i][key] for i in range(n)):.2f}"

            budget = a[0]["file_mb"] + a[0]["kv_mb"] + 300
            rss = f"{max(x['peak_rss_mb'] for x in a):.0f} / {max(x['peak_rss_mb'] for x in ref):.0f} ({budget:.0f})"
            step = f"{med(x['step_hidden_ms'] for x in a):.1f} / {med(x['step_ms'] for x in a):.1f}"
            print(f"| {model} | {threads} | {engine.removeprefix('actor')or 'default'} | {cell('prefill_tps')} | "
                  f"{cell('decode_tps')} | {ratio('prefill_cpu_tps')}, {ratio('decode_cpu_tps')} | {rss} | {step} |")
    print(f"\n(medians over {n} repetitions; ratios are medians of per-repetition ratios)")


if __name__ == "__main__":
    main()
