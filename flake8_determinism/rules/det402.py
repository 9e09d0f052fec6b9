from __future__ import annotations

from ..tables.stochastic import RANDOM_TRANSFORMS
from .common.stochastic import StochasticOpRule


class UnseededRandomTransform(StochasticOpRule):
    """DET402: a random transform or augmentation layer draws random parameters (strict mode).

    What it does: in strict mode, reports every torchvision ``transforms``/``transforms.v2``
    random transform (``Random*``, ``ColorJitter``, ``GaussianBlur``, ``AutoAugment``,
    ``RandAugment``, ``TrivialAugmentWide``, ``AugMix``, ``MixUp``, ``CutMix``, ...), Keras
    ``Random*`` preprocessing layer, ``tf.image.random_*`` and ``mindspore.dataset.vision``/
    ``transforms`` random op, seeded or not.  In default mode a random transform is one of the
    uses of its RNG (torch's; Python's ``random`` for v1 ``RandomOrder``/``RandomChoice``;
    TF's; the mindspore.dataset seed) that the run's seeding report names: one report per cause.

    Why it matters: the augmented images, and so the training trajectory, differ every run;
    with DataLoader workers they also depend on worker seeding.

    Example: ``transforms.RandomHorizontalFlip()``, with ``--determinism-strict``.
    Fix: seed at start-up (and seed workers); to debug reproducibility, drop the random transforms.
    """

    code = "DET402"
    table = RANDOM_TRANSFORMS
    effect = "augmentations differ"
    strict_fix = "seed first, and remove random augmentation while debugging reproducibility"
    example_settings = {"strict": True}
    invalid = (
        "from torchvision import transforms\nt = transforms.RandomHorizontalFlip()\n",
        "import tensorflow as tf\ny = tf.image.random_flip_left_right(tf.zeros([2, 2, 3]), seed=1)\n",
    )
    valid = (
        "from torchvision import transforms\nt = transforms.Resize(32)\n",
        "import tensorflow as tf\ny = tf.image.resize(tf.zeros([2, 2, 3]), [1, 1])\n",
    )
    sources = (
        (
            "Since torchvision 0.8 every random transform samples its parameters from torch's default "
            "generator: seed it with ``torch.manual_seed``.",
            "https://docs.pytorch.org/vision/0.9/transforms.html",
        ),
        (
            "In torchvision 0.29 v1 ``RandomOrder``/``RandomChoice`` use Python's ``random`` instead.",
            "torchvision/transforms/transforms.py (facts §9)",
        ),
        (
            "``tf.image.random_*`` follow TensorFlow's global and op seeds.",
            "https://www.tensorflow.org/api_docs/python/tf/random/set_seed",
        ),
    )
    fixed = (
        "from torchvision import transforms\n\n# no random augmentation while checking that runs agree\n"
        "t = transforms.Compose([])\n"
    )
    scope_note = (
        "Strict mode only (``--determinism-strict``). In default mode the run's seeding report names the "
        "random transforms it reaches (``augments data (RandomCrop at data.py:12)``)."
    )
