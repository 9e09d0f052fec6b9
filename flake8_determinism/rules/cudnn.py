"""What DET301 and DET302 share: finding literal assignments to a ``torch.backends.cudnn`` flag."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from .._lazy import cst
from ..analysis.args import literal

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import Assignment


def flag_assignments(ctx: FileContext, qualname: str, value: bool) -> Iterator[Assignment]:
    """``<qualname> = <value>`` however the module is imported (``cudnn.benchmark = True``)."""
    attribute = qualname.rsplit(".", 1)[-1]
    for assignment in ctx.index.assignments:
        target = assignment.target
        if not isinstance(target, cst.Attribute) or target.attr.value != attribute:
            continue
        if assignment.value is None or literal(assignment.value) != (True, value):
            continue
        if ctx.resolver.resolve(target, assignment.scope, assignment.order) == qualname:
            yield assignment
