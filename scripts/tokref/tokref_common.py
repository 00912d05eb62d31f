"""Shared parts of the tokenizer fixture recorders (record.py: llama.cpp,
record_hf.py: Hugging Face tokenizers): the stdlib file subset and the
tokref fixture format (gzip: one JSON header line, then per file uvarint
len(path), path, 32 bytes sha256 of the file, uvarint count, count uvarint
ids, and, when the header says "decode_sha256": true, 32 bytes sha256 of the
reference's decoded text)."""
import gzip
import hashlib
import json
import os

N_HASHED = 220    # files chosen by hash of their path
N_NONASCII = 30   # extra files with non-ASCII text
MAX_BYTES = 12000  # keeps the fixtures small


def default_cache():
    """The actor home: $ACTOR_HOME, else <user cache dir>/actor (as models.Home)."""
    if os.environ.get("ACTOR_HOME"):
        return os.environ["ACTOR_HOME"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "actor")


def pick_files(root):
    """A deterministic subset of the stdlib's .py files: valid UTF-8, at
    most MAX_BYTES, ordered by sha256 of the relative path; the first
    N_HASHED plus the first N_NONASCII of the rest that are not ASCII."""
    cands = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "__pycache__"))
        for fn in filenames:
            if not fn.endswith(".py"):
                continue
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            data = open(path, "rb").read()
            if not data or len(data) > MAX_BYTES:
                continue
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            cands.append((hashlib.sha256(rel.encode()).hexdigest(), rel, data))
    cands.sort()
    chosen = cands[:N_HASHED]
    extra = [c for c in cands[N_HASHED:] if not c[2].isascii()][:N_NONASCII]
    return [(rel, data) for _, rel, data in chosen + extra]


def uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def record_bytes(rel, data, ids, decoded=None):
    """One fixture record; decoded (str) adds its sha256."""
    out = uvarint(len(rel.encode())) + rel.encode() + hashlib.sha256(data).digest()
    out += uvarint(len(ids)) + b"".join(uvarint(t) for t in ids)
    if decoded is not None:
        out += hashlib.sha256(decoded.encode("utf-8", "surrogatepass")).digest()
    return out


def header_bytes(header):
    return (json.dumps(header, sort_keys=True) + "\n").encode()


def read_gz(path):
    with open(path, "rb") as f:
        return gzip.decompress(f.read())


def write_gz(path, payload):
    with open(path, "wb") as f:
        f.write(gzip.compress(payload, compresslevel=9, mtime=0))
