#!/usr/bin/env python3
"""Load test of `actor serve`: CLIENTS concurrent clients each send REQUESTS
short plain completions (POST /v1/completions) one after another, and the
script prints a Markdown row: requests answered 200, 429 (queue full), 503
and anything else, the latency of the 200s (p50, p95, max), the throughput
of answered requests and generated tokens, and the server's largest
resident memory (sampled from /proc every 50 ms when --pid is given).

    bin/actor serve --model smollm2-135m --repo DIR --queue 16 &
    python3 scripts/bench/serve_load.py --url http://127.0.0.1:8080 --pid $! \\
        --clients 50 --requests 6 --max-tokens 16

Standard library only. Any status other than 200, 429 and 503, or a
connection error, is counted as an error and makes the exit status 1.
"""

import argparse
import json
import statistics
import threading
import time
import urllib.error
import urllib.request

PROMPTS = [
    "def fibonacci(n):\n",
    "def is_prime(n):\n    \"\"\"Return True when n is prime.\"\"\"\n",
    "class Stack:\n    def push(self, item):\n",
    "def read_lines(path):\n",
]


def request(url, body, token):
    req = urllib.request.Request(url + "/v1/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    if token:
        req.add_header("Authorization", "Bearer " + token)
    start = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            out = json.load(r)
            return r.status, time.monotonic() - start, out["usage"]["completion_tokens"]
    except urllib.error.HTTPError as e:
        json.load(e)  # every error is a JSON object
        return e.code, time.monotonic() - start, 0


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", default="http://127.0.0.1:8080")
    ap.add_argument("--token", default="")
    ap.add_argument("--pid", type=int, default=0, help="the server's process id, to sample its memory")
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=6, help="requests per client")
    ap.add_argument("--max-tokens", type=int, default=16)
    a = ap.parse_args()

    results, lock = [], threading.Lock()

    def client(i):
        for j in range(a.requests):
            body = {"prompt": PROMPTS[(i + j) % len(PROMPTS)], "max_tokens": a.max_tokens, "temperature": 0, "seed": i}
            try:
                r = request(a.url, body, a.token)
            except Exception as e:  # connection refused or reset: an error
                r = (repr(e), 0.0, 0)
            with lock:
                results.append(r)

    peak, stop = [0], threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max(peak[0], rss_kib(a.pid))
            time.sleep(0.05)

    if a.pid:
        threading.Thread(target=sample, daemon=True).start()
    start = time.monotonic()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(a.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - start
    stop.set()

    count = lambda code: sum(1 for r in results if r[0] == code)
    ok = sorted(r[1] for r in results if r[0] == 200)
    tokens = sum(r[2] for r in results)
    errors = len(results) - count(200) - count(429) - count(503)
    q = statistics.quantiles(ok, n=20, method="inclusive") if len(ok) >= 2 else [0] * 19
    print("| clients × requests | 200 | 429 | 503 | errors | p50 s | p95 s | max s | req/s | tokens/s | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {a.clients} × {a.requests} | {count(200)} | {count(429)} | {count(503)} | {errors} | "
          f"{statistics.median(ok) if ok else 0:.2f} | {q[18]:.2f} | {max(ok) if ok else 0:.2f} | "
          f"{count(200) / wall:.2f} | {tokens / wall:.1f} | {peak[0] / 1024:.0f} |")
    if errors:
        print("errors:", sorted({str(r[0]) for r in results if r[0] not in (200, 429, 503)}))
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
