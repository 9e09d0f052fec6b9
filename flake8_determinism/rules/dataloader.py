"""What DET201/DET202 share: finding DataLoaders and reading their flags."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional

from ..analysis.args import MISSING, UNKNOWN, find_arg, literal
from ..tables.data_order import DATALOADER, NUM_WORKERS, SEEDS_WORKERS, SHUFFLE

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite

TRIGGERS = frozenset({"DataLoader"})


def dataloaders(ctx: FileContext) -> Iterator[CallSite]:
    """``torch.utils.data.DataLoader(...)`` however imported, and classes defined
    here that subclass it (``class InfiniteDataLoader(dataloader.DataLoader)``)."""
    subclasses = ctx.local_subclasses({DATALOADER}) if ctx.index.classes else {}
    for site in ctx.index.calls:
        if ctx.qualname(site) == DATALOADER:
            yield site
        elif subclasses:
            klass = ctx.called_class(site)
            if klass is not None and id(klass) in subclasses:
                yield site


def flag(call, where) -> Optional[bool]:
    """True/False when the flag is certainly on/off, None when ``**kwargs`` hides it.
    A non-literal value is treated as possibly on."""
    value = find_arg(call, *where)
    if value is MISSING:
        return False
    if value is UNKNOWN:
        return None
    known, constant = literal(value)
    return bool(constant) if known else True


def uses_workers(call) -> Optional[bool]:
    return flag(call, NUM_WORKERS)


def shuffles(call) -> Optional[bool]:
    return flag(call, SHUFFLE)


def lightning_seeds_workers(ctx: FileContext) -> bool:
    """``seed_everything(..., workers=True)``: Lightning injects a worker_init_fn."""
    for name, where in SEEDS_WORKERS.items():
        for site in ctx.calls_to({name}):
            value = find_arg(site.node, *where)
            if value not in (MISSING, UNKNOWN) and literal(value) == (True, True):
                return True
    return False
