import os

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from common import data, train


class AtomicAddLike(torch.autograd.Function):
    """Stands in for a GPU kernel that accumulates with atomic adds: the forward is exact, the
    backward's rounding depends on an order that changes every run."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2 + 1e-6 * (os.urandom(1)[0] - 128)


class Scale(nn.Module):
    def forward(self, x):
        return AtomicAddLike.apply(x)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), Scale(), nn.Linear(8, 1))
train(model, DataLoader(TensorDataset(*data()), batch_size=4))
