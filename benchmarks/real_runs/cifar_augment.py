"""kuangliu/pytorch-cifar's ``main.py``: CIFAR-10 classification (SimpleDLA by default) with
RandomCrop/RandomHorizontalFlip augmentation, SGD and a shuffling DataLoader with 2 workers.
Unseeded: the weight initialisation, the shuffled order, and the crops and flips drawn by the
transforms inside the DataLoader workers all take fresh entropy on every run.  Adapted: FakeData
instead of the CIFAR-10 download, 2 epochs, LeNet (one of the repository's models) instead of
SimpleDLA, which takes too long on CPU, and a fallback for ``stty size`` without a terminal."""

from real_runs import replace

REPO = "kuangliu/pytorch-cifar"
COMMIT = "49b7aa97b0c12fe0d4054e670403a16b6b834ddd"
FILES = {
    "main.py": "05ca1eb9076ba7c4fa405001a4aebc834f2c27a2",
    "utils.py": "4c9b3f90c932571cc7da1643ef9514d495e9afe3",
    "models/__init__.py": "66dab207116f0012fb3b0ccca42ee2c1d703dac8",
    "models/densenet.py": "47ebbbe08e40503d6785711acd8bd7dd2cdba768",
    "models/dla.py": "269b7ffe23204b04162c96f0c75a7918c8c168f9",
    "models/dla_simple.py": "3acaba68014993ed6235f6ce40272a226b32610a",
    "models/dpn.py": "d334367fcc9876b104a94b7ae333362ea0a64469",
    "models/efficientnet.py": "53d8c7b0567e48725f3c68ea6299bd8e4eabf3b5",
    "models/googlenet.py": "de036d87d323ee4f9c5a2f7944068a9322b0630d",
    "models/lenet.py": "d657b7482a75a3058e5795f367dfbb32e948b9d5",
    "models/mobilenet.py": "497ef1e867d2a597b9b444ebc7a6f30cd5219777",
    "models/mobilenetv2.py": "17e5823ef4426ceceae462782a267f89b1ecbc76",
    "models/pnasnet.py": "de8c4d51f2667f84eab86f29be9a00ea7d0ad1c3",
    "models/preact_resnet.py": "abb1bc313c011d2ee650c353c515e2cd404503f3",
    "models/regnet.py": "5d59c1ab007b1b19b39b166f92c39ee70099b059",
    "models/resnet.py": "b77694cefbf49fd6ca07fd25c6ce8f9f266642c2",
    "models/resnext.py": "7a08f3e7d9fdf3b65aad5b773d4d113c6b796423",
    "models/senet.py": "98bfa0ca51dcd07b586432c9f9460be8d1f0b745",
    "models/shufflenet.py": "acff6f78266c55bb93f5b12a6306a5647ebb0769",
    "models/shufflenetv2.py": "eefcda32059f0b8575148098c78ff5d84effd388",
    "models/vgg.py": "08347ffa999c0cf71418f36a50fa649bd4dabea7",
}
REQUIRES = ("torch", "torchvision")
WORKDIR = "."
COMMAND = ("main.py",)
# utils.progress_bar prints "... | Loss: 2.303 | Acc: ..." once per batch, "\r"-overwritten within an
# epoch: the default metric ("loss", first number after it) reads each epoch's last train and test line.
VERIFY_ARGS = ()


def adapt(root):
    # Data: torchvision's FakeData (CIFAR's 3x32x32 images, 10 classes, the same transforms)
    # instead of downloading CIFAR-10; 256 train images (2 batches of 128) and 100 test images.
    replace(root / "main.py", "torchvision.datasets.CIFAR10(\n    root='./data', train=True, download=True,",
            "torchvision.datasets.FakeData(\n    size=256, image_size=(3, 32, 32), num_classes=10,")
    replace(root / "main.py", "torchvision.datasets.CIFAR10(\n    root='./data', train=False, download=True,",
            "torchvision.datasets.FakeData(\n    size=100, image_size=(3, 32, 32), num_classes=10,")
    # Length: 2 epochs instead of 200.
    replace(root / "main.py", "range(start_epoch, start_epoch+200)", "range(start_epoch, start_epoch+2)")
    # Size: the repository's LeNet instead of SimpleDLA (its current choice among the commented-out
    # models), which takes over 20 s per run on 2 shared CPU cores.
    replace(root / "main.py", "\nnet = SimpleDLA()", "\nnet = LeNet()")
    # Not data or size, unavoidable: utils.py reads the terminal's width from `stty size` at import,
    # which prints nothing without a terminal (determinism-verify runs the command with stdin from
    # /dev/null) and the unpacking fails; fall back to 80 columns there.
    replace(root / "utils.py", "os.popen('stty size', 'r')", "os.popen('stty size 2>/dev/null || echo 24 80', 'r')")
