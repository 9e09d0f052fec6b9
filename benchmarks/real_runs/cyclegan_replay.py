"""eriklindernoren/PyTorch-GAN's CycleGAN (``implementations/cyclegan``): two ResNet generators
and two PatchGAN discriminators trained on unpaired image folders, with RandomCrop/RandomHorizontalFlip
augmentation, a shuffling DataLoader with workers, and a ReplayBuffer of generated images
(``utils.py``, reached through ``from utils import *``) that, once full, swaps images in and out by
Python's ``random``; the unaligned ImageDataset also picks each B image by ``random.randint``.
Unseeded: weight initialisation, data order, augmentation, the B pairing and the buffer all vary.
Adapted: synthetic PNGs instead of a downloaded dataset, small sizes by the script's options, and
a 4-image ReplayBuffer instead of 50 so that the short run reaches the buffer's draws."""

from real_runs import replace

REPO = "eriklindernoren/PyTorch-GAN"
COMMIT = "36d3c77e5ff20ebe0aeefd322326a134a279b93e"
FILES = {
    "implementations/cyclegan/cyclegan.py": "445b5231dc2ef6319f85bb2478a1d57ce52fa445",
    "implementations/cyclegan/datasets.py": "49cec08c09eddeefe247c42640f310270d7f1fd3",
    "implementations/cyclegan/models.py": "990384c5bf26a9a9099d581809951d7e7b7b3bc2",
    "implementations/cyclegan/utils.py": "52c65091b7f3686de0a4839d0c050f0057e3db7a",
}
REQUIRES = ("torch", "torchvision", "numpy", "pillow")
WORKDIR = "implementations/cyclegan"
# Size via the script's own options: 32x32 images (the smallest the discriminator takes), 1 residual
# block, 1 epoch (--decay_epoch 0 because LambdaLR asserts n_epochs > decay_epoch; its factor stays 1.0
# in epoch 0), 2 workers instead of 8, batches of 4: 8 training images make 2 batches.
COMMAND = ("cyclegan.py", "--dataset_name", "synthetic", "--n_epochs", "1", "--decay_epoch", "0",
           "--img_height", "32", "--img_width", "32", "--n_residual_blocks", "1", "--n_cpu", "2",
           "--batch_size", "4")
# The script logs "\r[Epoch 0/1] [Batch 1/2] [D loss: ...] [G loss: ..., adv: ...] ETA: ..." with a
# leading "\r" and never a newline: what a terminal finally shows, and so the one step compared, is the
# last batch's line.  D loss rather than G loss: the ReplayBuffer's draws enter that batch's D loss
# directly, while its G loss is computed before them.
VERIFY_ARGS = ("--metric", r"D loss: (?P<value>[-0-9.e]+)")

N_IMAGES = {"train/A": 8, "train/B": 4, "test/A": 5, "test/B": 5}  # test: one batch of 5 for sample_images


def adapt(root):
    # Data: synthetic images instead of a downloaded image-folder dataset: 32x32 RGB PNGs of
    # fixed random pixels (a fixed seed, so every run reads the same files) in the layout
    # ImageDataset globs, data/<dataset_name>/{train,test}/{A,B}/*.png, beside implementations/.
    import random

    from PIL import Image

    pixels = random.Random(0)
    for folder, count in N_IMAGES.items():
        path = root / "data" / "synthetic" / folder
        path.mkdir(parents=True)
        for number in range(count):
            data = bytes(pixels.getrandbits(8) for _ in range(32 * 32 * 3))
            Image.frombytes("RGB", (32, 32), data).save(path / ("%03d.png" % number))
    # Size, to match the run's length: a ReplayBuffer of 4 images instead of 50.  The buffer returns
    # what it is given until it holds max_size images and only then draws from `random`; with 50 that
    # takes over 50 training images, about a minute per run here, so the first batch fills it and
    # the second draws from it.
    replace(root / "implementations/cyclegan/cyclegan.py", "= ReplayBuffer()", "= ReplayBuffer(max_size=4)", count=2)
