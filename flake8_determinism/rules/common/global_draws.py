"""The seeding rules of the global RNGs (DET101, DET102, DET104, DET106, DET107): one base class.

Each subclass says which calls draw from its RNG (``draws``); the run (``runs.py``) collects
them from every subclass registered here, so it never imports a rule."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Iterator

from ...analysis import calls
from ...analysis.body import only_feeds
from ...tables.entry import TRACING_CALLS, TRACING_METHODS
from . import runs
from .base import Report, Rule
from .run_reports import MOVE, SEED, cause_reports
from .runs import FRAMEWORKS_OF, run_of
from .cause_fix import run_cause_fix
from .seeding import fallback_seed_draw, seeding_fix

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite
    from ...precheck import SourceText


class GlobalDrawRule(Rule):
    """A global RNG's seeding rule (DET101, DET102, DET104, DET106, DET107).

    In an entry module the rule judges the run (``runs.py``): one report for an RNG the run
    uses and never seeds, a report at each use made before the run seeds it.  A library
    module's draws are its callers' business, except those at import time; strict mode
    reports every draw made while the RNG is unseeded in the module.
    """

    precheck_scope = "draw"
    cross_module = True
    fix_description = (  # the seeding of the run, as for every draw rule
        "Seeds the run where it starts: the ``__main__`` block (or the function it calls, after the "
        "arguments are parsed), module level only in a script without one that no project module imports; "
        "with the run's own seed (``--seed``/``--manualSeed``, ``cfg.seed``, a ``SEED`` constant), else "
        "``SEED = 0``. One line per RNG the run uses: ``random.seed`` and ``np.random.seed`` always, "
        "``torch.manual_seed`` + ``torch.cuda.manual_seed_all``, ``tf.random.set_seed`` "
        "(``tf.set_random_seed`` in TensorFlow 1 code, ``keras.utils.set_random_seed`` for Keras alone), "
        "``mindspore.set_seed``, ``dgl.seed``. A run that seeds some RNGs "
        "itself gets the missing lines right after its own seeding, with its seed; its seeding helper is "
        "called, or completed. A use before the run's seeding: the unsafe fix moves the seeding up. In a "
        "library module the seed is the caller's job: reported, not changed."
    )
    framework: ClassVar[str]
    fix: ClassVar[str]
    rng_name: ClassVar[str]

    def draws(self, ctx: FileContext) -> Iterator[CallSite]:
        raise NotImplementedError

    def might_use(self, text: SourceText, settings) -> bool:
        return runs.might_use(text, FRAMEWORKS_OF[self.code])

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        runs.DRAW_RULES.append(cls())

    def check(self, ctx: FileContext) -> Iterator[Report]:
        reported = set()
        for node, message, kind, framework in cause_reports(ctx, self.code):
            reported.add(id(node))
            fix = run_cause_fix(ctx, torch_cause=self.code == "DET104") if kind == SEED else None
            if kind == MOVE:
                from .moves import (
                    move_seeding_fix,  # loads libcst: only for a report that has this fix
                )

                fix = move_seeding_fix(ctx, node, framework)
            yield Report(node, message, fix=fix)
        if run_of(ctx) is not None and not ctx.settings.strict:
            return  # the run's reports say it all
        for site in self.draws(ctx):
            if id(site.node) in reported or not self.in_scope(ctx, site):
                continue
            if ctx.facts.seeded_at(self.framework, site) or fallback_seed_draw(ctx, site):
                continue  # seeded; or a seed drawn when none is given: DET105's cause, not this one
            if not ctx.settings.strict and only_feeds(ctx, site, TRACING_CALLS, TRACING_METHODS):
                continue  # a dummy input for export or tracing: its values never reach the result
            # Import-time code of a module with a ``__main__`` block runs before the run's
            # seeding (which goes in that block): moving code fixes it, another block would not.
            at_import = site.fn is None and bool(ctx.index.main_guards)
            yield Report(site.node, self.message(ctx, site), fix=None if at_import else seeding_fix(ctx))

    @staticmethod
    def in_scope(ctx: FileContext, site: CallSite) -> bool:
        """Strict: anywhere.  Default, outside a run: import-time code (it runs in every run)."""
        return ctx.settings.strict or ctx.facts.in_entry_code(site)

    def message(self, ctx: FileContext, site: CallSite) -> str:
        when = "is not seeded before this call" if ctx.facts.events[self.framework] else "is never seeded"
        return "%s() draws from %s, which %s in this module; the values change every run — %s" % (
            ctx.spelling(site), self.rng_name, when, self.fix,
        )


def drawing(ctx: FileContext, table, framework: str) -> Iterator[CallSite]:
    """The calls of ``table``'s functions that draw from ``framework``'s global RNG
    (``calls.global_draw``: asked of the project modules' calls too)."""
    for site in ctx.calls_to(table):
        if calls.global_draw(ctx.facts.call(site)) == framework:
            yield site
