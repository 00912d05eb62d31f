#!/usr/bin/env python3
"""Record Hugging Face tokenizers' ids as fixtures for the Go tokenizer.json
loader (tokenizer/hf*_test.go).

The oracle is the `tokenizers` package (0.23.3; transformers 5.24.0 builds
the tokenizers of vocabulary-file folders and converts GGUF tokenizers).
Tokenizers (see make_sources):

  minilm         all-MiniLM-L6-v2's tokenizer.json (`actor models pull
                 all-minilm-l6-v2`), copied gzipped to
                 tokenizer/testdata/minilm-tokenizer.json.gz
  smollm2        tokenizer.json converted by transformers from the SmolLM2
                 GGUF, with the upstream pre-tokenizer (Digits +
                 ByteLevel, which the converter drops) put back; gzipped to
                 tokenizer/testdata/smollm2-tokenizer.json.gz
  qwen2.5-coder  tokenizer.json converted by transformers from the
                 Qwen2.5-Coder-0.5B GGUF (`actor models pull
                 qwen2.5-coder-0.5b`); gzipped to
                 tokenizer/testdata/qwen2.5-coder-tokenizer.json.gz
  roberta-gpt2   a RoBERTa-style folder (vocab.json, merges.txt,
                 tokenizer_config.json) made from llama.cpp's GPT-2 vocab
                 (ggml-vocab-gpt-2.gguf, scripts/fetch-vocab.sh): <s> <pad>
                 </s> <unk>, GPT-2's tokens, <mask>. The Go test writes the
                 same files itself (same bytes, checked by sha256).

Fixtures written to tokenizer/testdata/:

  hf-stdlib-<name>.tokref.gz  ids of the stdlib subset of record.py
      (tokref_common.pick_files), encoded as tokenizer.encode(text) does
      (post-processor applied, special tokens matched), with the sha256 of
      decode(ids) (special tokens skipped).
  hf-cases.json.gz  ids of tricky strings in two modes (default; special
      tokens not matched and no post-processor), decoded texts and
      truncated encodings, for the real tokenizers and for small synthetic
      ones (trained here, stored in the fixture) that cover every
      normalizer, pre-tokenizer, model option, post-processor, decoder and
      added-token flag the Go loader implements.

Needs: pip install tokenizers==0.23.3 transformers==5.24.0 gguf==0.19.0
torch==2.15.0 (transformers' GGUF reader imports torch; from PyPI only, no
model hub), the pulled models and scripts/fetch-vocab.sh's files. A run rewrites the fixtures byte for byte as long as the versions
and the stdlib are the same (the synthetic tokenizers are retrained, so
hf-cases.json.gz may change, consistently).

Usage:
  python3 scripts/tokref/record_hf.py [--hf-dir DIR] [--only NAME,...] [--make-only]

--only re-records the named tokenizers: their hf-stdlib fixtures and their
entries of hf-cases.json.gz (the other entries are kept). --make-only writes
the tokenizer files and no fixtures. --hf-dir is a scratch folder for the
RoBERTa-style files.
"""
import argparse
import io
import json
import os
import sys
import sysconfig

import tokenizers
from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

from tokref_common import default_cache, header_bytes, pick_files, read_gz, record_bytes, sha256_file, write_gz

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tokenizer", "testdata")
QWEN = "qwen2.5-coder-0.5b"


def log(*a):
    print(*a, file=sys.stderr)


def gguf_strings(path, key):
    from gguf import GGUFReader
    f = GGUFReader(path).fields[key]
    return [bytes(f.parts[i]).decode("utf-8") for i in f.data]


def convert_gguf(gguf, out_dir):
    """transformers' GGUF tokenizer conversion, saved to out_dir."""
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(os.path.dirname(gguf), gguf_file=os.path.basename(gguf))
    tok.save_pretrained(out_dir)
    return os.path.join(out_dir, "tokenizer.json")


