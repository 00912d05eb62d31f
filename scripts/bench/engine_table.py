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

METRICS = [("prefill_tps", "prefill tok/s"), ("decode_tps", "decode tok/s"),
           ("prefill_cpu_tps", "prefill tok/CPU-s"), ("decode_cpu_tps", "decode tok/CPU-s")]


def main() -> None:
    runs = defaultdict(lambda: defaultdict(list))
    for line in open(sys.argv[1]):
        r = json.loads(line)
        runs[(os.path.basename(r["model"]), r["threads"])][r["engine"]].append(r)
    med = statistics.median
    print("| model | threads | build | metric | actor | llama.cpp | actor / llama.cpp |")
    print("|---|---|---|---|---|---|---|")
    for (model, threads), by in sorted(runs.items()):
        ref = by["llama.cpp"]
        for engine in sorted(e for e in by if e != "llama.cpp"):
            a = by[engine]
            n = min(len(a), len(ref))
            for key, label in METRICS:
                ratio = med(a[i][key] / ref[i][key] for i in range(n))
                print(f"| {model} | {threads} | {engine} | {label} | {med(x[key] for x in a):.1f} | "
                      f"{med(x[key] for x in ref):.1f} | {ratio:.2f} (n={n}) |")
            budget = a[0]["file_mb"] + a[0]["kv_mb"] + 300
            print(f"| {model} | {threads} | {engine} | peak RSS MB (budget {budget:.0f}) | "
                  f"{max(x['peak_rss_mb'] for x in a):.0f} | {max(x['peak_rss_mb'] for x in ref):.0f} | |")
            hidden = med(x["step_hidden_ms"] / x["step_ms"] for x in a)
            print(f"| {model} | {threads} | {engine} | step ms, hidden read / not | "
                  f"{med(x['step_hidden_ms'] for x in a):.2f} / {med(x['step_ms'] for x in a):.2f} | | {hidden:.2f} |")


if __name__ == "__main__":
    main()
