"""PyTorch's DCGAN example (pytorch/examples dcgan/main.py) on torchvision's FakeData (its own
``--dataset fake``: no download).  The CONTROL: run with ``--manualSeed 1`` it seeds ``random`` and
``torch`` itself, so the weight init, the shuffling DataLoader (2 workers, as by default) and the
noise draws already repeat; FakeData makes each image from its index.  After the fix the runs must
still repeat and ``--manualSeed`` must still be the seed."""

from real_runs import replace

REPO = "pytorch/examples"
COMMIT = "77f55b912142e11fcfdf5b530231fb9c52f181e8"
FILES = {"dcgan/main.py": "b150174ca228175d8bc97dba6dbdb3791d55e32b"}
REQUIRES = ("torch", "torchvision")
WORKDIR = "dcgan"
# The nets are built for 64x64 images; smaller filter banks and latent size through the options.
COMMAND = ("main.py", "--dataset", "fake", "--imageSize", "64", "--ngf", "8", "--ndf", "8", "--nz", "16",
           "--batchSize", "16", "--niter", "1", "--workers", "2", "--manualSeed", "1")
# Each step prints "[0/1][3/16] Loss_D: 1.3284 Loss_G: 0.9461 D(x): ..."
VERIFY_ARGS = ("--metric", r"Loss_G: (?P<value>[-0-9.e]+)")
EXPECT_BEFORE = "reproducible"


def adapt(root):
    # Size only: 256 fake images (16 steps) instead of FakeData's default 1000.
    replace(root / "dcgan/main.py", "dset.FakeData(image_size=", "dset.FakeData(size=256, image_size=")
