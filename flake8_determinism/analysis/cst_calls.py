"""The linted file's front end to ``analysis/calls.py``: a libcst call read into a ``Call``."""

from .._lazy import cst
from .args import literal
from .calls import RECEIVER_METHODS, STARRED, UNKNOWN_ARG, Arg, Call
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
            args.append(STARRED)
        elif arg.keyword is not None:
            keywords.append((arg.keyword.value, _arg(arg.value)))
        else:
            args.append(_arg(arg.value))
    return Call(name or "", method, is_method, receiver, receiver_name, tuple(args), tuple(keywords))


def call_argument(value) -> Arg:
    """One expression as an argument would be read (``dict(seed=0, deterministic=True)``)."""
    return _arg(value)


def _arg(value, depth: int = 0) -> Arg:
    known, constant = literal(value)
    if known:
        return Arg(True, constant)
    return Arg(False, None, dotted_name(value), _entries(value, depth) if depth < 2 else None)


def _entries(value, depth: int):
    """The entries of a ``{"k": v}`` display or a ``dict(k=v)`` call; None when not one, or when
    a key is not a literal string."""
    found = []
    if isinstance(value, cst.Dict):
        for element in value.elements:
            if not isinstance(element, cst.DictElement):
                return None  # ``**other``
            known, key = literal(element.key)
            if not known or not isinstance(key, str):
                return None
            found.append((key, _arg(element.value, depth + 1)))
        return tuple(found)
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict":
        for arg in value.args:
            if arg.keyword is None:
                return None
            found.append((arg.keyword.value, _arg(arg.value, depth + 1)))
        return tuple(found)
    return None
