"""MONAI's random transforms hold their own ``RandomState`` (DET103's MONAI case).

``monai.transforms.Randomizable.R`` is a ``np.random.RandomState()`` made when MONAI is
imported; ``set_determinism`` does not reach it (its docstring says so).  Only the transform's
``set_random_state(seed=...)`` or ``monai.data.DataLoader`` (whose ``worker_init_fn``/``set_rnd``
seed the dataset's transforms from torch's RNG) do.  A plain torch ``DataLoader`` over a MONAI
dataset whose transform includes a ``Rand*`` transform therefore draws OS entropy every run.  With
worker processes DET201 reports the loader instead (its ``seed_worker`` reseeds the transforms in
each worker from torch's seed): one report per cause.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional

from .._lazy import cst
from ..analysis.args import MISSING, UNKNOWN, find_arg, literal
from ..analysis.nodes import code_children
from ..analysis.scopes import lookup
from ..tables.rng_objects import MONAI_DATASETS, MONAI_RANDOM_TRANSFORMS, MONAI_SEEDING_METHOD, TORCH_DATALOADER

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite


def unseeded_monai_loaders(ctx: FileContext) -> Iterator[CallSite]:
    """torch ``DataLoader`` calls over a MONAI dataset with a random transform, in a module that
    never calls ``set_random_state``."""
    if any(site.method_name == MONAI_SEEDING_METHOD for site in ctx.index.calls):
        return
    for site in ctx.calls_to({TORCH_DATALOADER}):
        workers = find_arg(site.node, "num_workers", 5)
        if workers is not MISSING and literal(workers) != (True, 0):
            continue  # worker processes: DET201 reports it, and its seed_worker reseeds the transforms
        dataset = _value(ctx, site, find_arg(site.node, "dataset", 0))
        if not isinstance(dataset, cst.Call) or not _is(ctx, site, dataset, MONAI_DATASETS):
            continue
        transform = _value(ctx, site, find_arg(dataset, "transform", 1))
        if transform is not None and _draws(ctx, site, transform):
            yield site


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
