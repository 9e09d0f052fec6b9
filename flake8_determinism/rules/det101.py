from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from ..tables.rng_draws import PYTHON_RANDOM
from ..tables.seeding import RANDOM
from .common.global_draws import GlobalDrawRule, drawing

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite


# The ``random`` module must be imported for any of its functions to resolve.
_IMPORTS_RANDOM = re.compile(r"(?m)^[ \t]*(?:from[ \t]+random[ \t]+import|import[ \t][^\n]*\brandom\b)")


class UnseededPythonRandom(GlobalDrawRule):
    """DET101: a run uses Python's ``random`` while it is unseeded.

    What it does: ``random.random()``, ``random.shuffle(x)``, ``choice``, ``sample``, ... (the
    module-level functions, bound to a hidden ``Random()`` seeded from OS entropy) and the libraries
    that draw from them (torch_geometric's ``negative_sampling``, torchvision's v1
    ``RandomChoice``/``RandomOrder``) are uses of Python's RNG. Judged per run (the entry module's
    own code, the project modules it reaches and their import-time code): when the run uses Python's
    ``random`` and never seeds it, one report, at the first use in the entry module or at the
    entry's call that leads to it, naming up to three uses with ``file:line``; when the run seeds it
    only after some use ("seeded after use"), a report at each such use. A project helper counts as
    seeding with exactly what its body seeds, whatever its name. A library module's draws are
    reported where they run at import time; in functions, they are its callers' business (strict
    mode reports them all). A training run that seeds nothing at all gets DET100 instead.

    Why it matters: each run gets different values, so augmentation, sampling
    and splits differ run to run.

    Example: ``import random; idx = random.sample(range(100), 10)`` at module level.
    Fix: ``random.seed(SEED)`` first, or use ``random.Random(SEED)``.
    """

    code = "DET101"
    fixes = "safe"
    framework = RANDOM
    rng_name = "Python's global RNG"
    fix = "call random.seed(SEED) first or use random.Random(SEED)"
    triggers = frozenset({"random"})
    invalid = (
        "import random\n\nitems = list(range(10))\nrandom.shuffle(items)\nprint(items[:3])\n",
        "import random\nx = random.random()\n",
        "from random import shuffle as sh\nitems = [1, 2]\nsh(items)\n",
    )
    valid = (
        "import random\nrandom.seed(0)\nx = random.random()\n",
        "import random\nrng = random.Random(0)\nx = rng.random()\n",
        "def random():\n    return 4\nx = random()\n",
    )
    sources = (
        (
            "The ``random`` module's functions are bound methods of one hidden ``random.Random`` "
            "instance.",
            "https://docs.python.org/3/library/random.html (facts §3)",
        ),
        (
            "Unseeded, that instance is seeded from the current time or the OS's randomness source.",
            "https://docs.python.org/3/library/random.html#random.seed",
        ),
    )

    def might_fire(self, text, settings) -> bool:
        return super().might_fire(text, settings) and text.search(_IMPORTS_RANDOM)

    def draws(self, ctx: FileContext) -> Iterator[CallSite]:
        return drawing(ctx, PYTHON_RANDOM, self.framework)
