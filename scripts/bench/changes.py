#!/usr/bin/env python3
"""What ACToR's context changes cost and, with --kv-reuse-check, how far
block KV reuse moved the prediction, from the traces of `actor run --trace`
(the last trace of a task/sample wins, as in overhead.py).

For each run folder prints one Markdown row: context changes; per change the
tokens the re-prefill evaluated, the block tokens placed from the block store
(--kv-reuse) and the re-prefill time; and, where the trace has reuse checks,
the KL divergence exact ‖ reused of the next-token distribution (mean, median,
90th percentile, largest), the share of changes where both predict the same
most likely token, and the tokens the exact prefill would have evaluated.

    python3 scripts/bench/changes.py runs/levers/actor runs/levers/actor-reuse
"""

import statistics
import sys

from overhead import rows  # the last trace of each task/sample


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    print("| run | changes | re-prefilled / change | of which blocks computed alone | placed / change | re-prefill ms / change | checked | KL mean | KL median | KL p90 | KL max | same top-1 | exact tokens / change |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for folder in sys.argv[1:]:
        ts = rows(folder)
        evs = [e for t in ts for a in t["attempts"] for e in a["tokens"] if e.get("changed")]
        n = len(evs)
        if n == 0:
            print(f"| {folder} | 0 | | | | | | | | | | | |")
            continue
        rep = sum(e.get("reprefilled", 0) for e in evs) / n
        placed = sum(e.get("placed", 0) for e in evs) / n
        alone = sum(e.get("alone", 0) for e in evs) / n
        ms = sum(e.get("prefill_ms", 0) for e in evs) / n
        checks = [e["reuse"] for e in evs if e.get("reuse")]
        row = f"| {ts[0]['method']} | {n} | {rep:.0f} | {alone:.0f} | {placed:.0f} | {ms:.0f} | {len(checks)} |"
        if checks:
            kl = [c["kl"] for c in checks]
            same = sum(c["same_top1"] for c in checks) / len(checks)
            exact = sum(c["exact_evaluated"] for c in checks) / len(checks)
            row += (f" {statistics.mean(kl):.4f} | {statistics.median(kl):.4f} | {quantile(kl, 0.9):.4f} | {max(kl):.4f} |"
                    f" {100 * same:.1f} % | {exact:.0f} |")
        else:
            row += " | | | | | |"
        print(row)


if __name__ == "__main__":
    main()
