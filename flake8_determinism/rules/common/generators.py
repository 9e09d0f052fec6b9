"""DataLoaders and samplers without ``generator=`` (DET202, DET205), and where each is reported.

docs/contract.md "Default mode reports facts about reruns": in a run that seeds torch before the
loader is iterated its order repeats on rerun (strict only); in a run where torch is unseeded
there, the loader is one more use of the unseeded torch RNG, named in the run's DET100/DET104
report, whose fix adds ``generator=`` to it (``generator_edits``).  Default mode reports the call
itself only where the run seeds torch and the seed does not reach the loader (a process that
``torch.multiprocessing.spawn`` starts fresh).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Tuple

from ...analysis.args import UNKNOWN, absent_or_none, find_arg
from ...tables.data_order import GENERATOR, RANDOM_SAMPLERS
from ...tables.seeding import TORCH
from . import dataloader, edits

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite


def loaders(ctx: FileContext) -> Iterator[Tuple[CallSite, object, bool]]:
    """(site, the call with its ``**kwargs`` opened, shuffles) of each DataLoader that shuffles, or
    runs workers whose dataset may draw, without a generator."""
    for site in dataloader.dataloaders(ctx):
        call = dataloader.effective_call(ctx, site)
        shuffles, workers = dataloader.shuffles(call), dataloader.uses_workers(call, site)
        if shuffles is not True and workers is not True:
            continue
        if find_arg(call, *GENERATOR) is UNKNOWN or not absent_or_none(call, *GENERATOR):
            continue
        if shuffles is not True:
            draws, _ = dataloader.dataset_randomness(ctx, call, site)
            if draws == dataloader.NOTHING:
                continue  # the workers draw nothing: their seeds change nothing
            if draws is None and dataloader.says_in_order(call) and not ctx.settings.strict:
                continue  # ``shuffle=False`` on a dataset not seen here (a validation loader): strict
        yield site, call, shuffles is True


def samplers(ctx: FileContext) -> Iterator[CallSite]:
    """``RandomSampler(...)``, ``random_split(...)`` and the like without a generator."""
    for site in ctx.calls_to(RANDOM_SAMPLERS):
        where = ("generator", RANDOM_SAMPLERS[site.qualname])
        if find_arg(site.node, *where) is not UNKNOWN and absent_or_none(site.node, *where):
            yield site


def seeded_where_drawn(ctx: FileContext, site: CallSite) -> bool:
    """torch is seeded when the order is drawn: before the call, or later in its body (a loader
    draws its order when iterated, usually after a later ``set_seed``)."""
    return ctx.facts.seeded_at(TORCH, site) or ctx.facts.seeded_later_in_body(TORCH, site)


def reported_by_default(ctx: FileContext, site: CallSite, run) -> bool:
    """Does default mode report this loader or sampler itself?  Only in code the ``run``
    (``runs.run_of``) reaches, where it seeds torch but that seed does not reach the call; every other
    case is strict (a seeded order repeats, an unseeded one is the run's DET100/DET104 cause, a
    library's is its caller's)."""
    if run is None or not ctx.facts.in_entry_code(site) or seeded_where_drawn(ctx, site):
        return False
    return run.seeded_in_run(TORCH)


def generator_edits(ctx: FileContext) -> List[edits.Fix]:
    """The ``generator=`` each unseeded loader and sampler of the run gets with the run's seeding
    (the PyTorch reproducibility guide's advice): those the run reaches before torch is seeded,
    not run again and again (``dataloader.generator_fix_withheld``).  Seeded from the run's own
    seed, ``torch.initial_seed()``: the seeding block the same fix inserts runs before them."""
    found = []
    for site, call, _ in loaders(ctx):
        if _needs_generator(ctx, site):
            fix = dataloader.argument_fix(ctx, site, call, GENERATOR[0], dataloader.GENERATOR_FROM_RUN,
                                          "pass a seeded generator")
            if fix is not None:
                found.append(fix)
    for site in samplers(ctx):
        if _needs_generator(ctx, site):
            found.append(edits.set_argument(site.node, "generator", None, dataloader.GENERATOR_FROM_RUN,
                                            "pass a seeded generator"))
    return found


def _needs_generator(ctx: FileContext, site: CallSite) -> bool:
    return ctx.facts.in_entry_code(site) and not seeded_where_drawn(ctx, site) and \
        not dataloader.generator_fix_withheld(ctx, site)
