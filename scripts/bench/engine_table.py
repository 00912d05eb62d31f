#!/usr/bin/env python3
"""Summarise scripts/bench/engine.sh results (JSON lines) as a Markdown table.

Runs alternate actor / llama.cpp on the same model and thread count, so each
repetition i gives a pair measured in the same time window. The table shows
the median over repetitions of each engine's tokens/s and the median of the
per-pair ratios actor / llama.cpp (robust to load from other processes).
"""

import json
import os
import statistics
import sys
from collections import defaultdict


def main() -> None:
    runs = defaultdict(lambda: {"actor": [], "llama.cpp": []})
    for line in open(sys.argv[1]):
        r = json.loads(line)
        key = (os.path.basename(r["model"]), r["threads"], r.get("flash_attn", False))
        runs[key][r["engine"]].append(r)
    med = statistics.median
    print("| model | threads | flash | metric | actor | llama.cpp | ratio (median of pairs) |")
    print("|---|---|---|---|---|---|---|")
    for (model, threads, flash), by in sorted(runs.items()):
        a, l = by["actor"], by["llama.cpp"]
        n = min(len(a), len(l))
        for metric in ["prefill_tps", "decode_tps", "prefill_cpu_tps", "decode_cpu_tps"]:
            ratios = [a[i][metric] / l[i][metric] for i in range(n)]
            print(f"| {model} | {threads} | {flash} | {metric} | {med(x[metric] for x in a):.1f} | "
                  f"{med(x[metric] for x in l):.1f} | {med(ratios):.2f} (n={n}) |")
        rss_a, rss_l = max(x["peak_rss_mb"] for x in a), max(x["peak_rss_mb"] for x in l)
        print(f"| {model} | {threads} | {flash} | peak RSS MB | {rss_a:.0f} | {rss_l:.0f} | "
              f"budget file+KV+300 = {a[0]['file_mb'] + a[0]['kv_mb'] + 300:.0f} |")
        hid = med(x["step_hidden_ms"] / x["step_ms"] for x in a)
        print(f"| {model} | {threads} | {flash} | step with hidden / without | "
              f"{med(x['step_hidden_ms'] for x in a):.2f} ms / {med(x['step_ms'] for x in a):.2f} ms | | {hid:.3f} |")


if __name__ == "__main__":
    main()
