"""Command-line options declared in the module: the default of ``args.<name>``.

``parser.add_argument("--manual-seed", type=int, default=random.randint(1, 10000))`` makes
``args.manual_seed`` that value whenever the option is not given -- the run everyone starts
first.  Matched by the option's destination: ``dest=`` if given, else the first long option
with ``-`` turned into ``_``, else the first positional name.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from .args import MISSING, UNKNOWN, find_arg, literal


def option_defaults(ctx) -> Dict[str, object]:
    """Destination -> the ``default=`` expression of each ``add_argument`` call with one, or
    ``STORE_TRUE``/``STORE_FALSE`` for flags without one."""
    return _declared(ctx)[0]


def _declared(ctx) -> Tuple[Dict[str, object], Dict[str, str]]:
    """(defaults, builtin ``type=`` names) by destination, read once per file."""
    found = getattr(ctx, "_declared_options", None)
    if found is None:
        defaults: Dict[str, object] = {}
        types: Dict[str, str] = {}
        for site in ctx.index.calls:
            if site.method_name != "add_argument":
                continue
            destination = option_destination(site.node)
            if not destination:
                continue
            default = find_arg(site.node, "default")
            if default is MISSING:
                known, action = literal(find_arg(site.node, "action"))
                default = _FLAG_DEFAULTS.get(action, MISSING) if known else MISSING
            if default not in (MISSING, UNKNOWN):
                defaults.setdefault(destination, default)
            declared = getattr(find_arg(site.node, "type"), "value", None)
            if declared in ("int", "float", "str", "bool"):
                types.setdefault(destination, declared)
        found = ctx._declared_options = (defaults, types)
    return found


STORE_TRUE, STORE_FALSE = "store_true", "store_false"  # a flag: its default is the opposite
_FLAG_DEFAULTS = {STORE_TRUE: STORE_TRUE, STORE_FALSE: STORE_FALSE}


def option_default_value(ctx, attribute) -> Tuple[bool, object]:
    """(known, value) of ``args.name``'s declared default when it is a literal or a flag."""
    default = option_default(ctx, attribute)
    if default is None:
        return False, None
    if default == STORE_TRUE:
        return True, False
    if default == STORE_FALSE:
        return True, True
    return literal(default)


def option_default(ctx, attribute) -> Optional[object]:
    """The declared default of ``args.name`` (an attribute read off the parsed options)."""
    name = getattr(getattr(attribute, "attr", None), "value", None)
    return option_defaults(ctx).get(name) if name else None


def option_destination(call) -> Optional[str]:
    """Where ``add_argument(...)`` stores its value: ``args.<this>``."""
    dest = find_arg(call, "dest")
    if dest not in (MISSING, UNKNOWN):
        known, value = literal(dest)
        return value if known and isinstance(value, str) else None
    names = []
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            break
        known, value = literal(arg.value)
        if not known or not isinstance(value, str):
            return None
        names.append(value)
    long = [n for n in names if n.startswith("--")]
    if long:
        return long[0][2:].replace("-", "_")
    if names and not names[0].startswith("-"):
        return names[0]
    return None


def option_type(ctx, attribute) -> Optional[str]:
    """The builtin ``type=`` (``"int"``, ``"str"``...) of the option ``args.name`` reads, else
    the type of its literal default; None when unknown."""
    name = getattr(getattr(attribute, "attr", None), "value", None)
    if not name:
        return None
    types = _declared(ctx)[1]
    if name in types:
        return types[name]
    known, value = option_default_value(ctx, attribute)
    return type(value).__name__ if known and value is not None else None
