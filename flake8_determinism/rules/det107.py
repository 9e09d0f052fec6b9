from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..analysis.args import absent_or_none
from ..tables.rng_draws import MINDSPORE_DRAWS
from ..tables.seeding import MS
from .base import GlobalDrawRule, last_parts

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite


class UnseededMindSpore(GlobalDrawRule):
    """DET107: a MindSpore random op runs while ``mindspore.set_seed`` was not called.

    What it does: reports ``mindspore.ops`` random functions and primitives
    (``ops.uniform``, ``ops.standard_normal``, ``ops.shuffle``, ...) and
    ``mindspore.mint`` random functions without ``seed=`` while MindSpore is
    unseeded, under the scope policy.

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
    invalid = ("import mindspore.ops as ops\nx = ops.standard_normal((2, 2))\n",)
    valid = ("import mindspore\nimport mindspore.ops as ops\nmindspore.set_seed(1)\nx = ops.standard_normal((2, 2))\n",)

    def might_fire(self, text, settings) -> bool:
        return "mindspore" in text and super().might_fire(text, settings)

    def draws(self, ctx: FileContext) -> Iterator[CallSite]:
        for site in ctx.calls_to(MINDSPORE_DRAWS):
            if absent_or_none(site.node, "seed"):
                yield site