def make_smollm2(gguf, tmp):
    """SmolLM2's tokenizer.json: the converter gives ByteLevel(use_regex)
    only; upstream (and llama.cpp's "smollm") splits digits first."""
    path = convert_gguf(gguf, os.path.join(tmp, "smollm2"))
    doc = json.load(open(path, encoding="utf-8"))
    doc["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Digits", "individual_digits": True},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}]}
    data = json.dumps(doc, ensure_ascii=False, indent=2).encode()
    write_gz(os.path.join(OUT, "smollm2-tokenizer.json.gz"), data)
    return data


def roberta_files(gguf):
    """The RoBERTa-style folder made from a GPT-2 vocab GGUF, as bytes (the
    Go test writes the same)."""
    toks = gguf_strings(gguf, "tokenizer.ggml.tokens")
    merges = gguf_strings(gguf, "tokenizer.ggml.merges")
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    for t in toks:
        vocab.setdefault(t, len(vocab))
    vocab["<mask>"] = len(vocab)
    return {
        "vocab.json": json.dumps(vocab, ensure_ascii=False).encode(),
        "merges.txt": ("#version: 0.2\n" + "".join(m + "\n" for m in merges)).encode(),
        "tokenizer_config.json": json.dumps({"tokenizer_class": "RobertaTokenizer", "add_prefix_space": False,
                                             "model_max_length": 1024}).encode(),
    }


def files_sha256(files):
    import hashlib
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(files[name])
    return h.hexdigest()


def load_sources(args, tmp):
    """name -> (tokenizers.Tokenizer, description, sha256 of the source)."""
    out = {}
    want = lambda n: not args.only or n in args.only
    if want("minilm"):
        path = os.path.join(args.minilm, "tokenizer.json")
        data = open(path, "rb").read()
        write_gz(os.path.join(OUT, "minilm-tokenizer.json.gz"), data)
        out["minilm"] = (Tokenizer.from_str(data.decode()), "all-minilm-l6-v2/tokenizer.json", sha256_file(path))
    if want("smollm2"):
        data = make_smollm2(args.smollm2, tmp)
        import hashlib
        out["smollm2"] = (Tokenizer.from_str(data.decode()), "smollm2-tokenizer.json.gz", hashlib.sha256(data).hexdigest())
    if want("qwen2.5-coder"):
        src = convert_gguf(args.qwen_coder, os.path.join(tmp, "qwen"))
        data = open(src, "rb").read()
        write_gz(os.path.join(OUT, "qwen2.5-coder-tokenizer.json.gz"), data)
        import hashlib
        out["qwen2.5-coder"] = (Tokenizer.from_str(data.decode()), "qwen2.5-coder-tokenizer.json.gz",
                                hashlib.sha256(data).hexdigest())
    if want("roberta-gpt2"):
        from transformers import AutoTokenizer
        files = roberta_files(args.gpt2_vocab)
        d = os.path.join(args.hf_dir, "roberta-gpt2")
        os.makedirs(d, exist_ok=True)
        for name, data in files.items():
            open(os.path.join(d, name), "wb").write(data)
        tok = AutoTokenizer.from_pretrained(d).backend_tokenizer
        out["roberta-gpt2"] = (tok, "roberta-gpt2/ from ggml-vocab-gpt-2.gguf", files_sha256(files))
    return out


def plain(tok):
    """A copy that neither pads nor truncates."""
    t = Tokenizer.from_str(tok.to_str())
    t.no_padding()
    t.no_truncation()
    return t


