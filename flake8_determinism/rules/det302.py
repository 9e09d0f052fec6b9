from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..analysis.args import MISSING, UNKNOWN, find_arg, literal
from ..tables.determinism import CUDNN_DETERMINISTIC, restores_defaults
from .common import edits
from .common.base import Report, Rule
from .common.cudnn import flag_assignments

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext

_MESSAGE = (
    "cuDNN may then pick nondeterministic convolution algorithms (atomic adds in the backward pass),"
    " so gradients differ run to run — set torch.backends.cudnn.deterministic = True"
)


class CudnnNotDeterministic(Rule):
    """DET302: cuDNN determinism switched off explicitly.

    What it does: reports ``torch.backends.cudnn.deterministic = False`` (however
    ``cudnn`` is imported) and ``torch.backends.cudnn.flags(deterministic=False)``
    written out; also a value whose default in this module is false: an option
    (``cudnn.deterministic = args.deterministic`` with ``store_true``) or a parameter with
    ``deterministic=False`` that no caller here passes, or a condition that turns it off exactly
    when a seed is given (``cudnn.deterministic = seed is None``, a real MONAI bug) or for
    every seed but one (``True if seed == 0 else False``) (reported, not fixed).  Default mode
    leaves out a switch in a branch a run with its options at their defaults does not take
    (``if not args.deterministic:`` with ``--deterministic`` defaulting to 1); strict reports it.

    Why it matters: without it cuDNN may choose convolution kernels that
    accumulate with atomics in a varying order, so results differ in the last
    bits every run and the differences grow during training.

    Example: ``torch.backends.cudnn.deterministic = False``.
    Fix: set it to ``True`` (``determinism-fix`` does).
    """

    code = "DET302"
    fixes = "safe"
    triggers = frozenset({"deterministic"})
    invalid = ("import torch.backends.cudnn as cudnn\ncudnn.deterministic = False\n",)
    valid = ("import torch\ntorch.backends.cudnn.deterministic = True\n", "deterministic = False\n")
    sources = (
        (
            "Even with benchmarking off, the cuDNN convolution algorithm chosen may itself be "
            "nondeterministic unless ``torch.backends.cudnn.deterministic = True`` or "
            "``torch.use_deterministic_algorithms(True)`` is set.",
            "https://docs.pytorch.org/docs/stable/notes/randomness.html#cuda-convolution-determinism",
        ),
    )
    fix_description = "``cudnn.deterministic = False`` becomes ``True``."

    def might_fire(self, text, settings) -> bool:
        return "deterministic" in text and "cudnn" in text

    def check(self, ctx: FileContext) -> Iterator[Report]:
        for assignment, how in flag_assignments(ctx, CUDNN_DETERMINISTIC, False, defaults=True):
            if assignment.fn is not None and restores_defaults(assignment.fn.name):
                continue  # a teardown putting the defaults back (``unset_deterministic()``)
            if how:  # a value the run can choose: only its default is known
                yield Report(assignment.target, "cudnn.deterministic = %s, and %s: %s"
                             % (ctx.module.code_for_node(assignment.value), how, _MESSAGE))
                continue
            yield Report(assignment.target, "cudnn.deterministic = False: " + _MESSAGE,
                         fix=edits.replace(assignment.value, "True", "set it to True"))
        for site in ctx.calls_by_name.get("torch.backends.cudnn.flags", ()):
            if _explicit_false(site.node):
                fix = edits.replace(find_arg(site.node, "deterministic", 3), "True", "pass deterministic=True")
                yield Report(site.node, "%s(deterministic=False): %s" % (ctx.spelling(site), _MESSAGE), fix=fix)


def _explicit_false(call) -> bool:
    value = find_arg(call, "deterministic", 3)
    return value not in (MISSING, UNKNOWN) and literal(value) == (True, False)
