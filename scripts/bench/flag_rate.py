#!/usr/bin/env python3
"""How often each run's method fired and whether any sample came out blank,
from the traces of `actor run --trace` (the last trace of a task/sample wins,
as in overhead.py).

For each run folder prints one Markdown row: samples; judged tokens (the
generated tokens ACToR's probe reads: not the first, not white space) and the
share of them the probe flagged (retrieval triggers), with context changes;
attempts generated again and why; and samples whose kept body is blank, by
the reason their last attempt stopped (eog, rule, max, context).

    python3 scripts/bench/flag_rate.py runs/dev-actor runs/dev-rawrag
"""

import sys

from overhead import rows  # the last trace of each task/sample


def main():
    print("| method | samples | judged | flagged | flagged / judged | context changes | attempts again (empty / pass) | blank bodies (by stop reason) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for folder in sys.argv[1:]:
        ts = rows(folder)
        judged = sum(t.get("judged", 0) for t in ts)
        trig = sum(t.get("triggers", 0) for t in ts)
        chg = sum(t.get("context_changes", 0) for t in ts)
        again = [a["retry"] for t in ts for a in t["attempts"] if a.get("retry")]
        blank = {}
        for t in ts:
            last = t["attempts"][-1]
            if not last.get("body", "").strip():
                blank[last.get("stop", "?")] = blank.get(last.get("stop", "?"), 0) + 1
        rate = f"{100 * trig / judged:.2f} %" if judged else ""
        print(f"| {ts[0]['method']} | {len(ts)} | {judged} | {trig} | {rate} | {chg} | "
              f"{len(again)} ({again.count('empty')} / {again.count('pass')}) | {sum(blank.values())} {blank or ''} |")


if __name__ == "__main__":
    main()
