import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from common import data, train


class Pair(nn.Module):
    """Returns a tuple and a dict, and calls one layer twice per step."""

    def __init__(self):
        super().__init__()
        self.shared = nn.Linear(4, 4)
        self.head = nn.Linear(4, 1)

    def forward(self, x):
        twice = self.shared(self.shared(x))
        return self.head(twice), {"features": twice, "note": "text"}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pair = Pair()

    def forward(self, x):
        out, extra = self.pair(x)
        return out + 0 * extra["features"].sum()


if __name__ == "__main__":
    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(*data()), batch_size=4, num_workers=2)
    train(Model(), loader)
