from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..analysis.args import UNKNOWN, absent_or_none, find_arg
from ..tables.data_order import GENERATOR
from . import dataloader
from .base import Report, Rule

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


class DataLoaderWithoutGenerator(Rule):
    """DET202: a DataLoader that shuffles or uses workers without ``generator=``.

    What it does: reports DataLoaders with ``shuffle=True`` (also positional, or
    not a literal) or worker processes, and no ``generator`` (or ``None``); not
    when ``**kwargs`` may carry it.

    Why it matters: without ``generator=`` the shuffle order and the workers'
    base seed are drawn from the global torch RNG, so any change in how much
    randomness the model consumes (one more layer, dropout, an augmentation)
    changes the data order, even with a fixed seed.

    Fix: ``generator=torch.Generator().manual_seed(SEED)``.
    """

    code = "DET202"
    triggers = dataloader.TRIGGERS
    invalid = (
        "from torch.utils.data import DataLoader\nloader = DataLoader([1, 2], batch_size=1, shuffle=True)\n",
        "from torch.utils.data import DataLoader as DL\nloader = DL([1, 2], 16, True)\n",
    )
    valid = (
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "loader = DataLoader([1, 2], shuffle=True, generator=torch.Generator().manual_seed(0))\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader([1, 2], shuffle=False)\n",
    )

    def check(self, ctx: FileContext) -> Iterator[Report]:
        for site in dataloader.dataloaders(ctx):
            call = site.node
            shuffles, workers = dataloader.shuffles(call), dataloader.uses_workers(call)
            if shuffles is not True and workers is not True:
                continue
            if find_arg(call, *GENERATOR) is UNKNOWN or not absent_or_none(call, *GENERATOR):
                continue
            what = "shuffles" if shuffles else "uses worker processes"
            yield Report(
                call,
                "DataLoader %s without generator=; its order and worker seeds come from the global torch RNG,"
                " so any change in how much randomness the model consumes changes the data order"
                " — pass generator=torch.Generator().manual_seed(SEED)" % what,
            )
