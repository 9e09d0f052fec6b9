import torch
from torch.utils.data import DataLoader, Dataset

from common import Net, train

NAMES = ["cat", "dog", "bird", "fish", "frog", "lion", "wolf", "bear", "deer", "duck", "goat", "hare"]


class Animals(Dataset):
    def __init__(self):
        self.names = list(set(NAMES))  # set order follows the string hashes (PYTHONHASHSEED)

    def __len__(self):
        return len(self.names)

    def __getitem__(self, index):
        name = self.names[index]
        return torch.tensor([len(name), ord(name[0]), ord(name[1]), ord(name[2])], dtype=torch.float32) / 100, \
            torch.ones(1)


torch.manual_seed(0)
model = Net()
train(model, DataLoader(Animals(), batch_size=4))
