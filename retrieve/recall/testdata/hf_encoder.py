"""Token embeddings from a Hugging Face encoder for Go measurements (the
reference numerics of transformers; not a product path).

    python3 hf_encoder.py MODEL_DIR [MAX_TOKENS]

Reads one JSON list of texts per stdin line; for each writes to stdout the
little-endian int32s B, T, D, then B int32 lengths (non-pad tokens, special
tokens included), then B*T*D float32 last-hidden-state values (right-padded).
"""
import json
import struct
import sys

import torch
from transformers import AutoModel, AutoTokenizer

path = sys.argv[1]
max_tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 256
torch.set_num_threads(2)
tok = AutoTokenizer.from_pretrained(path)
model = AutoModel.from_pretrained(path).eval()
out = sys.stdout.buffer
for line in sys.stdin:
    texts = json.loads(line)
    enc = tok(texts, padding=True, truncation=True, max_length=max_tokens, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**enc).last_hidden_state.float()
    b, t, d = hidden.shape
    lengths = enc["attention_mask"].sum(1).tolist()
    out.write(struct.pack("<3i", b, t, d))
    out.write(struct.pack(f"<{b}i", *lengths))
    out.write(hidden.numpy().astype("<f4").tobytes())
    out.flush()
