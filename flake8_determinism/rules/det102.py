from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..tables.rng_draws import NUMPY_LEGACY
from ..tables.seeding import NUMPY
from .common.global_draws import GlobalDrawRule, drawing

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite


class UnseededNumpyGlobal(GlobalDrawRule):
    """DET102: a run uses NumPy's global RNG while it is unseeded.

    What it does: the 47 legacy functions (``np.random.rand``, ``randn``, ``randint``, ``choice``,
    ``shuffle``, ``permutation``, ``normal``, ...) are uses of NumPy's global RNG. Judged per run
    (the entry module's own code, the project modules it reaches and their import-time code): when
    the run uses NumPy's global RNG and never seeds it, one report, at the first use in the entry
    module or at the entry's call that leads to it, naming up to three uses with ``file:line``; when
    the run seeds it only after some use ("seeded after use"), a report at each such use. A project
    helper counts as seeding with exactly what its body seeds, whatever its name. A library module's
    draws are reported where they run at import time; in functions, they are its callers' business
    (strict mode reports them all). A training run that seeds nothing at all gets DET100 instead.

    Why it matters: the hidden global ``RandomState`` is seeded from OS entropy
    at import, so every run draws different values.

    Example: ``np.random.shuffle(indices)`` in a training script.
    Fix: ``np.random.seed(SEED)`` first, or draw from ``np.random.default_rng(SEED)``.
    """

    code = "DET102"
    fixes = "safe"
    framework = NUMPY
    rng_name = "NumPy's global RNG"
    fix = "call np.random.seed(SEED) first or draw from np.random.default_rng(SEED)"
    triggers = frozenset({"random"})
    invalid = (
        "import numpy as np\n\nindices = np.arange(100)\nnp.random.shuffle(indices)\n"
        "print(indices[:5])\n",
        "import numpy as np\nx = np.random.rand(3)\n",
        "from numpy.random import randn\nx = randn(3)\n",
    )
    valid = (
        "import numpy as np\nnp.random.seed(0)\nx = np.random.rand(3)\n",
        "import numpy as np\nrng = np.random.default_rng(0)\nx = rng.random(3)\n",
    )
    sources = (
        (
            "``np.random.rand``, ``shuffle``, ``choice``, ... draw from a hidden global "
            "``RandomState`` that NumPy seeds from OS entropy at import: two runs differ.",
            "numpy 2.4 numpy/random/__init__.py, observed (facts §2)",
        ),
        (
            "A ``RandomState`` created with ``seed=None`` reads ``/dev/urandom`` (or the clock).",
            "https://numpy.org/doc/stable/reference/random/legacy.html#numpy.random.RandomState",
        ),
    )

    def might_fire(self, text, settings) -> bool:
        return "numpy" in text and super().might_fire(text, settings)

    def draws(self, ctx: FileContext) -> Iterator[CallSite]:
        return drawing(ctx, NUMPY_LEGACY, self.framework)
