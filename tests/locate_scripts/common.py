"""A small model and data shared by the planted scripts."""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        return self.head(self.body(x))


def data(n=16):
    return torch.arange(n * 4, dtype=torch.float32).reshape(n, 4) / (n * 4), torch.ones(n, 1)


def train(model, loader, steps=3, before_forward=None):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step, (x, y) in enumerate(loader):
        if step == steps:
            break
        if before_forward is not None:
            before_forward()
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        print("step %d loss %.10f" % (step, loss.item()))
