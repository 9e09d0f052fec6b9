"""Which deterministic-mode switches a call or an assignment turns on (tables/determinism.py).

``call_switches`` and ``assignment_switches`` feed the events of ``ModuleFacts``,
so "is CUBLAS_WORKSPACE_CONFIG set before this call?" is answered like "is torch
seeded before this draw?" (order, local helpers).  The config-dict helpers read
mmengine's ``randomness=dict(...)``/``env_cfg=dict(...)`` wherever they are written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, FrozenSet, Iterator, Optional

from .._lazy import cst
from ..tables import determinism as D
from ..tables.aliases import KNOWN_ROOTS
from . import calls
from .calls import OFF, ON, UNREAD, WARN  # the flag states, spelled once
from .args import MISSING, UNKNOWN, find_arg, literal
from .cst_calls import call_argument
from .order_free import builtin_name
from .nodes import dotted_name
from .scopes import lookup

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from .index import Assignment, CallSite

_NONE: FrozenSet[str] = frozenset()


def flag_state(call: cst.Call, keyword: Optional[str], position: Optional[int], on=(True,), warn=()) -> str:
    """``ON``/``WARN``/``OFF`` for a literal flag argument, ``UNREAD`` when not a literal; absent: ``OFF``."""
    value = find_arg(call, keyword, position)
    if value is MISSING:
        return OFF
    if value is UNKNOWN:
        return UNREAD
    known, constant = literal(value)
    if not known:
        return UNREAD
    if constant in warn:
        return WARN
    return ON if constant in on or (on == (True,) and constant is not False and bool(constant)) else OFF


def call_switches(site: CallSite, qualname: Optional[str], call_of, parents) -> FrozenSet[str]:
    """Switches turned on by running this call: ``calls.switches`` (the question every module's
    calls are asked; ``call_of(site)`` reads the call, only for a name that may switch), and what
    only the linted file's tree shows -- ``HfArgumentParser`` over ``TrainingArguments`` (the
    command line sets ``--full_determinism``), an mmengine config's ``randomness = dict(...)``,
    a helper of the module named like a determinism switch."""
    if calls.may_switch(qualname or ""):
        found = calls.switches(call_of(site))
        if found:
            return found
    if qualname in D.ARGUMENT_PARSERS and _parses_training_arguments(site):
        return frozenset({D.DETERMINISM_UNREAD})  # ``--full_determinism`` is the user's to pass
    if qualname is None and is_config_dict(site, parents, D.MMENGINE_RANDOMNESS):
        return calls.randomness_switches(call_argument(site.node))
    if _is_named_helper(site, qualname):
        return frozenset({D.DETERMINISM_UNREAD})
    return _NONE


def _parses_training_arguments(site: CallSite) -> bool:
    """``HfArgumentParser((ModelArguments, TrainingArguments))``: the CLI sets ``full_determinism``."""
    classes = find_arg(site.node, "dataclass_types", 0)
    if classes in (MISSING, UNKNOWN):
        return False
    elements = [e.value for e in classes.elements] if isinstance(classes, (cst.Tuple, cst.List)) else [classes]
    return any(_training_arguments_class(e, site, 0) for e in elements)


def _training_arguments_class(expr, site: CallSite, depth: int) -> bool:
    """``TrainingArguments``, ``SFTConfig``, or a class defined here deriving from one."""
    name = dotted_name(expr).rsplit(".", 1)[-1]
    if name.endswith("TrainingArguments") or (name.endswith("Config") and name not in D.NOT_TRAINING_CONFIGS):
        return True
    binding = lookup(site.scope, name, site.order) if isinstance(expr, cst.Name) and depth < 4 else None
    if binding is None or binding.kind != "class":
        return False
    return any(_training_arguments_class(base.value, site, depth + 1) for base in binding.node.bases)


def _is_named_helper(site: CallSite, qualname: Optional[str]) -> bool:
    if qualname is not None and qualname.split(".")[0] in KNOWN_ROOTS:
        return False
    name = site.method_name.lower()
    return any(part in name for part in D.DETERMINISM_NAME_PARTS)


def assignment_switches(assignment: Assignment, target_name: Optional[str]) -> FrozenSet[str]:
    """Switches turned on by ``cudnn.deterministic = True`` or ``os.environ[KEY] = value``
    (``calls.assigned_switches``, asked of the project modules' assignments too)."""
    if target_name not in (D.CUDNN_DETERMINISTIC, D.ENVIRON + "[]"):
        return _NONE
    key = subscript_key(assignment.target)
    value = assignment.value
    return calls.assigned_switches(target_name, None if key in (MISSING, UNKNOWN) else call_argument(key),
                                   None if value is None else call_argument(value))


def subscript_key(target) -> object:
    """The single index expression of ``x[key]``, else ``MISSING``."""
    if isinstance(target, cst.Subscript) and len(target.slice) == 1:
        element = target.slice[0].slice
        if isinstance(element, cst.Index):
            return element.value
    return MISSING


def environ_update_items(call: cst.Call) -> Iterator[tuple]:
    """(key, value) pairs of ``os.environ.update({...})`` / ``update(KEY=value)``."""
    for arg in call.args:
        if arg.keyword is not None:
            yield cst.SimpleString(repr(arg.keyword.value)), arg.value
        elif isinstance(arg.value, cst.Dict):
            for element in arg.value.elements:
                if isinstance(element, cst.DictElement):
                    yield element.key, element.value


# -- mmengine config dicts -----------------------------------------------------------
def dict_entry(expr, key: str):
    """``expr[key]`` for a ``dict(...)`` call or ``{...}`` display; ``MISSING``/``UNKNOWN`` otherwise."""
    if isinstance(expr, cst.Dict):
        hidden = False
        for element in expr.elements:
            if isinstance(element, cst.DictElement):
                if literal(element.key) == (True, key):
                    return element.value
            else:
                hidden = True  # ``**other``
        return UNKNOWN if hidden else MISSING
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "dict":
        return find_arg(expr, key, None)
    return UNKNOWN


def is_config_dict(site: CallSite, parents, variable: str) -> bool:
    """``variable=dict(...)`` or ``variable = dict(...)`` with the builtin ``dict``."""
    return (
        site.method_name == "dict"
        and builtin_name(site.node, site) == "dict"
        and config_variable(site, parents) == variable
    )


def config_variable(site: CallSite, parents) -> Optional[str]:
    """For a ``dict(...)`` call: the keyword it is passed as (``env_cfg=dict(...)``)
    or the plain name it is assigned to (``env_cfg = dict(...)`` in a config file)."""
    parent = parents.get(id(site.node))
    if isinstance(parent, cst.Call):  # the index links an argument's value to the call itself
        for arg in parent.args:
            if arg.value is site.node:
                return arg.keyword.value if arg.keyword is not None else None
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
        target = parent.targets[0].target
        if isinstance(target, cst.Name):
            return target.value
    return None
