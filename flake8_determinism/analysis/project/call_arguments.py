"""What a call gives a project function: which parameters, which string values, and so which of
the function's guarded branches run (``if seed is not None:``, ``if strategy == "random":``) and
whether it turns training off (``create_dataset(path, train_mode=False)``).  The signature is
``events.Call.signature`` (or ``facts.call_signature`` for the linted file's calls)."""

from typing import TYPE_CHECKING, FrozenSet, Optional

from ...tables.run_uses import TRAINING_SWITCHES

if TYPE_CHECKING:
    from .model import Target


def given_parameters(function: "Target", signature, bound: bool) -> Optional[FrozenSet[str]]:
    """The parameters of ``function`` a call with ``signature`` gives; None when unknown."""
    if not signature:
        return None
    positional, keywords = signature[:2]
    if positional < 0 or "**" in keywords:
        return None
    params = function.module.summary.get("params", {}).get(function.key)
    if params is None:
        return None
    params = params[1:] if bound and params else params  # ``self``
    return frozenset(params[:positional]) | frozenset(keywords)


def given_values(function: "Target", signature, bound: bool) -> Optional[dict]:
    """{parameter: literal value (``ast_values.texts``)} a call with ``signature`` gives
    ``function`` (a literal it passes, or the default of one it leaves out); None when unknown."""
    if not signature or len(signature) < 4:
        return None
    summary = function.module.summary
    if not summary.get("valued", {}).get(function.key):
        return None  # no branch of the body depends on a value: nothing to look up
    positional, keywords, _, texts = signature[:4]
    params = summary.get("params", {}).get(function.key) or ()
    params = params[1:] if bound and params else params
    values = {}
    if positional >= 0 and "**" not in keywords:
        given = set(params[:positional]) | set(keywords)
        values.update((p, v) for p, v in summary.get("text_defaults", {}).get(function.key, {}).items()
                      if p not in given)
    for name, value in texts:
        if name.startswith("#"):
            index = int(name[1:])
            name = params[index] if index < len(params) and positional >= 0 else ""
        if name:
            values[name] = value
    return values or None


def not_run(guards: Optional[dict], values: Optional[dict]) -> Optional[frozenset]:
    """The (line, col) of the calls whose branch does not run for ``values``."""
    if not guards or not values:
        return None
    skipped = frozenset(
        position for position, conditions in guards.items()
        if any(param in values and (values[param] in choices) != equal for param, choices, equal in conditions)
    )
    return skipped or None


def turns_training_off(function: "Target", signature, bound: bool) -> bool:
    """``create_dataset(path, train_mode=False)``: the call turns training off (a literal false
    for a parameter named like ``train``, ``is_training``, ``augment``, ``shuffle``), so what
    the function would draw for training (augmentation, shuffling) it does not draw."""
    if not signature or len(signature) < 3 or not signature[2]:
        return False
    params = function.module.summary.get("params", {}).get(function.key) or ()
    params = params[1:] if bound and params else params
    for name in signature[2]:
        if name.startswith("#"):
            index = int(name[1:])
            name = params[index] if index < len(params) else ""
        if name.lower() in TRAINING_SWITCHES:
            return True
    return False
