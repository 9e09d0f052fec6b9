from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator

from .._lazy import cst
from ..analysis.nodes import self_attribute
from ..tables import data_order as D
from ..tables.rng_draws import NUMPY_LEGACY
from .common.base import Report, Rule
from .common.seeding import seed_calls_on

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


class DatasetHeldRng(Rule):
    """DET204: an RNG object stored on a Dataset and drawn from in ``__getitem__``/``__iter__``.

    What it does: reports ``self.rng = np.random.default_rng(...)`` (also
    ``RandomState``, ``random.Random``, ``torch.Generator``) in a
    ``Dataset``/``IterableDataset`` subclass whose ``__getitem__``/``__iter__``
    draws from it -- seeded or not.  Not when the attribute is assigned again
    elsewhere (a ``worker_init_fn`` doing ``get_worker_info().dataset.rng = ...``),
    nor reseeded by another method of the class (``self.rng.seed(worker_seed)``).
    Global ``np.random`` in
    ``__getitem__`` is reported only for a target torch older than 1.9, which
    did not reseed NumPy in workers.

    Why it matters: each DataLoader worker gets an identical copy of the object,
    so the workers draw the same "random" augmentations.

    Fix: reseed it per worker in ``worker_init_fn`` (``get_worker_info().dataset.rng = ...``).
    """

    code = "DET204"
    triggers = frozenset({"Dataset", "IterableDataset"})
    invalid = (
        "import numpy as np\nfrom torch.utils.data import Dataset\n\nclass D(Dataset):\n"
        "    def __init__(self):\n        self.rng = np.random.default_rng(0)\n\n"
        "    def __getitem__(self, i):\n        return self.rng.random()\n",
    )
    valid = (
        "import numpy as np\nfrom torch.utils.data import Dataset\n\nclass D(Dataset):\n"
        "    def __getitem__(self, i):\n        return np.random.rand()\n",
    )
    sources = (
        (
            "RNG objects a dataset holds are copied into every DataLoader worker unchanged: workers 0 "
            "and 1 drew the same values.",
            "observed on torch 2.13 (facts §1.1(e))",
        ),
        (
            "Seeds of libraries other than torch may be duplicated when workers start, so every worker "
            "returns identical random numbers; reseed them in ``worker_init_fn``.",
            "https://docs.pytorch.org/docs/stable/data.html#data-loading-randomness",
        ),
    )
    fix_description = (
        "How to reseed depends on how the dataset uses the object. DET201's fix adds a "
        "``seed_worker`` that reseeds NumPy and ``random`` objects it finds on the dataset, but this "
        "report stays until the attribute is reassigned by name, as below."
    )
    fixed = (
        "import numpy as np\nimport torch\n"
        "from torch.utils.data import DataLoader, Dataset, get_worker_info\n\n\nclass D(Dataset):\n"
        "    def __init__(self):\n        self.rng = np.random.default_rng(0)\n\n"
        "    def __getitem__(self, i):\n        return self.rng.random()\n\n\ndef seed_worker(worker_id):\n"
        "    # a fresh RNG per worker, from the worker's own torch seed\n    info = get_worker_info()\n"
        "    info.dataset.rng = np.random.default_rng(info.seed)\n\n\n"
        "loader = DataLoader(D(), num_workers=4, worker_init_fn=seed_worker,\n"
        "                    generator=torch.Generator().manual_seed(0))\n"
    )
    scope_note = (
        "NumPy's global ``np.random`` in ``__getitem__`` is reported only for a target torch older than "
        "1.9 (``--determinism-torch-version``)."
    )

    def check(self, ctx: FileContext) -> Iterator[Report]:
        datasets = ctx.local_subclasses(D.DATASET_BASES) if ctx.index.classes else {}
        if not datasets:
            return
        stored: Dict[tuple, object] = {}  # (class id, attribute) -> the constructor call
        created_in: Dict[tuple, object] = {}  # (class id, attribute) -> function that stores it
        for assignment in ctx.index.assignments:
            klass = _method_class(assignment.fn)
            if klass is None or id(klass) not in datasets or not isinstance(assignment.value, cst.Call):
                continue
            attribute = self_attribute(assignment.target)
            if attribute and ctx.resolver.resolve(assignment.value.func, assignment.scope, assignment.order) in D.RNG_OBJECTS:
                key = (id(klass), attribute)
                if key not in stored:
                    stored[key], created_in[key] = assignment.value, assignment.fn
        # Reassigned anywhere else (``get_worker_info().dataset.rng = ...`` in a
        # worker_init_fn, a per-worker reseed method): assume it is reseeded per worker.
        for assignment in ctx.index.assignments:
            target = assignment.target
            if not isinstance(target, cst.Attribute):
                continue
            on_self = bool(self_attribute(target))
            klass = _method_class(assignment.fn)
            for key in [k for k in stored if k[1] == target.attr.value]:
                same_class = klass is not None and id(klass) == key[0]
                if (not on_self or same_class) and assignment.fn is not created_in[key]:
                    del stored[key]
        # Reseeded by a method of the class (``self.rng.seed(worker_seed)`` in ``__iter__``, as
        # open_clip's ResampledShards2 does per worker): not one copy drawn identically.
        for key in list(stored):
            if any(site.node.args and id(_method_class(site.fn)) == key[0] and site.fn.node is not created_in[key].node
                   for site in seed_calls_on(ctx, "self." + key[1])):
                del stored[key]
        drawn = set()
        old_torch = ctx.settings.torch_version < D.TORCH_RESEEDS_NUMPY_IN_WORKERS
        for site in ctx.index.calls:
            klass = _method_class(site.fn)
            if klass is None or id(klass) not in datasets or site.fn.name not in D.DATASET_DRAW_METHODS:
                continue
            func = site.node.func
            # ``self.rng.random()`` or ``torch.rand(1, generator=self.gen)``
            candidates = [func.value] if isinstance(func, cst.Attribute) else []
            candidates += [arg.value for arg in site.node.args]
            for expr in candidates:
                attribute = self_attribute(expr)
                if attribute and (id(klass), attribute) in stored:
                    drawn.add((id(klass), attribute))
            if old_torch and ctx.qualname(site) in NUMPY_LEGACY:
                yield Report(
                    site.node,
                    "%s() in %s: torch < 1.9 does not reseed NumPy in DataLoader workers, so every worker draws"
                    " the same values — reseed np.random in worker_init_fn" % (ctx.spelling(site), site.fn.name),
                )
        for key, constructor in stored.items():
            if key not in drawn:
                continue
            yield Report(
                constructor,
                "self.%s is an RNG stored on the Dataset and drawn from per item; every DataLoader worker gets an"
                " identical copy and draws the same values — reseed it per worker in worker_init_fn" % key[1],
            )


def _method_class(fn):
    if fn is None or not fn.is_method:
        return None
    return fn.parent_scope.node
