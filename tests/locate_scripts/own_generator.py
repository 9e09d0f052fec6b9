import os

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from common import data, train


class Jitter(nn.Module):
    def __init__(self):
        super().__init__()
        self.generator = torch.Generator().manual_seed(int.from_bytes(os.urandom(4), "little"))

    def forward(self, x):
        return x + 0.01 * torch.rand(x.shape, generator=self.generator)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), Jitter(), nn.Linear(8, 1))
train(model, DataLoader(TensorDataset(*data()), batch_size=4))
