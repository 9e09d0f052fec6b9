import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from common import Net, data, train


class Noisy(Dataset):
    def __init__(self):
        self.x, self.y = data()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        return self.x[index] + float(np.random.rand()), self.y[index]  # NumPy is never seeded


torch.manual_seed(0)
model = Net()
train(model, DataLoader(Noisy(), batch_size=4))
