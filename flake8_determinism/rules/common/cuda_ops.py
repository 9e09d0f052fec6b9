"""Which CUDA ops with a nondeterministic kernel a call makes, and whether the condition under
which it does holds (DET304's table, DET303's ``warn_only`` choice, the codemod's seeding block)."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Tuple

from ..._lazy import cst
from ...analysis import kernels as K
from ...analysis.args import MISSING, UNKNOWN, find_arg
from ...tables import cuda_ops as T

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite


def ops_of(ctx: FileContext, site: CallSite, by_name, methods) -> List[Tuple[T.Op, bool]]:
    """The ops of the table that ``site`` calls, each with whether it is called as a method."""
    return K.ops_called(ctx.facts.call(site), by_name, methods, _integer_receiver(ctx, site))


def condition(arg: Optional[T.Arg], ctx: FileContext, site: CallSite, is_method: bool) -> str:
    return K.condition(arg, ctx.facts.call(site), is_method)


def calls_raising_op(ctx: FileContext) -> bool:
    """Does the module call an op that raises under ``use_deterministic_algorithms(True)``
    (its condition holding or unknown)?  The fix then turns it on with ``warn_only=True``."""
    by_name, methods = K.op_table(ctx.settings.torch_version)
    for site in ctx.index.calls:
        for op, is_method in ops_of(ctx, site, by_name, methods):
            if op.group == T.THROWS and condition(op.arg, ctx, site, is_method) != K.NO:
                return True
    return False


def first_nondeterministic_op(ctx: FileContext) -> Optional[Tuple[CallSite, T.Op]]:
    """The first call the run reaches in this module of an op with a nondeterministic CUDA kernel
    outside cuDNN's convolutions (DET303's default case: convolutions alone are DET301/302's), its
    condition holding or unknown; None when the module shows none.  The project modules the run
    calls are the project model's (``Effects.kernel``)."""
    by_name, methods = K.op_table(ctx.settings.torch_version)
    for site in ctx.index.calls:
        if not ctx.facts.reaches(site.fn) and not (site.fn is not None and site.fn.is_method):
            continue  # a model's methods run when the model is applied
        ops = ops_of(ctx, site, by_name, methods)
        in_model = bool(ops) and _in_model_forward(ctx, site.fn)
        for op, is_method in ops:
            if K.counts_for_mode(op, condition(op.arg, ctx, site, is_method), ctx.facts.call(site), in_model):
                return site, op
    return None


def _in_model_forward(ctx: FileContext, fn) -> bool:
    """``kernels.in_model_forward`` for a function of this module (its decorators resolved where
    they are written)."""
    if fn is None or not isinstance(fn.node, cst.FunctionDef):
        return False
    decorators = (ctx.resolver.resolve(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator,
                                       fn.scope, 0) for d in fn.node.decorators)
    return K.in_model_forward(fn.name, fn.is_method, decorators)


def _integer_receiver(ctx: FileContext, site: CallSite) -> bool:
    """``torch.tensor([0] + sizes[:-1]).cumsum(0)``, ``idx.long().index_add_(...)``: the receiver
    is seen to hold integers (``kernels.integer_tensor``)."""
    func = site.node.func
    receiver = func.value if isinstance(func, cst.Attribute) else None
    if not isinstance(receiver, cst.Call) or site.method_name not in K.KERNEL_METHODS:
        return False
    inner = receiver.func
    if isinstance(inner, cst.Attribute) and inner.attr.value in K.INTEGER_CASTS and not receiver.args:
        return True
    dtype = find_arg(receiver, "dtype")
    data = find_arg(receiver, "data", 0)
    return K.integer_tensor(
        ctx.resolve(inner, site) or "",
        ctx.resolve(dtype, site) or "" if dtype not in (MISSING, UNKNOWN) else None,
        data not in (MISSING, UNKNOWN) and _integer_literals(data),
    )


def _integer_literals(expr) -> bool:
    """A list of int literals, or one joined to others with ``+`` (``[0] + counts[:-1]``), or one."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return _integer_literals(expr.left) or _integer_literals(expr.right)
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, (cst.List, cst.Tuple)) and expr.elements:
        return all(isinstance(e.value, cst.Integer) for e in expr.elements)
    return False
