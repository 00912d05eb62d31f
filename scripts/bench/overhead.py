#!/usr/bin/env python3
"""Where generation time goes, per method, from the traces of `actor run --trace`.

For each run folder (its traces.jsonl, or traces.jsonl.gz when only that is
there, as committed results keep them; the last trace of a task/sample wins, as
a resumed run may have traced a sample it then generated again) prints one
Markdown row: samples, generated tokens, and per generated token the time of
the first prefill, of decoding, and, inside decoding, of ACToR's work: the
probe, retrieval (query embedding, search, prompt building) and re-prefills
after a context change. "plain" is decoding minus that work; the last column
is ACToR's work as a share of plain decoding.

    python3 scripts/bench/overhead.py runs/repoexec-dev-smollm2/{rawprompt,rawrag,repocoder,rlcoder,actor}
"""

import gzip
import json
import os
import sys


def traces_file(folder):
    """The run folder's traces file: traces.jsonl, or its gzipped copy when only that is there."""
    path = os.path.join(folder, "traces.jsonl")
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        return path + ".gz"
    return path


def rows(folder):
    last = {}
    path = traces_file(folder)
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        for line in f:
            if line.strip():
                t = json.loads(line)
                last[(t["task"], t["sample"])] = t
    return list(last.values())


def main():
    print("| method | samples | tokens | prefill ms/token | decode ms/token | plain | probe | retrieval | re-prefill | triggers | context changes | ACToR work / plain |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for folder in sys.argv[1:]:
        ts = rows(folder)
        tok = sum(t["generated"] for t in ts)
        pre = sum(a.get("prefill_ms", 0) for t in ts for a in t["attempts"])
        dec = sum(a.get("decode_ms", 0) for t in ts for a in t["attempts"])
        probe = sum(t.get("probe_ms", 0) for t in ts)
        retr = sum(t.get("retrieve_ms", 0) for t in ts if t["method"].startswith("actor"))
        repre = sum(t.get("reprefill_ms", 0) for t in ts)
        work = probe + retr + repre
        plain = dec - work
        trig = sum(t.get("triggers", 0) for t in ts)
        chg = sum(t.get("context_changes", 0) for t in ts)
        share = f"{100 * work / plain:+.0f} %" if work else ""
        print(f"| {ts[0]['method']} | {len(ts)} | {tok} | {pre / tok:.1f} | {dec / tok:.1f} | {plain / tok:.1f} | {probe / tok:.2f} | "
              f"{retr / tok:.1f} | {repre / tok:.1f} | {trig} | {chg} | {share} |")


if __name__ == "__main__":
    main()
