"""What DET301 and DET302 share: finding assignments to a ``torch.backends.cudnn`` flag whose value
is a literal, or a value whose default in this module is one (an option, a parameter)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional, Tuple

from ..._lazy import cst
from ...analysis.args import MISSING, find_arg, literal
from ...analysis.nodes import identifiers_in, named_parameters
from ...analysis.options import option_default_value
from ...analysis.scopes import lookup

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import Assignment


def flag_assignments(ctx: FileContext, qualname: str, value: bool,
                     defaults: bool = False) -> Iterator[Tuple[Assignment, str]]:
    """``<qualname> = <value>`` however the module is imported (``cudnn.benchmark = True``), with
    how the value is known: "" for a literal; with ``defaults``, also a value whose default is it
    (``cudnn.benchmark = args.benchmark`` where ``--benchmark`` defaults to True), described.
    Default mode leaves out an assignment a default run never makes (``skipped_by_default``)."""
    attribute = qualname.rsplit(".", 1)[-1]
    for assignment in ctx.index.assignments:
        target = assignment.target
        if not isinstance(target, cst.Attribute) or target.attr.value != attribute or assignment.value is None:
            continue
        if not ctx.settings.strict and skipped_by_default(ctx, assignment):
            continue
        if literal(assignment.value) == (True, value):
            how = ""
        elif defaults:
            how = default_of(ctx, assignment.value, assignment.scope, assignment.order, value)
            if not how:
                continue
        else:
            continue
        if ctx.resolver.resolve(target, assignment.scope, assignment.order) == qualname:
            yield assignment, how


def skipped_by_default(ctx: FileContext, assignment) -> bool:
    """The assignment sits in a branch a run with every option and parameter at its default does
    not take: ``if not args.deterministic: cudnn.benchmark = True`` where ``--deterministic``
    defaults to 1 (the fast, nondeterministic mode a user must ask for)."""
    from ...analysis.body import enclosing_ifs

    for branch, in_else in enclosing_ifs(ctx, assignment, assignment.target):
        truth = _default_truth(ctx, branch.test, assignment.scope, assignment.order)
        if truth is not None and truth == in_else:
            return True
    return False


def _default_truth(ctx: FileContext, expr, scope, order) -> Optional[bool]:
    """Whether ``args.x``, ``not args.x`` or a parameter ``x`` is true at its default; None when
    unknown."""
    negated = False
    while isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        negated, expr = not negated, expr.expression
    if isinstance(expr, cst.Attribute):
        known, value = option_default_value(ctx, expr)
    elif isinstance(expr, cst.Name):
        known, value = parameter_default(ctx, expr.value, scope, order)
    else:
        return None
    if not known or not isinstance(value, (bool, int, float, str, type(None))):
        return None
    return bool(value) != negated


def default_of(ctx: FileContext, expr, scope, order, wanted: bool) -> str:
    """How ``expr`` takes the value ``wanted`` when nobody chooses: "--benchmark defaults to True",
    "the parameter benchmark defaults to True"; "" when it does not, or we cannot tell."""
    if isinstance(expr, cst.IfExp) and _mentions_seed(expr.test):
        # ``(True, False) if seed == 0 else ...``: the setting follows the seed (YOLOv5's init_seeds)
        test = ctx.module.code_for_node(expr.test)
        if literal(expr.body) == (True, wanted):
            return "it is %r whenever %s" % (wanted, test)
        if literal(expr.orelse) == (True, wanted):
            return "it is %r unless %s" % (wanted, test)
        return ""
    seeded = _value_when_seeded(ctx, expr, scope, order)
    if seeded is not None:
        # ``cudnn.deterministic = seed is None``: off exactly when a seed is given (a MONAI bug)
        return "it is %r exactly when a seed is given" % wanted if seeded == wanted else ""
    negated = False
    while isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        negated, expr = not negated, expr.expression
    known, value, how = False, None, ""
    if isinstance(expr, cst.Attribute):
        known, value = option_default_value(ctx, expr)
        how = "args.%s defaults to %%r" % expr.attr.value
    elif isinstance(expr, cst.Name):
        known, value = parameter_default(ctx, expr.value, scope, order)
        how = "the parameter %s defaults to %%r" % expr.value
    if not known or not isinstance(value, bool):
        return ""
    return how % value if (not value if negated else value) == wanted else ""


def _value_when_seeded(ctx: FileContext, expr, scope, order) -> Optional[bool]:
    """The flag's value when a seed is given, for ``seed is None`` / ``seed is not None`` (also
    negated, or held in a variable assigned in the same scope); None for anything else."""
    negated = False
    while isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        negated, expr = not negated, expr.expression
    if isinstance(expr, cst.Name):
        binding = lookup(scope, expr.value, order)
        if binding is None or binding.kind != "assign" or binding.scope is not scope or binding.value is None:
            return None
        inner = _value_when_seeded(ctx, binding.value, scope, binding.order)
        return None if inner is None else inner != negated
    if not (isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1 and _mentions_seed(expr.left)):
        return None
    target = expr.comparisons[0]
    if not (isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
        return None
    if isinstance(target.operator, cst.Is):
        value = False  # ``seed is None`` is False once a seed is given
    elif isinstance(target.operator, cst.IsNot):
        value = True
    else:
        return None
    return value != negated


def _mentions_seed(expr) -> bool:
    return any("seed" in name.lower() for name in identifiers_in(expr))


def parameter_default(ctx: FileContext, name: str, scope, order) -> Tuple[bool, object]:
    """The literal default of a parameter of the enclosing function that no call in this module
    passes (every caller here leaves it to the default); (False, None) otherwise."""
    binding = lookup(scope, name, order)
    if binding is None or binding.kind != "param" or binding.scope.function is None:
        return False, None
    function = binding.scope.function
    params = named_parameters(function.node.params)
    position = next((i for i, p in enumerate(params) if p.name.value == name), None)
    param = params[position] if position is not None else None
    if param is None or param.default is None:
        return False, None
    positional = len(function.node.params.posonly_params) + len(function.node.params.params)
    slot = position - (1 if function.is_method else 0) if position < positional else None
    for site in ctx.facts.callers.get(id(function.node), ()):
        if find_arg(site.node, name, slot) is not MISSING:
            return False, None  # a caller chooses: the default is not the whole story
    return literal(param.default)
