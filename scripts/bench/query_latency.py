#!/usr/bin/env python3
"""Query embedding latency of all-MiniLM-L6-v2 in sentence-transformers: the reference for
`go test ./encoder -run XXX -bench Query` (same query text, a different draft number per call so
that nothing is cached, normalised embedding, one text per call).

    python3 scripts/bench/query_latency.py --threads 1 --calls 20

Needs sentence-transformers (pip) and `actor models pull all-minilm-l6-v2`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

# The same text as benchQuery in encoder/bench_test.go.
QUERY = '''def read_config(path: str, defaults: dict | None = None) -> dict:
    """Read a TOML configuration file and merge it over the defaults.

    Missing keys keep their default values; unknown keys raise ValueError.
    """
'''


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--calls", type=int, default=20)
    args = ap.parse_args()
    import torch
    torch.set_num_threads(args.threads)
    from sentence_transformers import SentenceTransformer
    home = os.environ.get("ACTOR_HOME", os.path.expanduser("~/.cache/actor"))
    st = SentenceTransformer(os.path.join(home, "models", "all-minilm-l6-v2"), device="cpu")
    st.encode([QUERY])  # warm-up
    times = []
    for i in range(args.calls):
        text = f"{QUERY}    # draft {i}\n"
        t0 = time.perf_counter()
        st.encode([text], normalize_embeddings=True)
        times.append((time.perf_counter() - t0) * 1000)
    print(f"sentence-transformers, {args.threads} thread(s), {args.calls} calls: "
          f"median {statistics.median(times):.1f} ms, best {min(times):.1f} ms")


if __name__ == "__main__":
    main()
