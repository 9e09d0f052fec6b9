from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from .._lazy import cst

from ..analysis.args import MISSING, find_arg
from ..tables.rng_draws import TENSOR_METHODS, TORCH_GLOBAL
from ..tables.seeding import TORCH
from .common.base import last_parts
from .common.global_draws import GlobalDrawRule, drawing

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite


_INIT = "torch.nn.init."


class UnseededTorchGlobal(GlobalDrawRule):
    """DET104: a run uses torch's global RNG (draws, weight init, dropout, shuffles) while it is unseeded.

    What it does: ``torch.rand*``, ``randn*``, ``randint*``, ``randperm``, ``normal``,
    ``bernoulli``, ``multinomial``, ``poisson``, the random ``nn.init`` initializers and
    ``Tensor.uniform_``/``normal_``/... without ``generator=`` are uses of torch's RNG; so are
    building layers that initialize their weights (``nn.Linear``, ``nn.Conv2d``, ..., and project
    ``nn.Module`` classes that build them, unless the run loads a checkpoint), dropout and random
    transforms (DET401/402 in strict mode), and DataLoaders that shuffle without ``generator=``.
    Judged per run (the entry module's own code, the project modules it reaches and their import-
    time code): when the run uses torch's RNG and never seeds it, one report, at the first use in
    the entry module or at the entry's call that leads to it, naming up to three uses with
    ``file:line``; when the run seeds it only after some use ("seeded after use"), a report at each
    such use. Functions ``torch.multiprocessing.spawn`` starts run in processes of their own, which
    the parent's seed does not reach. A library module's draws are reported where they run at import
    time; in functions, they are its callers' business (strict mode reports them all). A training
    run that seeds nothing at all gets DET100 instead.

    Why it matters: torch's default CPU generator is seeded from OS entropy at
    start-up; weights, noise and masks differ every run.

    Example: ``noise = torch.randn(16, 128)`` in ``train()`` of a script.
    Fix: ``torch.manual_seed(SEED)`` first, or pass ``generator=torch.Generator().manual_seed(SEED)``.
    """

    code = "DET104"
    fixes = "safe"
    framework = TORCH
    rng_name = "torch's global generator"
    fix = "call torch.manual_seed(SEED) first or pass generator="
    triggers = last_parts(n for n in TORCH_GLOBAL if not n.startswith(_INIT)) | TENSOR_METHODS
    init_triggers = last_parts(n for n in TORCH_GLOBAL if n.startswith(_INIT))
    invalid = (
        "import torch\n\nnoise = torch.randn(16, 128)\nprint(noise.mean())\n",
        "import torch\nx = torch.randn(3)\n",
        "import torch\nw = torch.empty(3)\nw.uniform_(-1, 1)\n",
        "import torch.nn as nn\nw = nn.Parameter(nn.init.xavier_uniform_(nn.Parameter()))\n",
    )
    valid = (
        "import torch\ntorch.manual_seed(0)\nx = torch.randn(3)\n",
        "import torch\ng = torch.Generator().manual_seed(0)\nx = torch.randn(3, generator=g)\n",
        "import mylib\nx = mylib.randn(3)\n",
    )
    sources = (
        (
            "A fresh process seeds torch's default CPU generator with a new value: two unseeded runs "
            "print different ``torch.rand(2)``.",
            "observed on torch 2.13 (facts §1.0)",
        ),
        (
            "``torch.manual_seed()`` seeds the RNG of every device; set once at start-up, the same "
            "random numbers come out on every run.",
            "https://docs.pytorch.org/docs/stable/notes/randomness.html#pytorch-random-number-generator",
        ),
        (
            "Functions given ``generator=`` draw from that generator and leave the global one alone "
            "(except ``nn.init.sparse_``).",
            "torch 2.13 torch/nn/init.py and _VariableFunctions.pyi (facts §1.0, §1.1(a))",
        ),
    )

    def might_fire(self, text, settings) -> bool:
        if "torch" not in text:
            return False
        # ``nn.init``'s names (``sparse``, ``uniform``, ...) are common words: require ``init`` too.
        return super().might_fire(text, settings) or ("init" in text and text.has_any(self.init_triggers))

    def draws(self, ctx: FileContext) -> Iterator[CallSite]:
        found = list(drawing(ctx, TORCH_GLOBAL, self.framework))
        if ctx.imports_torch:
            found += [site for site in ctx.index.calls if self._is_tensor_draw(ctx, site)]
            found.sort(key=lambda s: s.order)
        return iter(found)

    @staticmethod
    def _is_tensor_draw(ctx: FileContext, site: CallSite) -> bool:
        func = site.node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in TENSOR_METHODS:
            return False
        if find_arg(site.node, "generator") is not MISSING:
            return False
        receiver = ctx.resolve(func.value, site)
        # ``torch.nn.init.normal_`` and friends are matched by name above.
        return receiver is None or (receiver.startswith("torch") and not receiver.startswith("torch.nn.init"))
