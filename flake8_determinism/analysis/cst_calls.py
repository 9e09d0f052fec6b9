"""The linted file's front end to ``analysis/calls.py``: a libcst call read into a ``Call``."""

from .._lazy import cst
from .args import literal
from .calls import RECEIVER_METHODS, UNKNOWN_ARG, Arg, Call
from .nodes import dotted_name


def call_of(site, name, resolve) -> Call:
    """``site`` (an ``index.CallSite``) as plain values; ``name`` is its qualified name (or None),
    ``resolve(expr)`` the qualified name of an expression where the site is."""
    node = site.node
    func = node.func
    is_method = isinstance(func, cst.Attribute)
    method = func.attr.value if is_method else (func.value if isinstance(func, cst.Name) else "")
    receiver = receiver_name = ""
    if is_method:
        receiver = dotted_name(func.value)
        if method in RECEIVER_METHODS:
            receiver_name = resolve(func.value) or ""
    args, keywords = [], []
    for arg in node.args:
        if arg.star == "**":
            keywords.append(("**", UNKNOWN_ARG))
        elif arg.star:
            args.append(UNKNOWN_ARG)
        elif arg.keyword is not None:
            keywords.append((arg.keyword.value, _arg(arg.value)))
        else:
            args.append(_arg(arg.value))
    return Call(name or "", method, is_method, receiver, receiver_name, tuple(args), tuple(keywords))


def _arg(value) -> Arg:
    known, constant = literal(value)
    return Arg(True, constant) if known else Arg(False, None, dotted_name(value))
