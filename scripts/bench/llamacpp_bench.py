#!/usr/bin/env python3
"""llama.cpp side of the engine benchmark (see scripts/bench/engine.sh).

Loads a GGUF with llama-cpp-python, prefills the same synthetic 512-token
prompt as scripts/bench/enginebench (ids 100 + (i*7919) % (vocab-200)),
then decodes greedily one token per llama_decode, and prints one JSON line
with the same fields: prefill/decode tokens per second (wall and per CPU
second of the process), load time and peak RSS.
"""

import argparse
import json
import os
import resource
import time

import llama_cpp
import numpy as np
from llama_cpp import Llama


def bench_ids(n: int, vocab: int) -> list[int]:
    return [100 + (i * 7919) % (vocab - 200) for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--prompt", type=int, default=512)
    ap.add_argument("--decode", type=int, default=64)
    ap.add_argument("--flash-attn", action="store_true")
    args = ap.parse_args()

    t0 = time.perf_counter()
    n_ctx = args.prompt + 2 * args.decode + 8
    llm = Llama(model_path=args.model, n_ctx=n_ctx, n_batch=512, n_ubatch=512,
                n_threads=args.threads, n_threads_batch=args.threads,
                flash_attn=args.flash_attn, logits_all=False, verbose=False)
    load_s = time.perf_counter() - t0
    ids = bench_ids(args.prompt, llm.n_vocab())

    llm.eval(ids[:8])  # warm-up, as enginebench does
    llm.reset()
    t0, c0 = time.perf_counter(), time.process_time()
    llm.eval(ids)
    prefill_s, prefill_c = time.perf_counter() - t0, time.process_time() - c0

    def next_token() -> int:  # argmax of the last logits (copied, as actor does)
        row = np.ctypeslib.as_array(llama_cpp.llama_get_logits(llm.ctx), shape=(llm.n_vocab(),))
        return int(np.argmax(row.copy()))

    tok = next_token()
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(args.decode):
        llm.eval([tok])
        tok = next_token()
    decode_s, decode_c = time.perf_counter() - t0, time.process_time() - c0

    print(json.dumps({
        "engine": "llama.cpp",
        "model": args.model,
        "threads": args.threads,
        "flash_attn": args.flash_attn,
        "prompt_tokens": args.prompt,
        "decode_tokens": args.decode,
        "prefill_tps": args.prompt / prefill_s,
        "decode_tps": args.decode / decode_s,
        "prefill_cpu_tps": args.prompt / prefill_c,
        "decode_cpu_tps": args.decode / decode_c,
        "step_ms": 1e3 * decode_s / args.decode,
        "load_s": load_s,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "file_mb": os.path.getsize(args.model) / (1 << 20),
    }))


if __name__ == "__main__":
    main()
