from __future__ import annotations

from ..tables.stochastic import DROPOUT
from .common.stochastic import StochasticOpRule


class UnseededDropout(StochasticOpRule):
    """DET401: a dropout or noise layer draws random masks (strict mode).

    What it does: in strict mode, reports every torch ``nn.Dropout*``/``nn.AlphaDropout``/
    ``F.dropout*``, Keras ``Dropout``/``SpatialDropout*``/``GaussianDropout``/``GaussianNoise``/
    ``AlphaDropout``, ``keras.random.dropout``, ``tf.nn.dropout`` and MindSpore
    ``nn.Dropout``/``ops.dropout``, seeded or not.  A literal zero rate or ``training=False``
    is inert and never reported.  In default mode dropout is one of the uses of its RNG that
    the run's seeding report names (DET100, DET104, DET106, DET107): one report per cause.

    Why it matters: each forward pass in training mode drops a random set of units; with an
    unseeded RNG the masks, and so the weights, differ every run.  Even seeded, masks depend on
    every earlier draw, so reordering code changes them.

    Example: ``nn.Dropout(0.5)`` in a model, with ``--determinism-strict``.
    Fix: seed the framework at start-up; to debug reproducibility, set the rate to 0 or use ``model.eval()``.
    """

    code = "DET401"
    table = DROPOUT
    effect = "dropout masks differ"
    strict_fix = "seed first, and set p=0 / model.eval() while debugging reproducibility"
    example_settings = {"strict": True}
    invalid = (
        "import torch.nn as nn\nlayer = nn.Dropout(0.5)\n",
        "import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\nlayer = nn.Dropout(0.5)\n",
    )
    valid = (
        "import torch.nn as nn\nlayer = nn.Dropout(0.0)\n",
        "import torch.nn.functional as F\ndef f(x):\n    return F.dropout(x, training=False)\n",
    )
    sources = (
        (
            "``nn.Dropout`` picks the zeroed elements independently on every forward call, sampled "
            "from a Bernoulli distribution.",
            "https://docs.pytorch.org/docs/stable/generated/torch.nn.Dropout.html",
        ),
        (
            "torch dropout draws from the global RNG in training mode; ``model.eval()`` stops it.",
            "observed on torch 2.13 (facts §1.1(a))",
        ),
        (
            "Keras layers without ``seed=`` take their seed from Python's ``random``; MindSpore "
            "``nn.Dropout`` follows ``mindspore.set_seed``.",
            "keras 3.15 seed_generator.py; mindspore 2.10 nn/layer/basic.py (facts §4, §6)",
        ),
    )
    fixed = "import torch.nn as nn\n\nlayer = nn.Dropout(0.0)  # no dropout while checking that runs agree\n"
    scope_note = (
        "Strict mode only (``--determinism-strict``). In default mode the run's seeding report names the "
        "dropout it reaches (``masks dropout (nn.Dropout at models.py:30)``)."
    )
