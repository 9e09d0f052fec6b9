"""Train a small classifier on images listed from a folder.

A typical research script: it runs, it learns -- and no two runs give the same
loss curve.  `flake8 --select=DET examples/train_example.py` shows why.
"""

import argparse
import glob
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, random_split


class FolderDataset(Dataset):
    """Images and masks stored as .npy files in two folders."""

    def __init__(self, root, augment=True):
        self.images = glob.glob(os.path.join(root, "images", "*.npy"))
        self.masks = glob.glob(os.path.join(root, "masks", "*.npy"))
        self.augment = augment
        self.rng = np.random.default_rng()

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        image = np.load(self.images[index]).astype(np.float32)
        mask = np.load(self.masks[index]).astype(np.int64)
        if self.augment and random.random() < 0.5:
            image, mask = image[:, ::-1].copy(), mask[:, ::-1].copy()
        image = image + self.rng.normal(0.0, 0.01, image.shape).astype(np.float32)
        return torch.from_numpy(image)[None], torch.from_numpy(mask)


class SegNet(nn.Module):
    def __init__(self, classes=2):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1),
            nn.ReLU(),
            nn.Dropout2d(0.1),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.ReLU(),
        )
        self.head = nn.Conv2d(32, classes, 1)

    def forward(self, x):
        features = self.encoder(x)
        return self.head(F.dropout(features, p=0.2, training=self.training))


def make_loaders(root, batch_size, workers):
    dataset = FolderDataset(root)
    n_val = max(1, len(dataset) // 10)
    train_set, val_set = random_split(dataset, [len(dataset) - n_val, n_val])
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True, num_workers=workers)
    val_loader = DataLoader(val_set, batch_size=batch_size, num_workers=workers)
    return train_loader, val_loader


def train(args):
    torch.backends.cudnn.benchmark = True
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = SegNet().to(device)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.02)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    train_loader, val_loader = make_loaders(args.data, args.batch_size, args.workers)
    for epoch in range(args.epochs):
        model.train()
        for images, masks in train_loader:
            images, masks = images.to(device), masks.to(device)
            loss = F.cross_entropy(model(images), masks)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print("epoch %d loss %.4f" % (epoch, loss.item()))
    return model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="data")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()
    np.random.seed(int(time.time()))
    train(args)


if __name__ == "__main__":
    main()
