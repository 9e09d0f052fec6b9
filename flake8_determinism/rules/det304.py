from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, FrozenSet, Iterator, Tuple

from ..tables import cuda_ops as T
from ..tables.determinism import (
    ALGORITHMS, ALGORITHMS_WARN_ONLY, CUDNN_DETERMINISTIC, ENABLERS, MMENGINE_RANDOMNESS, MS_DETERMINISTIC,
)
from .common.base import Report, Rule, last_parts
from ..analysis.kernels import NO, YES, op_table
from .common.cuda_ops import condition, ops_of

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite

@lru_cache(maxsize=None)
def _precheck_words(version: Tuple[int, int]) -> Tuple[FrozenSet[str], FrozenSet[str]]:
    """The pre-check's words for this torch version: the ops that raise (default mode), every op."""
    by_name, _ = op_table(version)
    throws = last_parts(n for n, ops in by_name.items() if any(op.group == T.THROWS and op.visible for op in ops))
    return throws, last_parts(by_name) | last_parts(T.MINDSPORE_ASCEND_OPS)


# Words of the calls that can turn deterministic algorithms on (default mode needs one).
_ENABLER_WORDS = last_parts(n for n, e in ENABLERS.items() if ALGORITHMS in e.switches) | {MMENGINE_RANDOMNESS}



