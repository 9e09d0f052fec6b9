from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..analysis.args import UNKNOWN, absent_or_none, find_arg
from ..tables.data_order import WORKER_INIT_FN
from .common import dataloader
from .common import edits
from .common.base import Report, Rule

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


class DataLoaderWorkersWithoutInitFn(Rule):
    """DET201: DataLoader workers without ``worker_init_fn`` where one would change something.

    What it does: reports ``torch.utils.data.DataLoader`` (however imported, and
    classes here that subclass it) with ``num_workers`` > 0 or not a literal,
    and no ``worker_init_fn`` (or ``None``), when the dataset -- a class defined
    in this module, passed directly or through a variable -- holds an RNG
    object or draws from an RNG the workers do not reseed (albumentations,
    imgaug, TensorFlow, MindSpore; NumPy's global RNG for target torch < 1.9).
    A dataset the module cannot see: strict mode only.  Not when ``**kwargs``
    may carry it (a dict built in the same scope is read), nor when Lightning's
    ``seed_everything(..., workers=True)`` is called here.

    Why it matters: since torch 1.9 each worker reseeds ``random``, torch and
    NumPy's global RNG itself, but RNG objects the dataset holds and other
    libraries' RNGs are copied unchanged into every worker, which then repeat
    each other's draws (and differ from a ``num_workers=0`` run).

    Fix: pass ``worker_init_fn=seed_worker`` that reseeds them from ``torch.initial_seed()``.
    """

    code = "DET201"
    fixes = "safe"
    triggers = dataloader.TRIGGERS

    def might_fire(self, text, settings) -> bool:
        return dataloader.might_build_dataloader(text)
    invalid = (
        "import numpy as np\nfrom torch.utils.data import DataLoader, Dataset\n\nclass D(Dataset):\n"
        "    def __init__(self):\n        self.rng = np.random.default_rng(0)\n\n"
        "    def __getitem__(self, i):\n        return self.rng.random()\n\n"
        "loader = DataLoader(D(), num_workers=4)\n",
    )
    valid = (
        "from torch.utils.data import DataLoader\nloader = DataLoader([1, 2])\n",
        "from torch.utils.data import DataLoader\n"
        "def make(ds, **kw):\n    return DataLoader(ds, num_workers=2, **kw)\n",
        "import random\nfrom torch.utils.data import DataLoader, Dataset\n\nclass D(Dataset):\n"
        "    def __getitem__(self, i):\n        return random.random()\n\nloader = DataLoader(D(), num_workers=4)\n",
    )
    sources = (
        (
            "Each worker's torch seed is ``base_seed + worker_id``, but seeds of other libraries may "
            "be duplicated when workers start, so every worker returns identical random numbers.",
            "https://docs.pytorch.org/docs/stable/data.html#data-loading-randomness",
        ),
        (
            "In torch 2.13 a worker reseeds ``random``, torch and NumPy's global RNG; RNG objects the "
            "dataset holds (``default_rng``, ``RandomState``, ``random.Random``, ``torch.Generator``) "
            "are copied unchanged into every worker, which then draw the same values.",
            "torch/utils/data/_utils/worker.py in torch 2.13, observed (facts §1.1(e))",
        ),
        (
            "PyTorch's recipe: a ``worker_init_fn`` that reseeds from ``torch.initial_seed()``.",
            "https://docs.pytorch.org/docs/stable/notes/randomness.html#dataloader",
        ),
    )
    fix_description = (
        "Adds ``worker_init_fn=seed_worker`` and defines ``seed_worker`` once: PyTorch's recipe, which "
        "also reseeds NumPy ``Generator``/``RandomState`` and ``random.Random`` objects the dataset holds. "
        "Never on a call whose ``**kwargs`` may carry the argument, nor on a DataLoader subclass."
    )
    scope_note = (
        "Strict mode also reports a DataLoader whose dataset this module cannot see. NumPy's global RNG in "
        "the dataset counts only for a target torch older than 1.9 (``--determinism-torch-version``)."
    )

    def check(self, ctx: FileContext) -> Iterator[Report]:
        if dataloader.lightning_seeds_workers(ctx):
            return
        strict = ctx.settings.strict
        for site in dataloader.dataloaders(ctx):
            call = dataloader.effective_call(ctx, site)
            if dataloader.uses_workers(call, site) is not True:
                continue
            if find_arg(call, *WORKER_INIT_FN) is UNKNOWN or not absent_or_none(call, *WORKER_INIT_FN):
                continue
            draws, what = dataloader.dataset_randomness(ctx, call, site)
            if draws == dataloader.COPIED and what == dataloader.MONAI_COPIED:
                # the transforms' states sit inside the dataset's Compose: MONAI's own
                # worker_init_fn walks the dataset and reseeds each (monai/data/utils.py set_rnd)
                yield Report(
                    site.node,
                    "DataLoader uses worker processes but sets no worker_init_fn, and its dataset %s: every"
                    " worker gets an identical copy of those states, so workers repeat each other's random"
                    " draws — pass worker_init_fn=monai.data.worker_init_fn, which reseeds them per worker" % what,
                    fix=dataloader.argument_fix(ctx, site, call, WORKER_INIT_FN[0], "{monai_worker_init_fn}",
                                                "pass worker_init_fn=monai.data.worker_init_fn"),
                )
            elif draws == dataloader.COPIED:
                yield Report(
                    site.node,
                    "DataLoader uses worker processes but sets no worker_init_fn, and its dataset %s: every"
                    " worker gets an identical copy of that RNG state, so workers repeat each other's random"
                    " draws — pass worker_init_fn=seed_worker that reseeds it per worker" % what,
                    fix=_fix(ctx, site, call, what.startswith("holds")),
                )
            elif strict and draws in (None, dataloader.UNSEEN):
                yield Report(
                    site.node,
                    "DataLoader uses worker processes but sets no worker_init_fn (strict mode: the dataset is not"
                    " visible here); RNG objects it holds and other libraries' RNGs are copied unchanged into every"
                    " worker — pass worker_init_fn=seed_worker",
                    fix=_fix(ctx, site, call),
                )


def _fix(ctx: FileContext, site, call, holds_rng_object: bool = False):
    need = edits.SEED_WORKER_OBJECTS if holds_rng_object else edits.SEED_WORKER
    return dataloader.argument_fix(ctx, site, call, WORKER_INIT_FN[0], "seed_worker",
                                   "pass worker_init_fn=seed_worker", (need,))
