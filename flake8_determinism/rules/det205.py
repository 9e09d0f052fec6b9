from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..tables.data_order import RANDOM_SAMPLERS
from .common import edits, generators
from .common.runs import run_of
from .common.base import Report, Rule, last_parts
from .common.dataloader import generator_fix_withheld, seeded_generator


if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


class SamplerWithoutGenerator(Rule):
    """DET205: a random sampler or ``random_split`` without ``generator=``.

    What it does: reports ``RandomSampler``, ``SubsetRandomSampler``,
    ``WeightedRandomSampler`` and ``random_split`` called without ``generator``
    (or with ``None``); not when ``**kwargs`` may carry it.  Default mode reports it only where the
    run seeds torch but that seed does not reach the call (a process ``torch.multiprocessing.spawn``
    starts); in a run that never seeds torch it is a cause the run's DET100/DET104 report names and
    fixes (with this ``generator=``), and in a seeded run, or a library, it is strict
    (``rules/common/generators.py``).

    Why it matters: they then draw from the global torch RNG (``random_split``'s
    default is ``torch.default_generator``), so the split or order changes
    whenever anything before them consumes a different amount of randomness.

    Fix: ``generator=torch.Generator().manual_seed(SEED)``.
    """

    code = "DET205"
    fixes = "safe"
    triggers = last_parts(RANDOM_SAMPLERS)
    invalid = (
        "import torch\nimport torch.multiprocessing as mp\nfrom torch.utils.data import random_split\n\n\n"
        "def worker(rank):\n    train, val = random_split(range(10), [8, 2])\n    print(rank, list(val))\n\n\n"
        "if __name__ == \"__main__\":\n    torch.manual_seed(0)\n    mp.spawn(worker, nprocs=2)\n",
    )
    valid = (
        "import torch\nfrom torch.utils.data import random_split\n"
        "train, val = random_split(range(10), [8, 2], generator=torch.Generator().manual_seed(0))\n",
    )
    sources = (
        (
            "``random_split``'s ``generator`` defaults to ``torch.default_generator``, the global one.",
            "https://docs.pytorch.org/docs/stable/data.html#torch.utils.data.random_split",
        ),
        (
            "``RandomSampler``, ``SubsetRandomSampler`` and ``WeightedRandomSampler`` without a "
            "generator draw from the global torch RNG.",
            "torch/utils/data/sampler.py in torch 2.13 (facts §1.1(e))",
        ),
    )
    fix_description = (
        "In an entry module, adds a generator seeded from the run's own seed: "
        "``generator=torch.Generator().manual_seed(torch.initial_seed())`` where the run has seeded torch "
        "before the call (the fix seeds the run first), else ``manual_seed(SEED)``. In a library module the "
        "seed is the caller's job: reported, not changed."
    )

    def check(self, ctx: FileContext) -> Iterator[Report]:
        for site in generators.samplers(ctx):
            if not ctx.settings.strict and not generators.reported_by_default(ctx, site, run_of(ctx)):
                continue  # seeded: strict; unseeded: the run's DET100/DET104 names it and fixes it
            yield Report(
                site.node,
                "%s() without generator= draws from the global torch RNG, so the split/order changes whenever"
                " earlier code consumes different randomness — pass generator=torch.Generator().manual_seed(SEED)"
                % ctx.spelling(site),
                fix=_fix(ctx, site),
            )


def _fix(ctx: FileContext, site):
    """The run's own seed, as DataLoaders get it (``dataloader.seeded_generator``); entry modules only."""
    if not ctx.facts.is_entry or generator_fix_withheld(ctx, site):
        return None
    template, after_seeding = seeded_generator(ctx, site)
    return edits.set_argument(site.node, "generator", None, template, "pass a seeded generator")._replace(
        after_seeding=after_seeding)
