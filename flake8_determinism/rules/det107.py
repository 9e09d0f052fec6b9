from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..tables.rng_draws import MINDSPORE_DRAWS
from ..tables.seeding import MS
from .common.base import last_parts
from .common.global_draws import GlobalDrawRule, drawing

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite


class UnseededMindSpore(GlobalDrawRule):
    """DET107: a run uses MindSpore's seeds while ``mindspore.set_seed`` was not called.

    What it does: ``mindspore.ops`` random functions and primitives (``ops.uniform``,
    ``ops.standard_normal``, ``ops.shuffle``, ...) and ``mindspore.mint`` random functions without
    ``seed=``, dropout and ``mindspore.dataset`` random transforms are uses of MindSpore's seeds;
    layers whose initializers draw (``nn.Dense``, ``nn.Conv2d``, ...) use the initializer seed,
    which ``mindspore.set_seed`` or ``np.random.seed`` sets. Judged per run (the entry module's own
    code, the project modules it reaches and their import-time code): when the run uses them and
    never seeds it, one report, at the first use in the entry module or at the entry's call that
    leads to it, naming up to three uses with ``file:line``; when the run seeds it only after some
    use ("seeded after use"), a report at each such use. A library module's draws are reported where
    they run at import time; in functions, they are its callers' business (strict mode reports them
    all). A training run that seeds nothing at all gets DET100 instead.

    Why it matters: with neither a global nor an op seed the kernel chooses a
    random seed, so values differ every run.

    Fix: ``mindspore.set_seed(SEED)`` (and ``mindspore.manual_seed(SEED)`` for ``mint``) at start-up.
    """

    code = "DET107"
    fixes = "safe"
    framework = MS
    rng_name = "MindSpore's global seed"
    fix = "call mindspore.set_seed(SEED) first"
    triggers = last_parts(MINDSPORE_DRAWS)
    invalid = (
        "import mindspore.ops as ops\n\nx = ops.standard_normal((2, 2))\nprint(x)\n",
        "import mindspore.ops as ops\nx = ops.standard_normal((2, 2))\n",
    )
    valid = ("import mindspore\nimport mindspore.ops as ops\nmindspore.set_seed(1)\nx = ops.standard_normal((2, 2))\n",)
    sources = (
        (
            "Without ``mindspore.set_seed``, ``numpy.random`` and ``mindspore.common.Initializer`` "
            "choose a random seed.",
            "https://www.mindspore.cn/docs/en/stable/api_python/mindspore/mindspore.set_seed.html",
        ),
        (
            "Legacy random ops with neither a global nor an op seed let the kernel choose a random "
            "seed; ``mindspore.mint`` random functions use a second generator, seeded by "
            "``mindspore.manual_seed``.",
            "mindspore 2.10 mindspore/common/seed.py, common/generator.py (facts §6)",
        ),
    )

    def might_fire(self, text, settings) -> bool:
        return "mindspore" in text and super().might_fire(text, settings)

    def draws(self, ctx: FileContext) -> Iterator[CallSite]:
        return drawing(ctx, MINDSPORE_DRAWS, self.framework)
