from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..tables.data_order import GENERATOR
from .common import dataloader, generators
from .common.runs import run_of
from .common.base import Report, Rule

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


_FIX = "pass generator=torch.Generator().manual_seed(SEED)"


class DataLoaderWithoutGenerator(Rule):
    """DET202: a DataLoader that shuffles, or whose workers draw, without ``generator=``.

    What it does: reports DataLoaders with ``shuffle=True`` (also positional, or
    not a literal; a ``sampler=`` orders the data instead) or worker processes,
    and no ``generator`` (or ``None``); not when ``**kwargs`` may carry it (a
    dict built in the same scope is read).  Workers without shuffling are not
    reported when the dataset is visible here and draws nothing (a class of this
    module or of the project, or a torchvision dataset whose transforms are all
    deterministic), nor, by default, when the call says ``shuffle=False`` and the
    dataset cannot be seen (an evaluation loader; strict mode reports it).
    ``num_workers`` set from a local constant is read.
    Default mode (docs/contract.md "Default mode reports facts about reruns") reports it only
    where the run seeds torch but that seed does not reach the loader (a process that
    ``torch.multiprocessing.spawn`` starts fresh).  In a run that never seeds torch the loader is
    one of the causes the run's DET100/DET104 report names, and that report's fix adds the
    ``generator=``; a seeded run's order repeats on rerun, and a library's loader is its caller's:
    both strict.  The message says what is true where it runs: torch not seeded before it (the
    order changes every run), seeded (reproducible, but tied to every earlier draw), or a library
    function (the caller's seeding decides).

    Why it matters: without ``generator=`` the shuffle order and the workers'
    base seed are drawn from the global torch RNG, so any change in how much
    randomness the model consumes (one more layer, dropout, an augmentation)
    changes the data order, even with a fixed seed.

    Fix: ``generator=torch.Generator().manual_seed(SEED)``.
    """

    code = "DET202"
    fixes = "safe"
    triggers = dataloader.TRIGGERS

    def might_fire(self, text, settings) -> bool:
        return dataloader.might_build_dataloader(text)
    invalid = (
        "import torch\nimport torch.multiprocessing as mp\nfrom torch.utils.data import DataLoader\n\n\n"
        "def worker(rank):\n    loader = DataLoader(list(range(10)), batch_size=2, shuffle=True)\n"
        "    for batch in loader:\n        print(rank, batch)\n\n\n"
        "if __name__ == \"__main__\":\n    torch.manual_seed(0)\n    mp.spawn(worker, nprocs=2)\n",
    )
    valid = (
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "loader = DataLoader([1, 2], shuffle=True, generator=torch.Generator().manual_seed(0))\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader([1, 2], shuffle=False)\n",
        "from torch.utils.data import DataLoader, Dataset\n\nclass D(Dataset):\n"
        "    def __getitem__(self, i):\n        return i\n\nloader = DataLoader(D(), num_workers=4)\n",
    )
    sources = (
        (
            "``generator=`` is the RNG ``RandomSampler`` uses for the random indexes and the workers "
            "use for ``base_seed``; without it both come from the global torch RNG.",
            "https://docs.pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader",
        ),
        (
            "``base_seed`` is drawn from the main process's RNG (consuming RNG state) or from the "
            "given generator.",
            "https://docs.pytorch.org/docs/stable/data.html#data-loading-randomness",
        ),
        (
            "``RandomSampler`` without a generator draws its seed from the global torch RNG at every "
            "``__iter__``, i.e. every epoch.",
            "torch/utils/data/sampler.py in torch 2.13 (facts §1.1(e))",
        ),
        (
            "PyTorch's recipe: ``DataLoader(..., generator=g)`` with ``g = torch.Generator(); "
            "g.manual_seed(0)``.",
            "https://docs.pytorch.org/docs/stable/notes/randomness.html#dataloader",
        ),
    )
    fix_description = (
        "Adds ``generator=torch.Generator().manual_seed(SEED)``; where the run has seeded torch before the "
        "loader, and in a library module, seeded from the run's own seed: ``torch.initial_seed()``. No "
        "``worker_init_fn``: torch reseeds ``random`` and NumPy in each worker since 1.9, and DET201 adds "
        "one where the workers would still repeat each other. Never on a call whose ``**kwargs`` may carry "
        "the argument, nor on a DataLoader subclass."
    )

    def check(self, ctx: FileContext) -> Iterator[Report]:
        for site, call, shuffles in generators.loaders(ctx):
            if not ctx.settings.strict and not generators.reported_by_default(ctx, site, run_of(ctx)):
                continue  # seeded: strict; unseeded: the run's DET100/DET104 names it and fixes it
            # No worker_init_fn here: torch reseeds random and NumPy in each worker (>= 1.9);
            # DET201 adds one where the workers would still repeat each other.
            template, after_seeding = dataloader.seeded_generator(ctx, site)
            fix = dataloader.argument_fix(ctx, site, call, GENERATOR[0], template, "pass a seeded generator")
            if fix is not None and dataloader.generator_fix_withheld(ctx, site):
                fix = None
            if fix is not None:
                fix = fix._replace(after_seeding=after_seeding)
            yield Report(site.node, self.message(ctx, site, shuffles), fix=fix)

    @staticmethod
    def message(ctx: FileContext, site, shuffles: bool) -> str:
        what = "shuffles" if shuffles else "runs workers that may draw random numbers"
        drawn = "its order" if shuffles else "the workers' seeds"
        # The order is drawn when the loader is iterated: a ``set_seed`` later in the same
        # body (before the training loop) counts.
        seeded = generators.seeded_where_drawn(ctx, site)
        if not seeded and not ctx.facts.in_entry_code(site):
            return (
                "DataLoader %s without generator=: %s come%s from the global torch RNG — different every run"
                " unless the caller seeds torch, and even then every earlier draw shifts it — %s"
                % (what, drawn, "s" if shuffles else "", _FIX)
            )
        if seeded:
            return (
                "DataLoader %s without generator=: %s %s reproducible but drawn from the global torch RNG, so"
                " every earlier draw (a new layer, dropout, an augmentation) changes it and two configurations"
                " are not compared on the same data — %s" % (what, drawn, "is" if shuffles else "are", _FIX)
            )
        return (
            "DataLoader %s without generator= and torch is not seeded before it: %s change%s every run — %s"
            % (what, drawn, "s" if shuffles else "", _FIX)
        )
