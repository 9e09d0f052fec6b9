"""MONAI's random transforms hold their own ``RandomState`` (DET103's MONAI case).

``monai.transforms.Randomizable.R`` is a ``np.random.RandomState()`` made when MONAI is
imported, from OS entropy.  What reaches a transform (MONAI 1.6, transforms/compose.py,
data/dataset.py, data/dataloader.py, utils/misc.py):

- a ``Compose`` seeds its random transforms when it is built, from ``get_seed()``: the seed of
  the last ``set_determinism(seed)`` (None before any, so a ``Compose`` built before it draws
  entropy); a MONAI ``Dataset`` wraps a transform that is not a ``Compose`` in one when it is
  built;
- ``set_random_state(seed=...)`` on the transform;
- ``monai.data.DataLoader`` (its ``set_rnd`` reseeds the dataset's transforms from torch's RNG).

A bare ``Rand*`` transform (not in a ``Compose``) is never reached by ``set_determinism``.  So a
torch ``DataLoader`` over a MONAI dataset, or a transform applied directly
(``train_transforms(sample)``), draws entropy every run unless one of those seeded it.  A loader
with workers and no ``worker_init_fn`` is DET201's (its fix, ``monai.data.worker_init_fn``,
reseeds the transforms in each worker from the loader's seed); with a ``worker_init_fn`` of the
script's own, which reseeds ``random``/NumPy, the transforms stay unseeded: reported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Tuple

from ..._lazy import cst
from ...analysis.args import MISSING, UNKNOWN, find_arg, literal
from ...analysis.nodes import code_children
from ...analysis.scopes import lookup
from ...tables.rng_objects import (
    MONAI_COMPOSE, MONAI_DATASETS, MONAI_RANDOM_TRANSFORMS, MONAI_SEEDING_METHOD, MONAI_SET_DETERMINISM,
    MONAI_TRANSFORM_PREFIXES, MONAI_WORKER_INIT, TORCH_DATALOADER,
)
from ...tables.data_order import WORKER_INIT_FN
from ...tables.seeding import NUMPY

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite


def unseeded_monai_uses(ctx: FileContext) -> Iterator[Tuple[CallSite, bool]]:
    """(call, applied directly?) for the first use of each MONAI random transform nothing seeds:
    the torch ``DataLoader`` iterating it, else the call applying it.  Nothing when the module
    seeds a transform itself (``set_random_state``)."""
    if any(site.method_name == MONAI_SEEDING_METHOD for site in ctx.index.calls):
        return
    reported = set()
    uses = [(site, transform, False) for site, transform in _loaders(ctx)]
    uses += [(site, transform, True) for site, transform in _applications(ctx)]
    for site, transform, applied in uses:
        if id(transform) not in reported:
            reported.add(id(transform))
            yield site, applied


def _loaders(ctx: FileContext) -> Iterator[Tuple[CallSite, object]]:
    """(loader, transform): torch ``DataLoader`` calls over a MONAI dataset whose random
    transform nothing seeds."""
    for site in ctx.calls_to({TORCH_DATALOADER}):
        workers = find_arg(site.node, "num_workers", 5)
        if workers is not MISSING and literal(workers) != (True, 0):
            init = find_arg(site.node, *WORKER_INIT_FN)
            if init is MISSING or literal(init) == (True, None):
                continue  # DET201 reports it: its fix, MONAI's worker_init_fn, reseeds the transforms
            if ctx.resolve(init, site) in MONAI_WORKER_INIT:
                continue
            # a worker_init_fn of the script's own (reseeding random/NumPy) does not reach them
        dataset = _value(ctx, site, find_arg(site.node, "dataset", 0))
        if not isinstance(dataset, cst.Call) or not _is(ctx, site, dataset, MONAI_DATASETS):
            continue
        transform = _value(ctx, site, find_arg(dataset, "transform", 1))
        if transform is not None and _unseeded(ctx, site, transform, built_by=dataset):
            yield site, transform


def _applications(ctx: FileContext) -> Iterator[Tuple[CallSite, object]]:
    """(call, transform): a MONAI transform with a random part applied directly
    (``train_transforms(sample)``, ``RandFlip(prob=0.5)(image)``) that nothing seeds."""
    for site in ctx.index.calls:
        func = site.node.func
        if not isinstance(func, (cst.Name, cst.Call)):
            continue
        transform = _value(ctx, site, func)
        if isinstance(transform, cst.Call) and _is(ctx, site, transform, MONAI_TRANSFORM_PREFIXES) \
                and _unseeded(ctx, site, transform, built_by=None):
            yield site, transform


def _unseeded(ctx: FileContext, site: CallSite, transform, built_by) -> bool:
    """The transform draws, and no ``Compose`` holding it was built after ``set_determinism``:
    a ``Compose([...Rand...])`` call, or a bare ``Rand*`` transform (wrapped in a ``Compose``
    by the MONAI dataset ``built_by``, when there is one)."""
    if not _draws(ctx, site, transform):
        return False
    if _is(ctx, site, transform, MONAI_COMPOSE):
        built = ctx.site_of(transform)
    elif built_by is not None:
        built = ctx.site_of(built_by)
    else:
        return True  # a bare transform: its class-wide RandomState, which set_determinism never reaches
    return built is None or not _monai_seed_set(ctx, built)


def _monai_seed_set(ctx: FileContext, built: CallSite) -> bool:
    """``set_determinism(seed)`` runs before the ``Compose`` is built: earlier in the same body;
    at import time when it is built in a function; or in a function that has seeded NumPy (as
    ``set_determinism`` does) by then."""
    for seeding in ctx.calls_to({MONAI_SET_DETERMINISM}):
        seed = find_arg(seeding.node, "seed", 0)
        if seed is UNKNOWN or literal(seed) == (True, None):
            continue  # ``set_determinism(seed=None)`` turns determinism off
        if seeding.fn is built.fn:
            if seeding.order < built.order:
                return True
        elif seeding.fn is None or ctx.facts.seeded_at(NUMPY, built):
            return True
    return False


def _value(ctx: FileContext, site: CallSite, expr, depth: int = 0):
    """The expression, or what a name holds (assigned earlier in reach of the call)."""
    if expr in (MISSING, UNKNOWN) or expr is None:
        return None
    if isinstance(expr, cst.Name) and depth < 2:
        binding = lookup(site.scope, expr.value, site.order)
        if binding is not None and binding.kind == "assign" and binding.value is not None:
            return _value(ctx, site, binding.value, depth + 1)
        return None
    return expr


def _is(ctx: FileContext, site: CallSite, call, names) -> bool:
    name = ctx.resolver.resolve(call.func, site.scope, site.order) or ""
    return name in names or any(name.startswith(prefix) for prefix in names if prefix.endswith("."))


def _draws(ctx: FileContext, site: CallSite, transform) -> bool:
    """A ``Rand*`` MONAI transform anywhere in the expression (a ``Compose([...])`` list)."""
    stack = [transform]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            name = ctx.resolver.resolve(node.func, site.scope, site.order) or ""
            if name.startswith(MONAI_RANDOM_TRANSFORMS):
                return True
        stack.extend(code_children(node))
    return False
