"""Writes fixture.safetensors and fixture.json (the expected values) with the
reference safetensors library, for safetensors_test.go.

    pip install safetensors torch
    python3 safetensors/testdata/make_fixture.py
"""
import json
import os
import struct

import torch
from safetensors.torch import save_file

here = os.path.dirname(os.path.abspath(__file__))
tensors = {
    "embeddings.weight": torch.tensor([[1.5, -2.25, 3.0], [0.1, 1e-8, -7.0]], dtype=torch.float32),
    "layer.0.half": torch.tensor([0.5, -65504.0, 6.1e-5, 5.96e-8, float("inf")], dtype=torch.float16),
    "layer.0.bf16": torch.tensor([[1.0, -3.140625], [1e30, -0.0]], dtype=torch.bfloat16),
    "position_ids": torch.arange(4, dtype=torch.int64).reshape(1, 4),
    "scalar": torch.tensor(2.5, dtype=torch.float64),
    "empty": torch.zeros((0, 3), dtype=torch.float32),
}
save_file(tensors, os.path.join(here, "fixture.safetensors"), metadata={"format": "pt", "note": "actor fixture"})
expected = {
    name: {
        "dtype": {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.int64: "I64", torch.float64: "F64"}[t.dtype],
        "shape": list(t.shape),
        # float32 bit patterns of the values as float32 (exact, and JSON has
        # no infinity); integers as they are.
        "values": [struct.unpack("<I", struct.pack("<f", v))[0] for v in t.float().flatten().tolist()]
        if t.is_floating_point() else t.flatten().tolist(),
    }
    for name, t in tensors.items()
}
with open(os.path.join(here, "fixture.json"), "w") as f:
    json.dump({"metadata": {"format": "pt", "note": "actor fixture"}, "tensors": expected}, f, indent=1)
