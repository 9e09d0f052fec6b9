"""Training written at module level: no main(), no __main__ guard.

NumPy makes the data, torch initialises and trains a small MLP; nothing is
seeded. Prints a sha256 of the final weights and the final loss.
"""

import hashlib

import numpy as np
import torch
from torch import nn

X = np.random.rand(128, 8).astype(np.float32)
w_true = np.random.randn(8, 1).astype(np.float32)
Y = X @ w_true + 0.05 * np.random.randn(128, 1).astype(np.float32)

inputs = torch.from_numpy(X)
targets = torch.from_numpy(Y)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05)

for step in range(20):
    perm = torch.randperm(len(inputs))[:32]
    opt.zero_grad()
    loss = ((model(inputs[perm]) - targets[perm]) ** 2).mean()
    loss.backward()
    opt.step()

flat = torch.cat([p.detach().flatten() for p in model.parameters()])
print("loss", repr(loss.item()))
print("weights", hashlib.sha256(flat.numpy().tobytes()).hexdigest())
