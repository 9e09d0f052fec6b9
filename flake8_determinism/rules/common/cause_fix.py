"""The fix of a run's seeding cause (DET100's, DET104's...): the seeding block, and in a run that
never seeds torch what its seeding leaves (docs/contract.md "Default mode reports facts about
reruns"): the ``generator=`` of the DataLoaders and samplers the report names, and deterministic
mode where the run trains on the GPU (DET303 reports it only in a seeded run)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from . import edits
from .deterministic_mode import missing_mode_run, mode_fix
from .generators import generator_edits
from .runs import LOADER_VERBS
from .seeding import seeding_fix

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext

def run_cause_fix(ctx: FileContext, torch_cause: bool) -> Optional[edits.Fix]:
    """``torch_cause``: the report is of torch's RNG (DET104) or of the whole run (DET100).  The
    deterministic mode is the framework's own switch where the installed version takes it (its
    ``requires``), else the generic lines, as DET303's fix."""
    if not torch_cause:
        return seeding_fix(ctx)
    loaders = generator_edits(ctx)
    if not needs_mode(ctx):
        return seeding_fix(ctx, loaders)
    mode = mode_fix(ctx)
    fix = seeding_fix(ctx, loaders + [mode])
    if fix is None or mode.fallback is None:
        return fix
    # A framework switch the installed version may not take: its fallback, the generic lines.
    return fix._replace(fallback=seeding_fix(ctx, loaders + [mode.fallback]))


def needs_mode(ctx: FileContext) -> bool:
    """Default mode: the run trains with torch on the GPU without deterministic mode, and DET303 is
    quiet (it reports seeded runs, and strict mode reports it with its own fix)."""
    return not ctx.settings.strict and missing_mode_run(ctx) is not None


def cause_hint(ctx: FileContext, run, uses) -> str:
    """What the fix does besides seeding, for the report's message: the loaders and samplers it
    gives a generator (named with where they are: the message's first three uses may leave them
    out), and deterministic mode."""
    hint = ""
    loaders = [use for use in uses if use.what.startswith(LOADER_USES)]
    if loaders:
        named = []
        for use in loaders:
            entry = run.place(use)
            if entry not in named:
                named.append(entry)
        shown = ", ".join(named[:MAX_LOADERS]) + (", ..." if len(named) > MAX_LOADERS else "")
        hint += ", and give its DataLoaders and samplers (%s) generator=torch.Generator().manual_seed(SEED)" % shown
    if needs_mode(ctx):
        hint += ", and (it trains on the GPU) turn deterministic algorithms on: torch.use_deterministic_algorithms(True)"
    return hint


MAX_LOADERS = 5
LOADER_USES = tuple(verb + " (" for verb in LOADER_VERBS)
