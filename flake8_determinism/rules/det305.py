from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..tables.determinism import ALGORITHMS, CUBLAS_CHECK_REMOVED, CUBLAS_CONFIG, CUBLAS_VALUES, ENABLERS
from .base import Report, Rule

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext

_VALUES = " or ".join(sorted(CUBLAS_VALUES))


class CublasWorkspaceNotSet(Rule):
    """DET305: deterministic algorithms on, but ``CUBLAS_WORKSPACE_CONFIG`` not set first (torch < 2.10).

    What it does: when the target torch version is older than 2.10, reports
    ``torch.use_deterministic_algorithms(True)`` (and helpers that call it
    without setting the variable: ``transformers.set_seed(deterministic=True)``,
    ``accelerate.utils.set_seed(..., deterministic=True)``, mmengine
    ``set_random_seed(..., deterministic=True)``) when no
    ``os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"`` (or ``":16:8"``,
    also via ``os.environ.setdefault``/``update``, ``os.putenv``, Lightning
    ``Trainer(deterministic=True)``, ``transformers.enable_full_determinism``)
    runs before it.

    Why it matters: from CUDA 10.2 until torch 2.10, cuBLAS-backed ops
    (``nn.Linear``, ``matmul``, ``bmm``) raise RuntimeError under deterministic
    algorithms unless the variable is set; torch 2.10 removed that check.

    Example: ``torch.use_deterministic_algorithms(True)`` alone, for torch 2.4.
    Fix: ``os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"`` before any CUDA work.
    """

    code = "DET305"
    triggers = frozenset({"use_deterministic_algorithms", "deterministic"})
    example_settings = {"torch_version": "2.8"}
    invalid = ("import torch\ntorch.use_deterministic_algorithms(True)\n",)
    valid = (
        "import os\nimport torch\nos.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8'\n"
        "torch.use_deterministic_algorithms(True)\n",
        "import lightning as L\ntrainer = L.Trainer(deterministic=True)\n",
    )

    def might_fire(self, text, settings) -> bool:
        return tuple(settings.torch_version) < CUBLAS_CHECK_REMOVED and super().might_fire(text, settings)

    def check(self, ctx: FileContext) -> Iterator[Report]:
        if tuple(ctx.settings.torch_version) >= CUBLAS_CHECK_REMOVED:
            return
        facts = ctx.facts
        for site in ctx.calls_to(ENABLERS):
            switches = facts.direct_seeds.get(id(site.node), ())
            if ALGORITHMS not in switches or CUBLAS_CONFIG in switches:
                continue
            if facts.seeded_at(CUBLAS_CONFIG, site):
                continue
            yield Report(
                site.node,
                "%s() turns on deterministic algorithms but CUBLAS_WORKSPACE_CONFIG is not set to %s before it:"
                " with torch %d.%d and CUDA >= 10.2, cuBLAS ops (nn.Linear, matmul) raise RuntimeError"
                " — set os.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8' before any CUDA work"
                % ((ctx.spelling(site), _VALUES) + tuple(ctx.settings.torch_version)),
            )
