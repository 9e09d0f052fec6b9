from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..tables.determinism import ALGORITHMS, CUBLAS_CHECK_REMOVED, CUBLAS_CONFIG, CUBLAS_VALUES, ENABLERS
from .common.base import Report, Rule

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
    sources = (
        (
            "For CUDA >= 10.2, PyTorch raised an error under deterministic mode unless "
            "``CUBLAS_WORKSPACE_CONFIG`` was ``:4096:8`` or ``:16:8``.",
            "https://github.com/pytorch/pytorch/pull/41377",
        ),
        (
            "The error (still met in September 2025): the op uses cuBLAS with CUDA >= 10.2, so set "
            "``CUBLAS_WORKSPACE_CONFIG=:4096:8`` or ``:16:8`` before running the application.",
            "https://github.com/Lightning-AI/litgpt/pull/2124",
        ),
        (
            "The check was removed on main in October 2025 (after the 2.9 branch cut); torch 2.13 and "
            "2.14 no longer have it (their libtorch_cpu.so lacks the CUBLAS_WORKSPACE_CONFIG string "
            "2.9's has).",
            "https://github.com/pytorch/pytorch/pull/161749 (facts §1.1(d))",
        ),
    )
    fix_description = (
        "Set the variable yourself before any CUDA work. (When DET303's fix inserts "
        "``use_deterministic_algorithms(True)`` for a target torch < 2.10, it sets the variable first.)"
    )
    fixed = (
        "import os\nimport torch\n\nos.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8'\n"
        "torch.use_deterministic_algorithms(True)\n"
    )
    scope_note = (
        "Only for a target torch older than 2.10 (``--determinism-torch-version``; default: the installed "
        "torch)."
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
