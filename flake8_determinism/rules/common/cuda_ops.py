"""Which CUDA ops with a nondeterministic kernel a call makes, and whether the condition under
which it does holds (DET304's table, DET303's ``warn_only`` choice, the codemod's seeding block)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, List, Optional, Tuple

from ..._lazy import cst
from ...analysis.args import MISSING, UNKNOWN, find_arg, literal
from ...tables import cuda_ops as T
from .base import last_parts

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite

YES, NO, MAYBE = "yes", "no", "maybe"
_METHOD = "torch.Tensor."


@lru_cache(maxsize=None)
def op_table(version: Tuple[int, int]):
    """(qualified name -> ops, method name -> ops, pre-check words for default mode, for strict)."""
    by_name = T.names_by_version(version)
    methods = {n[len(_METHOD):]: ops for n, ops in by_name.items() if n.startswith(_METHOD)}
    throws = last_parts(n for n, ops in by_name.items() if any(op.group == T.THROWS and op.visible for op in ops))
    every = last_parts(by_name) | last_parts(T.MINDSPORE_ASCEND_OPS)
    return by_name, methods, throws, every


def ops_of(ctx: FileContext, site: CallSite, by_name, methods) -> List[Tuple[T.Op, bool]]:
    """The ops of the table that ``site`` calls, each with whether it is called as a method."""
    qualname = ctx.qualname(site)
    if qualname in by_name:
        return [(op, qualname.startswith(_METHOD)) for op in by_name[qualname]]
    func = site.node.func
    if not isinstance(func, cst.Attribute) or not ctx.imports_torch:
        return []
    ops = methods.get(func.attr.value)
    if not ops or not is_tensor_receiver(ctx, site, func):
        return []
    return [(op, True) for op in ops]


def calls_raising_op(ctx: FileContext) -> bool:
    """Does the module call an op that raises under ``use_deterministic_algorithms(True)``
    (its condition holding or unknown)?  The fix then turns it on with ``warn_only=True``."""
    by_name, methods, _, _ = op_table(ctx.settings.torch_version)
    for site in ctx.index.calls:
        for op, is_method in ops_of(ctx, site, by_name, methods):
            if op.group == T.THROWS and condition(op.arg, site.node, is_method) != NO:
                return True
    return False


def first_nondeterministic_op(ctx: FileContext) -> Optional[Tuple[CallSite, T.Op]]:
    """The first call the run reaches of an op with a nondeterministic CUDA kernel outside cuDNN's
    convolutions (DET303's default case: convolutions alone are DET301/302's), its condition
    holding or unknown; None when the module shows none.  Read in this module only: an op in a
    project module the run calls is not seen (default mode is then quiet)."""
    by_name, methods, _, _ = op_table(ctx.settings.torch_version)
    for site in ctx.index.calls:
        if not ctx.facts.reaches(site.fn) and not (site.fn is not None and site.fn.is_method):
            continue  # a model's methods run when the model is applied
        for op, is_method in ops_of(ctx, site, by_name, methods):
            if op.visible and not op.cudnn and condition(op.arg, site.node, is_method) != NO:
                if is_method and _integer_tensor(ctx, site.node.func.value, site):
                    continue  # integer sums do not depend on the order of the atomic adds
                return site, op
    return None


# Builders whose tensor holds integers, and the dtypes that say so.
_INTEGER_BUILDERS = frozenset({"torch.LongTensor", "torch.IntTensor"})
_VALUE_BUILDERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.arange"})
_INTEGER_DTYPES = frozenset({"torch.long", "torch.int64", "torch.int32", "torch.int", "torch.int16",
                             "torch.int8", "torch.uint8"})


def _integer_tensor(ctx: FileContext, receiver, site: CallSite) -> bool:
    """``torch.tensor([0] + sizes[:-1]).cumsum(0)``, ``idx.long().index_add_(...)``: a tensor seen
    to hold integers, whose sums are the same in any order (the nondeterminism of these kernels
    is the order of floating-point additions)."""
    if not isinstance(receiver, cst.Call):
        return False
    func = receiver.func
    if isinstance(func, cst.Attribute) and func.attr.value in ("long", "int") and not receiver.args:
        return True
    name = ctx.resolve(func, site)
    if name in _INTEGER_BUILDERS:
        return True
    if name not in _VALUE_BUILDERS:
        return False
    dtype = find_arg(receiver, "dtype")
    if dtype not in (MISSING, UNKNOWN):
        return ctx.resolve(dtype, site) in _INTEGER_DTYPES
    data = find_arg(receiver, "data", 0) if name != "torch.arange" else find_arg(receiver, "end", 0)
    return data not in (MISSING, UNKNOWN) and _integer_literals(data)


def _integer_literals(expr) -> bool:
    """A list of int literals, or one joined to others with ``+`` (``[0] + counts[:-1]``)."""
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        return _integer_literals(expr.left) or _integer_literals(expr.right)
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, (cst.List, cst.Tuple)) and expr.elements:
        return all(isinstance(e.value, cst.Integer) for e in expr.elements)
    return False


def is_tensor_receiver(ctx: FileContext, site: CallSite, func) -> bool:
    """The receiver is (possibly) a tensor.  Names other libraries use too need
    a receiver that resolves into torch or a torch-only keyword."""
    receiver = ctx.resolve(func.value, site)
    if receiver is not None:
        return receiver.startswith("torch.") and receiver.endswith(")")  # ``torch.ones(3).cumsum(0)``
    keywords = T.AMBIGUOUS_METHODS.get(func.attr.value)
    if keywords is None:
        return True
    return any(a.keyword is not None and a.keyword.value in keywords for a in site.node.args)


def condition(arg: Optional[T.Arg], call, is_method: bool) -> str:
    if arg is None:
        return YES
    position = arg.position
    if position is not None and is_method:
        position -= 1
    value = find_arg(call, arg.keyword, position)
    if value is UNKNOWN:
        return MAYBE
    if value is MISSING:
        return YES if arg.default in arg.values else NO
    known, constant = literal(value)
    for wanted in arg.values:
        if wanted == T.GIVEN:
            return YES
        if wanted == T.NOT_NONE:
            return YES if not known else NO if constant is None else YES
        if wanted == T.TENSOR:
            return NO if known else YES
    if not known:
        return MAYBE
    return YES if constant in arg.values else NO