class NondeterministicCudaOp(Rule):
    """DET304: an op without a deterministic CUDA kernel (facts §1.1(c), by target torch version).

    What it does: by default, reports an op of ``use_deterministic_algorithms``'s
    "throws RuntimeError" list in a module that turns deterministic algorithms on
    without ``warn_only`` -- the call will raise there.  Each op is reported only
    when its condition can hold: ``bincount`` with ``weights``,
    ``interpolate``/``nn.Upsample`` in a linear-family mode, ``put_`` (any
    ``accumulate``), ``EmbeddingBag`` with ``mode="max"``, ``scatter_reduce``
    with ``reduce="prod"``, ``median`` with ``dim``, ``F.pad`` with ``mode="reflect"``.
    In strict mode, also every op of either list (Conv, ``index_add``,
    ``scatter_add_``, ``index_put_`` without ``accumulate``, ...) in a module
    that does not turn deterministic algorithms on, ops whose condition is
    never visible (``NLLLoss``: spatial targets), and MindSpore's Ascend ops
    (BatchNorm, Conv2d/3d, ReduceSum, AllReduce, ...) unless
    ``mindspore.set_deterministic(True)``/``set_context(deterministic="ON")``.
    The list follows ``--determinism-torch-version`` (``kthvalue`` is in the
    throwing list up to 2.9 and ``MaxPool3d`` up to 2.12; before 2.14 ``cumsum``
    is, and ``nn.Embedding`` is in neither).

    Why it matters: these kernels add floats with atomics in whatever order the
    GPU schedules them, so results differ in the last bits every run; once
    deterministic algorithms are on, the throwing ones stop the run instead.

    Example: ``torch.use_deterministic_algorithms(True)`` then ``F.interpolate(x, scale_factor=2, mode="bilinear")``.
    Fix: use a deterministic alternative (``mode="nearest"``, ``MaxPool`` for
    ``AdaptiveAvgPool`` with fixed sizes, sort-based reductions), or pass
    ``warn_only=True`` and accept the nondeterminism of that op.
    """

    code = "DET304"
    invalid = (
        "import torch\nimport torch.nn.functional as F\ntorch.use_deterministic_algorithms(True)\n"
        "y = F.interpolate(torch.ones(1, 1, 2, 2), scale_factor=2, mode='bilinear')\n",
    )
    valid = (
        "import torch\nimport torch.nn.functional as F\ntorch.use_deterministic_algorithms(True)\n"
        "y = F.interpolate(torch.ones(1, 1, 2, 2), scale_factor=2)\n",
        "import torch\nimport torch.nn.functional as F\n"
        "y = F.interpolate(torch.ones(1, 1, 2, 2), scale_factor=2, mode='bilinear')\n",
    )
    sources = (
        (
            "``F.interpolate`` backward on CUDA in ``linear``/``bilinear``/``bicubic``/``trilinear`` "
            "mode is on the list of ops that throw ``RuntimeError`` under "
            "``use_deterministic_algorithms(True)``.",
            "https://docs.pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html",
        ),
        (
            "torch's two lists (ops made deterministic, ops that throw), and how they changed between "
            "versions (``kthvalue`` also throws up to 2.9 and ``MaxPool3d`` up to 2.12; before 2.14 ``cumsum`` "
            "throws and ``nn.Embedding`` is on neither list).",
            "torch 2.14.0 and 2.13.0 wheels' torch/__init__.py use_deterministic_algorithms docstring; "
            "their libtorch_cuda.so/libtorch_cpu.so alertNotDeterministic call sites (same in both); "
            "older copies (facts §1.1(c))",
        ),
    )
    fix_description = (
        "The deterministic alternative depends on the op (another mode, another layer, or "
        "``warn_only=True`` and accepting that op's nondeterminism)."
    )
    fixed = (
        "import torch\nimport torch.nn.functional as F\ntorch.use_deterministic_algorithms(True)\n"
        "y = F.interpolate(torch.ones(1, 1, 2, 2), scale_factor=2, mode='nearest')\n"
    )
    scope_note = (
        "Default mode reports only ops that will raise because deterministic algorithms are on. Strict "
        "mode also reports every op of either list while deterministic algorithms are off, ops whose "
        "condition is never visible, and MindSpore's Ascend ops. The lists follow "
        "``--determinism-torch-version``."
    )

    def might_fire(self, text, settings) -> bool:
        throws, every = _precheck_words(settings.torch_version)
        if settings.strict:
            return text.has_any(every)
        return text.has_any(_ENABLER_WORDS) and text.has_any(throws)

    def check(self, ctx: FileContext) -> Iterator[Report]:
        facts = ctx.facts
        raising = facts.turns_on(ALGORITHMS)
        enabled = raising or facts.turns_on(ALGORITHMS_WARN_ONLY)
        strict = ctx.settings.strict
        if not raising and not strict:
            return
        cudnn_deterministic = facts.turns_on(CUDNN_DETERMINISTIC)
        by_name, methods = op_table(ctx.settings.torch_version)
        for site in ctx.index.calls:
            for op, is_method in ops_of(ctx, site, by_name, methods):
                holds = condition(op.arg, ctx, site, is_method)
                if holds == NO:
                    continue
                certain = holds == YES and op.visible
                if op.group == T.THROWS:
                    if raising and (certain or strict):
                        yield Report(site.node, _raises(ctx, site, op, certain))
                        break
                    if strict and not raising:
                        yield Report(site.node, _varies(ctx, site, op, enabled))
                        break
                elif strict and not enabled and not (op.cudnn and cudnn_deterministic):
                    yield Report(site.node, _made_deterministic(ctx, site, op))
                    break
        if strict and not facts.turns_on(MS_DETERMINISTIC):
            for site in ctx.calls_to(T.MINDSPORE_ASCEND_OPS):
                yield Report(site.node, "%s() varies slightly run to run on Ascend (%s) — call"
                             " mindspore.set_deterministic(True) (or set_context(deterministic='ON'))"
                             % (ctx.spelling(site), T.MINDSPORE_ASCEND_OPS[site.qualname]))


def _name(ctx: FileContext, site: CallSite) -> str:
    return ctx.spelling(site) + "()"


def _raises(ctx, site, op: T.Op, certain: bool) -> str:
    verb = "raises" if certain else "may raise"
    return (
        "%s has no deterministic CUDA kernel (%s: %s) and this module turns on"
        " torch.use_deterministic_algorithms(True), so it %s RuntimeError on CUDA — use a deterministic"
        " alternative, or pass warn_only=True and accept this op's nondeterminism"
        % (_name(ctx, site), op.doc, op.when, verb)
    )


def _varies(ctx, site, op: T.Op, enabled: bool) -> str:
    why = "warn_only=True only warns" if enabled else "no deterministic kernel exists"
    return (
        "%s is nondeterministic on CUDA (%s: %s) and %s, so results differ run to run (strict mode)"
        " — use a deterministic alternative or accept the variation" % (_name(ctx, site), op.doc, op.when, why)
    )


def _made_deterministic(ctx, site, op: T.Op) -> str:
    return (
        "%s is nondeterministic on CUDA (%s: %s) unless deterministic algorithms are on (strict mode)"
        " — call torch.use_deterministic_algorithms(True)" % (_name(ctx, site), op.doc, op.when)
    )
