"""What DET401 and DET402 share: stochastic layers and transforms, reported one by one in strict
mode.  In default mode each is a use of its RNG, part of the run's seeding report (``runs.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Dict, Iterator

from ...analysis.args import MISSING, UNKNOWN, absent_or_none, find_arg, literal
from ...tables.stochastic import Stochastic
from .base import Report, Rule, last_parts

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite

class StochasticOpRule(Rule):
    """Reports every op of a table, seeded or not (strict mode)."""

    precheck_scope = "draw"
    table: ClassVar[Dict[str, Stochastic]]
    effect: ClassVar[str]  # what the randomness changes, for the message
    strict_fix: ClassVar[str]
    fix_description = (
        "Seed the framework at start-up (in an entry module, the seeding block that "
        "``determinism-fix`` inserts for DET100–DET107 does it)."
    )

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls.triggers = last_parts(cls.table)

    def might_fire(self, text, settings) -> bool:
        # Default mode: a stochastic op is a use of its RNG, part of the run's seeding report.
        return settings.strict and super().might_fire(text, settings)

    def check(self, ctx: FileContext) -> Iterator[Report]:
        if not ctx.settings.strict:
            return
        for site in ctx.calls_to(self.table):
            op = self.table[site.qualname]
            if not inert(site, op):
                yield Report(site.node, self._strict_message(ctx, site, op))

    def _strict_message(self, ctx: FileContext, site: CallSite, op: Stochastic) -> str:
        return "%s() is random (strict mode): %s from run to run and with call order — %s" % (
            ctx.spelling(site), self.effect, self.strict_fix,
        )


def op_seeded(site: CallSite, op: Stochastic) -> bool:
    """An op-level seed (``keras.layers.Dropout(0.5, seed=1)``)."""
    return op.seed is not None and not absent_or_none(site.node, *op.seed)


def inert(site: CallSite, op: Stochastic) -> bool:
    """A literal zero rate or ``training=False``: no randomness at all."""
    if op.rate is not None:
        rate = find_arg(site.node, *op.rate)
        if rate not in (MISSING, UNKNOWN) and literal(rate) in ((True, 0), (True, 0.0)):
            return True
    if op.training is not None:
        keyword, position, default = op.training
        training = find_arg(site.node, keyword, position)
        if training is MISSING:
            return not default
        if training is not UNKNOWN and literal(training) == (True, False):
            return True
    return False