def record_stdlib(name, tok, desc, sha, files, root):
    tok = plain(tok)
    header = {
        "format": "actor-tokref-1",
        "tokenizer": name,
        "source": desc,
        "source_sha256": sha,
        "oracle": "tokenizers " + tokenizers.__version__,
        "python": sys.version.split()[0],
        "stdlib": root,
        "add_special_tokens": True,
        "decode_sha256": True,
        "files": len(files),
    }
    buf = io.BytesIO()
    buf.write(header_bytes(header))
    total = 0
    for rel, data in files:
        ids = tok.encode(data.decode("utf-8")).ids
        total += len(ids)
        buf.write(record_bytes(rel, data, ids, tok.decode(ids)))
    path = os.path.join(OUT, f"hf-stdlib-{name}.tokref.gz")
    write_gz(path, buf.getvalue())
    log(f"{path}: {len(files)} files, {total} tokens, {os.path.getsize(path)} bytes")


CASES = [
    "", " ", "  ", "\n", "\n\n\n", "\t", " \t\n \r\n", "Hello world", " Hello", "hello  world  ",
    "def f(x):\n    return x**2  # square\n\n\nclass A(B):\n\tpass\n",
    "I'm you're they'll we've she'd HE'S IT'D don't", "'s 'S 'll 'ſ x'ſt", "1234567890 3.14159 1e-9 0x1F 007",
    "日本語のテキスト 中文字符 한국어 텍스트", "emoji 😀👍🏽 café naïve Ünïcödé İstanbul ﬁ ½ Ⅻ ①",
    "x\u00a0y\u2003z\u3000w\u2028v\u0085u\u000bt\u001fs", "\u200b zero\u200dwidth\ufeff soft\u00adhyphen",
    "Ǆǅǆ ΣΑΣ ſ Kelvin\u212a e\u0301 \u1e9e", "a" * 130, "=" * 300, " " * 70 + "x", "snake_case_name __dunder__",
    "<|im_start|>user\nhi<|im_end|>\n", "[CLS] a [SEP] b [MASK] [UNK] [PAD]", "<s> </s> <pad> <mask> <unk> x<mask>y",
    "<S>Special SPECIAL special word words sword <l> <r> <lr> <l <r x<l>y x<r>y  <lr>  end",
    "a,b.c;d:e  f_g_h", "aeiou bcd aaxee", "x /* a\n b */ y\n  def Def\n\t", "² ³ ¹ ¼ ½ ¾ ª µ º", "x-y-z -- x", "▁ leading marker ▁▁x", "<0x41> <0xFF>", "Ġ Ċ ĉ",
    "```python\nprint('hi')\n```", "\t\t\tindented\r\n\r\nwindows\r\n", "$x+y<=z^w`q|r~", "¿qué? ¡sí! «quote» “curly”",
]


def random_cases(n, seed=7):
    """Random strings from characters and fragments that stress the
    components (white space kinds, marks, CJK, special-token texts,
    contractions, anchors); a fixed seed keeps them the same."""
    import random
    rnd = random.Random(seed)
    alphabet = list("abcdeXYZ _-.,;:'\"!?()[]{}<>/\\|#$%^&*+=~`0123456789\t\n\r") + list(
        "éÉüßİıſKÅ½²Ⅻ①日本語中文한국\u00a0\u3000\u2028\u0085\u200b\u200d\ufeff\u0301\u0903😀👍🏽▁Ġ")
    frags = ["<s>", "</s>", "[CLS]", "[SEP]", "[MASK]", "<mask>", "<l>", "<r>", "<lr>", "<S>", "word", "Special", "'s",
             "'ſ", "'LL", "  ", "\n\n", "DEF", "/*", "*/", "x", "##", "<|im_end|>", "<|endoftext|>", "<0x41>"]
    out = []
    for _ in range(n):
        parts = [rnd.choice(frags) if rnd.random() < 0.25 else "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 6)))
                 for _ in range(rnd.randint(0, 12))]
        out.append(rnd.choice(["", " "]).join(parts))
    return out


CASES += random_cases(100)


def corpus(files):
    lines = []
    for _, data in files[:60]:
        lines += data.decode().splitlines()
    return lines + CASES * 3


SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def byte_level_base(lines, **bpe):
    """A small byte-level BPE, trained on lines."""
    tok = Tokenizer(models.BPE(**bpe))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tr = trainers.BpeTrainer(vocab_size=400, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                             special_tokens=["<s>", "</s>", "<unk>"], show_progress=False)
    tok.train_from_iterator(lines, tr)
    return tok


def char_bpe(lines, byte_fallback, limit, **kw):
    """A small character-level BPE (SentencePiece-like) with <0xXX> tokens
    when byte_fallback is set."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", **kw))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first", split=False)
    tr = trainers.BpeTrainer(vocab_size=350, limit_alphabet=limit, special_tokens=["<unk>", "<s>", "</s>"],
                             show_progress=False, **{k: v for k, v in kw.items() if k in ("continuing_subword_prefix", "end_of_word_suffix")})
    tok.train_from_iterator(lines, tr)
    doc = json.loads(tok.to_str())
    if byte_fallback:
        vocab = doc["model"]["vocab"]
        for b in range(256):
            vocab.setdefault(f"<0x{b:02X}>", len(vocab))
        doc["model"]["byte_fallback"] = True
    return doc


def wordpiece(lines, **kw):
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]", **kw))
    tok.normalizer = normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tr = trainers.WordPieceTrainer(vocab_size=500, special_tokens=SPECIALS, show_progress=False, limit_alphabet=120)
    tok.train_from_iterator(lines, tr)
    return tok


def with_parts(tok_or_doc, normalizer=None, pre=None, post=None, decoder=None, added=(), model=None):
    """A copy with the given components (tokenizers objects or JSON)."""
    doc = json.loads(tok_or_doc.to_str()) if isinstance(tok_or_doc, Tokenizer) else json.loads(json.dumps(tok_or_doc))
    t = Tokenizer.from_str(json.dumps(doc))
    if model:
        m = json.loads(t.to_str())
        m["model"].update(model)
        t = Tokenizer.from_str(json.dumps(m))
    if normalizer is not None:
        t.normalizer = normalizer
    if pre is not None:
        t.pre_tokenizer = pre
    if post is not None:
        t.post_processor = post
    if decoder is not None:
        t.decoder = decoder
    for a in added:
        (t.add_special_tokens if a.special else t.add_tokens)([a])
    return t


def synthetic(files):
    lines = corpus(files)
    bl = byte_level_base(lines)
    bl_last = lambda *steps: pre_tokenizers.Sequence(list(steps) + [pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    bld = decoders.ByteLevel()
    llama3 = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
    out = {}
    S = pre_tokenizers.Split
    out["bl-split-isolated"] = with_parts(bl, pre=bl_last(S(Regex(r"\s+|[A-Z][a-z]*"), "isolated")), decoder=bld)
    out["bl-split-removed"] = with_parts(bl, pre=bl_last(S(Regex(r"\s+"), "removed")), decoder=bld)
    out["bl-split-mprev"] = with_parts(bl, pre=bl_last(S(Regex(r"[,.;:]"), "merged_with_previous")), decoder=bld)
    out["bl-split-mnext"] = with_parts(bl, pre=bl_last(S("_", "merged_with_next")), decoder=bld)
    out["bl-split-contig"] = with_parts(bl, pre=bl_last(S(Regex(r"[aeiou]"), "contiguous")), decoder=bld)
    out["bl-split-invert"] = with_parts(bl, pre=bl_last(S(Regex(r"\w+"), "removed", invert=True)), decoder=bld)
    out["bl-split-anchors"] = with_parts(bl, pre=bl_last(S(Regex(r"^\s+|\s+$|(?m:/\*.*?\*/)|(?i:DEF)\b"), "removed")),
                                         decoder=bld)
    out["bl-split-empty"] = with_parts(bl, pre=bl_last(S(Regex(r"x*"), "merged_with_previous")), decoder=bld)
    out["bl-digits-punct"] = with_parts(bl, pre=bl_last(pre_tokenizers.Digits(individual_digits=False),
                                                        pre_tokenizers.Punctuation("merged_with_next"),
                                                        pre_tokenizers.WhitespaceSplit()), decoder=bld)
    out["bl-whitespace"] = with_parts(bl, pre=bl_last(pre_tokenizers.CharDelimiterSplit("-"), pre_tokenizers.Whitespace()),
                                      decoder=bld)
    out["bl-metaspace"] = with_parts(bl, pre=bl_last(pre_tokenizers.Metaspace(prepend_scheme="always", split=True)),
                                     decoder=decoders.Sequence([bld, decoders.Metaspace(prepend_scheme="always")]))
    out["bl-norms"] = with_parts(bl, normalizer=normalizers.Sequence([
        normalizers.NFKC(), normalizers.Lowercase(), normalizers.Strip(), normalizers.Replace(Regex(r"\s+"), " "),
        normalizers.Prepend("> ")]), pre=pre_tokenizers.ByteLevel(add_prefix_space=True), decoder=bld)
    out["bl-nfd"] = with_parts(bl, normalizer=normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents(),
                                                                     normalizers.Strip(left=False, right=True)]),
                               pre=pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=False), decoder=bld)
    out["bl-nfkd-nfc"] = with_parts(bl, normalizer=normalizers.Sequence([normalizers.NFKD(), normalizers.NFC(),
                                                                          normalizers.Replace("e", "E")]),
                                    pre=pre_tokenizers.ByteLevel(add_prefix_space=False), decoder=bld)
    out["bl-llama3"] = with_parts(bl, pre=bl_last(S(Regex(llama3), "isolated")), decoder=bld, model={"ignore_merges": True})
    out["bl-bytelevel-mid"] = with_parts(bl, pre=pre_tokenizers.Sequence([
        pre_tokenizers.ByteLevel(add_prefix_space=False), S("Ġ", "merged_with_next")]), decoder=bld)
    out["bl-added"] = with_parts(
        bl, normalizer=normalizers.Lowercase(), pre=pre_tokenizers.ByteLevel(add_prefix_space=False), decoder=bld,
        post=processors.Sequence([processors.ByteLevel(), processors.TemplateProcessing(
            single="<s> $A </s>", special_tokens=[("<s>", bl.token_to_id("<s>")), ("</s>", bl.token_to_id("</s>"))])]),
        added=[AddedToken("<S>", special=True, normalized=False), AddedToken("Special", normalized=True),
               AddedToken("word", single_word=True, normalized=False), AddedToken("<l>", lstrip=True, normalized=False),
               AddedToken("<r>", rstrip=True, normalized=False),
               AddedToken("<lr>", lstrip=True, rstrip=True, special=True, normalized=False),
               AddedToken("<l", normalized=False), AddedToken("[MASK]", special=True, normalized=False)])
    fb = char_bpe(lines, True, 60, fuse_unk=True)
    llama2_dec = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                    decoders.Strip(" ", 1, 0)])
    s_tmpl = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    out["bpe-fallback"] = with_parts(fb, decoder=llama2_dec, post=s_tmpl)
    out["bpe-legacy"] = with_parts(fb, normalizer=normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")]),
                                   pre=pre_tokenizers.Sequence([]), decoder=llama2_dec, post=s_tmpl)
    nb = char_bpe(lines, False, 40)
    out["bpe-metaspace-never"] = with_parts(nb, pre=pre_tokenizers.Metaspace(prepend_scheme="never", split=True),
                                            decoder=decoders.Metaspace(prepend_scheme="never"))
    sx = char_bpe(lines, False, 50, continuing_subword_prefix="##", end_of_word_suffix="</w>")
    out["bpe-suffix"] = with_parts(sx, pre=pre_tokenizers.Whitespace(), decoder=decoders.BPEDecoder(suffix="</w>"))
    wp = wordpiece(lines, max_input_chars_per_word=10)
    ids = {s: wp.token_to_id(s) for s in SPECIALS}
    out["wp-bert"] = with_parts(wp, decoder=decoders.WordPiece(cleanup=True),
                                post=processors.BertProcessing(("[SEP]", ids["[SEP]"]), ("[CLS]", ids["[CLS]"])),
                                added=[AddedToken(s, special=True, normalized=False) for s in SPECIALS])
    out["wp-accents"] = with_parts(
        wp, normalizer=normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True,
                                                  lowercase=False),
        pre=pre_tokenizers.Sequence([pre_tokenizers.Punctuation(), pre_tokenizers.WhitespaceSplit()]),
        decoder=decoders.WordPiece(prefix="##", cleanup=False),
        post=processors.RobertaProcessing(("[SEP]", ids["[SEP]"]), ("[CLS]", ids["[CLS]"])),
        added=[AddedToken("[MASK]", special=True, lstrip=True, normalized=False)])
    out["wp-lower-only"] = with_parts(
        wp, normalizer=normalizers.BertNormalizer(strip_accents=False, lowercase=True),
        post=processors.TemplateProcessing(single="[CLS] [CLS] $A [SEP]",
                                           special_tokens=[("[CLS]", ids["[CLS]"]), ("[SEP]", ids["[SEP]"])]))
    return out


def case_entry(tok, with_json):
    tok = plain(tok)
    e = {"json": tok.to_str() if with_json else None, "special": [], "plain": [], "decode": [], "decode_special": [],
         "trunc": {}}
    for s in CASES:
        ids = tok.encode(s).ids
        e["special"].append(ids)
        e["decode"].append(tok.decode(ids))
        e["decode_special"].append(tok.decode(ids, skip_special_tokens=False))
    tok.encode_special_tokens = True
    e["plain"] = [tok.encode(s, add_special_tokens=False).ids for s in CASES]
    tok.encode_special_tokens = False
    for n in (5, 9):
        tok.enable_truncation(n)
        e["trunc"][str(n)] = [tok.encode(s).ids for s in CASES]
        tok.no_truncation()
    return e


def main():
    cache = default_cache()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hf-dir", default=os.path.join(cache, "hf"))
    ap.add_argument("--minilm", default=os.path.join(cache, "models", "all-minilm-l6-v2"))
    ap.add_argument("--smollm2", default=os.path.join(cache, "models", "smollm2-135m.gguf"))
    ap.add_argument("--qwen-coder", default=os.path.join(cache, "models", QWEN + ".gguf"))
    ap.add_argument("--gpt2-vocab", default=os.path.join(cache, "vocab", "ggml-vocab-gpt-2.gguf"))
    ap.add_argument("--stdlib", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--only", type=lambda s: s.split(","), default=None)
    ap.add_argument("--make-only", action="store_true")
    args = ap.parse_args()

    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        sources = load_sources(args, tmp)
    if args.make_only:
        return
    files = pick_files(args.stdlib)
    log(f"{len(files)} stdlib files from {args.stdlib}")
    for name, (tok, desc, sha) in sources.items():
        record_stdlib(name, tok, desc, sha, files, args.stdlib)
    path = os.path.join(OUT, "hf-cases.json.gz")
    cases = {"oracle": "tokenizers " + tokenizers.__version__, "texts": CASES, "tokenizers": {}}
    if args.only:  # keep the other entries
        cases = json.loads(read_gz(path))
        if cases["oracle"] != "tokenizers " + tokenizers.__version__ or cases["texts"] != CASES:
            sys.exit(f"{path} was recorded with {cases['oracle']} or other texts: rerun without --only")
    for name, (tok, _, _) in sources.items():
        cases["tokenizers"][name] = case_entry(tok, False)
    if not args.only:
        for name, tok in synthetic(files).items():
            cases["tokenizers"][name] = case_entry(tok, True)
    write_gz(path, json.dumps(cases, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode())
    log(f"{path}: {len(cases['tokenizers'])} tokenizers, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
