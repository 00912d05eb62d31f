"""Records the PyTorch reference for probe/mlp's tests (torch_fixture.json).

Three Adam steps (torch.optim.Adam, weight_decay as L2, single-tensor path)
of a tiny Linear(5→4) → ReLU → Dropout → Linear(4→2) network with softmax
cross-entropy in float64, with explicit dropout masks so the Go side can
replay them; and the learning rates ReduceLROnPlateau(mode="max", factor=0.5,
patience=2) gives for a fixed sequence of accuracies.

Run from the repository root:  python3 probe/mlp/testdata/make_torch_fixture.py
"""
import json
import os

import torch
import torch.nn.functional as F

torch.manual_seed(1234)
D, U, C, B, P = 5, 4, 2, 6, 0.1
dt = torch.float64

W1 = (torch.rand(U, D, dtype=dt) * 2 - 1) * 0.6
b1 = (torch.rand(U, dtype=dt) * 2 - 1) * 0.3
W2 = (torch.rand(C, U, dtype=dt) * 2 - 1) * 0.6
b2 = (torch.rand(C, dtype=dt) * 2 - 1) * 0.3
params = [W1.clone().requires_grad_(), b1.clone().requires_grad_(), W2.clone().requires_grad_(), b2.clone().requires_grad_()]
init = [p.detach().flatten().tolist() for p in params]
opt = torch.optim.Adam(params, lr=1e-2, weight_decay=1e-4, foreach=False)

steps = []
for step in range(3):
    x = torch.randn(B, D, dtype=dt)
    y = torch.randint(0, C, (B,))
    # torch's dropout: bernoulli(1-p) mask divided by (1-p)
    mask = (torch.rand(B, U, dtype=dt) >= P).to(dt) / (1 - P)
    opt.zero_grad()
    h = torch.relu(x @ params[0].T + params[1]) * mask
    logits = h @ params[2].T + params[3]
    loss = F.cross_entropy(logits, y)
    loss.backward()
    grads = [p.grad.flatten().tolist() for p in params]
    opt.step()
    steps.append({
        "x": x.flatten().tolist(), "y": y.tolist(), "mask": mask.flatten().tolist(),
        "loss": loss.item(), "grads": grads,
        "params_after": [p.detach().flatten().tolist() for p in params],
    })

# ReduceLROnPlateau on a hand-made accuracy sequence.
p0 = torch.nn.Parameter(torch.zeros(1))
o = torch.optim.Adam([p0], lr=1.0)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(o, mode="max", factor=0.5, patience=2)
accs = [0.5, 0.6, 0.6, 0.60001, 0.6, 0.59, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.71]
lrs = []
for a in accs:
    sched.step(a)
    lrs.append(o.param_groups[0]["lr"])

out = {"torch": torch.__version__, "in": D, "units": U, "out": C, "batch": B, "lr": 1e-2, "weight_decay": 1e-4,
       "init": init, "steps": steps, "plateau": {"patience": 2, "factor": 0.5, "accs": accs, "lrs": lrs}}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_fixture.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
print("wrote", path)
