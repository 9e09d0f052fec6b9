"""A small torch training run: augmenting Dataset, shuffled worker DataLoader, dropout.

Nothing is seeded: weight init, dropout masks, the shuffle order and the
augmentation noise drawn inside the workers all change from run to run.
Prints a sha256 of the final weights.
"""

import hashlib
import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class NoisyPoints(Dataset):
    """64 fixed points; each item gets random noise and a random flip."""

    def __init__(self, size=64):
        self.x = torch.linspace(-1.0, 1.0, size * 4).reshape(size, 4)
        self.y = (self.x.sum(dim=1) > 0).long()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        x = self.x[index].clone()
        x += torch.from_numpy(np.random.normal(0.0, 0.1, size=4).astype(np.float32))
        if random.random() < 0.5:
            x = -x
        return x, self.y[index]


def weights_hash(model):
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    return hashlib.sha256(flat.numpy().tobytes()).hexdigest()


def main():
    ds = NoisyPoints()
    loader = DataLoader(ds, batch_size=8, num_workers=2, shuffle=True)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for epoch in range(2):
        for x, y in loader:
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
    print("weights", weights_hash(model))


if __name__ == "__main__":
    main()
