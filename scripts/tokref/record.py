#!/usr/bin/env python3
"""Record llama.cpp's token ids as fixtures for the Go tokenizer tests.

The oracle is llama-cpp-python (pip install llama-cpp-python==0.3.36),
loading each GGUF with vocab_only=True. Two kinds of fixture are written to
tokenizer/testdata/:

  stdlib-<name>.tokref.gz  ids of a fixed subset of the Python standard
      library (see pick_files), encoded without BOS and without parsing
      special tokens. Format (gzip): one JSON header line, then per file:
      uvarint len(path), path (relative to the stdlib root, '/'-separated),
      32 bytes sha256 of the file's bytes, uvarint count, count uvarint ids.
  cases.json.gz  ids of hand-picked tricky strings in all four modes
      (add_bos x parse_special), and per tokenizer its BOS/EOS, the
      end-of-generation ids and the ids llama.cpp treats as control tokens.

Usage:
  python3 scripts/tokref/record.py [--vocab-dir DIR] [--smollm2 GGUF] [--qwen-coder GGUF] [--only NAME,...]

--only re-records the named tokenizers: their stdlib fixtures and their
entries of cases.json.gz (the other entries are kept). The models are those
`actor models pull smollm2-135m qwen2.5-coder-0.5b` leaves in the actor home
($ACTOR_HOME, default ~/.cache/actor).

The Go tests read the same stdlib files (root recorded in the header,
$ACTOR_PY_STDLIB overrides) and fail if a file's sha256 differs.
"""
import argparse
import io
import json
import os
import sys
import sysconfig

import llama_cpp

from tokref_common import default_cache, header_bytes, pick_files, read_gz, record_bytes, sha256_file, write_gz

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "tokenizer", "testdata")


def load(path):
    return llama_cpp.Llama(model_path=path, vocab_only=True, verbose=False)


def record_stdlib(name, gguf, files, root):
    llm = load(gguf)
    header = {
        "format": "actor-tokref-1",
        "tokenizer": name,
        "gguf": os.path.basename(gguf),
        "gguf_sha256": sha256_file(gguf),
        "oracle": "llama-cpp-python " + llama_cpp.__version__,
        "python": sys.version.split()[0],
        "stdlib": root,
        "add_bos": False,
        "parse_special": False,
        "files": len(files),
    }
    buf = io.BytesIO()
    buf.write(header_bytes(header))
    total = 0
    for i, (rel, data) in enumerate(files):
        ids = llm.tokenize(data, add_bos=False, special=False)
        total += len(ids)
        buf.write(record_bytes(rel, data, ids))
        print(f"\r{name}: {i + 1}/{len(files)} files, {total} tokens", end="", file=sys.stderr)
    print(file=sys.stderr)
    path = os.path.join(OUT, f"stdlib-{name}.tokref.gz")
    write_gz(path, buf.getvalue())
    print(f"{path}: {os.path.getsize(path)} bytes", file=sys.stderr)


CASES = [
    "", " ", "  ", "\n", "\n\n\n", "\t", " \t\n \r\n", "Hello world", " Hello", "hello  world  ",
    "def f(x):\n    return x**2  # square\n\n\nclass A(B):\n\tpass\n",
    "I'm you're they'll we've she'd HE'S IT'D don't", "'s 'S 'll", "1234567890 3.14159 1e-9 0x1F 007",
    "日本語のテキスト 中文字符 한국어 텍스트", "emoji 😀👍🏽 café naïve Ünïcödé", "x\u00a0y\u2003z\u3000w\u2028v\u0085u",
    "\u200b zero\u200dwidth", "Ǆǅǆ ΣΑΣ ſ Kelvin\u212a", "a" * 300, "=" * 1000, " " * 500 + "x", "\n" * 50,
    "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", "<s> </s> <unk> <s>x", "<|endoftext|>text<|endoftext|>",
    "<|fim_prefix|>def f():<|fim_suffix|>\n<|fim_middle|>", "<fim_prefix>x<fim_suffix>y<fim_middle>",
    "<｜fim▁begin｜>a<｜fim▁hole｜>b<｜fim▁end｜>", "õ÷Á ý À ÿ", "[PAD151646] [PAD32022]", "<|reserved_special_token_0|>",
    "<|begin_of_text|>hi<|eot_id|>", "<repo_name>r<file_sep>f.py\n", "\t\t\tindented\r\n\r\nwindows\r\n",
    "```python\nprint('hi')\n```", "é", " é", "▁ leading marker", "<0x0A> <0xFF>", "Ġ Ċ ĉ",
]


def record_cases(named, keep):
    """Writes cases.json.gz for the tokenizers named; keep: keep the
    other entries of the existing file."""
    path = os.path.join(OUT, "cases.json.gz")
    out = {"oracle": "llama-cpp-python " + llama_cpp.__version__, "texts": CASES, "tokenizers": {}}
    if keep:
        old = json.loads(read_gz(path))
        if old["oracle"] != out["oracle"] or old["texts"] != CASES:
            sys.exit(f"{path} was recorded with {old['oracle']} or other texts: rerun without --only")
        out = old
    for name, gguf in named:
        llm = load(gguf)
        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        n = llama_cpp.llama_vocab_n_tokens(vocab)
        entry = {
            "gguf": os.path.basename(gguf),
            "bos": llm.token_bos(),
            "eos": llm.token_eos(),
            "eog": [i for i in range(n) if llama_cpp.llama_vocab_is_eog(vocab, i)],
            "control": [i for i in range(n) if llama_cpp.llama_vocab_get_attr(vocab, i) & llama_cpp.LLAMA_TOKEN_ATTR_CONTROL],
            "ids": {},
        }
        for bos in (False, True):
            for special in (False, True):
                key = f"bos={int(bos)},special={int(special)}"
                entry["ids"][key] = [llm.tokenize(s.encode(), add_bos=bos, special=special) for s in CASES]
        out["tokenizers"][name] = entry
        print(f"cases: {name}", file=sys.stderr)
    data = json.dumps(out, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()
    write_gz(path, data)
    print(f"{path}: {os.path.getsize(path)} bytes", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vocab-dir", default=os.path.join(default_cache(), "vocab"))
    ap.add_argument("--smollm2", default=os.path.join(default_cache(), "models", "smollm2-135m.gguf"))
    ap.add_argument("--qwen-coder", default=os.path.join(default_cache(), "models", "qwen2.5-coder-0.5b.gguf"))
    ap.add_argument("--stdlib", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--only", type=lambda s: s.split(","), default=None)
    args = ap.parse_args()

    named = [(n, os.path.join(args.vocab_dir, f"ggml-vocab-{n}.gguf"))
             for n in ("llama-bpe", "llama-spm", "qwen2", "deepseek-coder")]
    named.append(("smollm2", args.smollm2))
    named.append(("qwen2.5-coder", args.qwen_coder))
    if args.only:
        named = [(n, p) for n, p in named if n in args.only]
    for _, path in named:
        if not os.path.exists(path):
            sys.exit(f"record.py: {path} is missing")

    os.makedirs(OUT, exist_ok=True)
    files = pick_files(args.stdlib)
    print(f"{len(files)} stdlib files from {args.stdlib}", file=sys.stderr)
    for name, gguf in named:
        record_stdlib(name, gguf, files, args.stdlib)
    record_cases(named, keep=bool(args.only))


if __name__ == "__main__":
    main()
