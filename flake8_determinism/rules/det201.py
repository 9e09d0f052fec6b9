from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..analysis.args import UNKNOWN, absent_or_none, find_arg
from ..tables.data_order import WORKER_INIT_FN
from . import dataloader
from .base import Report, Rule

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


class DataLoaderWorkersWithoutInitFn(Rule):
    """DET201: a DataLoader with worker processes and no ``worker_init_fn``.

    What it does: reports ``torch.utils.data.DataLoader`` (however imported, and
    classes here that subclass it) with ``num_workers`` > 0 or not a literal,
    and no ``worker_init_fn`` (or ``None``); not when ``**kwargs`` may carry it,
    nor when Lightning's ``seed_everything(..., workers=True)`` is called here.

    Why it matters: since torch 1.9 each worker reseeds ``random``, torch and
    NumPy's global RNG itself, but RNG objects the dataset holds and other
    libraries' RNGs are copied unchanged into every worker, which then repeat
    each other's draws (and differ from a ``num_workers=0`` run).

    Fix: pass ``worker_init_fn=seed_worker`` that reseeds them from ``torch.initial_seed()``.
    """

    code = "DET201"
    triggers = dataloader.TRIGGERS
    invalid = ("from torch.utils.data import DataLoader\nloader = DataLoader([1, 2], num_workers=4)\n",)
    valid = (
        "from torch.utils.data import DataLoader\nloader = DataLoader([1, 2])\n",
        "from torch.utils.data import DataLoader\ndef make(**kw):\n    return DataLoader([1, 2], num_workers=2, **kw)\n",
    )

    def check(self, ctx: FileContext) -> Iterator[Report]:
        if dataloader.lightning_seeds_workers(ctx):
            return
        for site in dataloader.dataloaders(ctx):
            call = site.node
            if dataloader.uses_workers(call) is not True:
                continue
            if find_arg(call, *WORKER_INIT_FN) is UNKNOWN or not absent_or_none(call, *WORKER_INIT_FN):
                continue
            yield Report(
                call,
                "DataLoader uses worker processes but sets no worker_init_fn; torch reseeds only random, torch and"
                " NumPy's global RNG per worker, so RNG objects the dataset holds and other libraries' RNGs"
                " repeat across workers and vary run to run — pass worker_init_fn=seed_worker",
            )
