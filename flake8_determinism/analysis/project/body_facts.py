"""Facts about a project module's classes and bodies beyond their events, read by the rules that
follow values across modules: what a Dataset class draws (DET201), the calls that run only for
some argument values, the sets and draws functions return (DET207, DET105), what each body does
with checkpoints (DET110).  Each takes the summarizer (``summary._Summarizer``) after its first
pass."""

import ast
from typing import Dict, Optional, Tuple

from ...tables import data_order as D
from ...tables import resume as R
from ...tables import seeding as T
from ...tables.rng_draws import (
    DRAW_FRAMEWORK,
    MINDSPORE_DRAWS,
    NUMPY_LEGACY,
    PYTHON_RANDOM,
    TENSOR_METHODS,
    TF_DRAWS,
    TORCH_GLOBAL,
)
from ...tables.stochastic import DROPOUT, RANDOM_TRANSFORMS
from .. import calls as C
from ..ast_names import dotted
from .ast_values import call_of
from .summary_kinds import CALL, IMPORT, SWITCH

# What a class's data-loading methods draw (DET201): see rules/common/dataloader.py.
NOTHING, RESEEDED, UNSEEN, COPIED = 0, 1, 2, 3


# -- per class and body facts ---------------------------------------------------------
def class_facts(s) -> Dict[str, tuple]:
    facts = {}
    for key, info in s.classes.items():
        node, scope = info["node"], info["scope"]
        bases = tuple(s.resolve(base, scope) or "" for base in node.bases)
        facts[key] = (bases, tuple(info["methods"]), _dataset_randomness(s, key, info["methods"]))
    return facts


def _dataset_randomness(s, key: str, methods) -> tuple:
    """(level, phrase, draws from NumPy's global RNG): what the class's methods draw, as
    ``rules/common/dataloader.py`` grades a dataset visible in the same module."""
    for attribute, assigned in s.self_attributes.get(key, {}).items():
        for value, scope in assigned:
            if isinstance(value, ast.Call) and s.resolve(value.func, scope) in D.RNG_OBJECTS:
                return (COPIED, "holds an RNG object (self.%s)" % attribute, False)
    worst, phrase, numpy = NOTHING, "", False
    for method in methods:
        for node, scope, kind, _ in s.calls.get(key + "." + method, ()):
            if kind != CALL:
                continue
            name = s.resolve(node.func, scope) or ""
            root = name.split(".", 1)[0]
            if root in D.OTHER_RNG_ROOTS or name in TF_DRAWS or name in MINDSPORE_DRAWS:
                return (COPIED, "draws from the %s RNG" % root, numpy)
            numpy = numpy or name in NUMPY_LEGACY
            method_name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name in PYTHON_RANDOM or name in NUMPY_LEGACY or name in TORCH_GLOBAL or name in RANDOM_TRANSFORMS:
                worst = max(worst, RESEEDED)
            elif name in DROPOUT or (not name and method_name in TENSOR_METHODS):
                worst = max(worst, RESEEDED)
            elif not name and any(w in (method_name or dotted(node.func)).lower() for w in D.TRANSFORM_WORDS):
                worst, phrase = max(worst, UNSEEN), phrase or "calls a transform handed in"
    return (worst, phrase, numpy)


def value_guards(s) -> Dict[str, dict]:
    """body key -> {(line, col) of a call: ((parameter, values, runs when equal), ...)} for the
    calls that run only for some string values of parameters (``if strategy == "random":``)."""
    found: Dict[str, dict] = {}
    for key, calls in s.calls.items():
        for node, _, kind, _ in calls:
            guards = s.valued.get(id(node))
            if guards and kind not in (IMPORT, SWITCH):
                found.setdefault(key, {})[(node.lineno, node.col_offset)] = tuple(guards)
    return found


def guard_bodies(s) -> Dict[str, bool]:
    guarded = set(s.guarded)
    return {
        key: True for key, calls in s.calls.items()
        if any(kind == CALL and id(node) in guarded for node, _, kind, _ in calls)
    }


def return_kinds(s) -> Dict[str, tuple]:
    """Bodies that return a set of strings or unknown elements: ``key -> ("set", line)``; its
    order is the caller's problem (DET207)."""
    kinds = {}
    for key, values in s.returns.items():
        for value, _ in values:
            if _is_set_expression(value) and not _numeric_set(value):
                kinds[key] = ("set", value.lineno)
                break
    return kinds


def checkpoint_facts(s) -> Dict[str, str]:
    """What each body does with checkpoints (DET110), one letter each: ``R`` restores an
    optimizer's state (``optimizer.load_state_dict(...)``), ``L`` restores the state of
    something else or of whatever it is given, ``S`` saves one (``torch.save``), ``G``
    saves or restores an RNG state (``g``: restores one), ``O`` seeds after restoring one
    (overwriting it), ``T`` restores an optimizer and then trains and draws (dropout, a global
    RNG): the run resumes in this body (``rules/det110.py``)."""
    found: Dict[str, set] = {}
    local: Dict[str, set] = {}  # body -> this module's functions it calls (``save_on_master``)
    for key, calls in s.calls.items():
        letters, callees = found.setdefault(key, set()), local.setdefault(key, set())
        trained = drew = False
        for node, scope, kind, _ in sorted(calls, key=lambda call: (call[0].lineno, call[0].col_offset)):
            if kind != CALL:
                continue
            method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if "R" in letters:  # after the restore: does the body train, and draw?
                trained = trained or R.trains(method)
                drew = drew or _draws(s, node, scope)
                if trained and drew:
                    letters.add("T")
            if method == R.RESTORE_METHOD:
                # ``L``: a generic restore (``for key, value in kwargs.items():
                # value.load_state_dict(ckpt[key])``): an optimizer when the caller passes one
                letters.add("R" if _restores_optimizer(node) else "L")
            elif method in R.RNG_STATE_METHODS:
                letters.add("G")
            else:
                name = s.resolve(node.func, scope) or ""
                if "g" in letters and name in T.SEEDERS:
                    letters.add("O")  # seeds after restoring an RNG state: overwrites it
                if name in R.CHECKPOINT_SAVERS:
                    letters.add("S")
                elif name in R.RNG_STATE_CALLS:
                    letters.add("G")
                    if name in R.RESTORING_RNG:
                        letters.add("g")
                elif name.startswith("#"):
                    callees.add(name[1:])
    changed = True
    while changed:  # through this module's own helpers (``save_model`` -> ``save_on_master``)
        changed = False
        for key, callees in local.items():
            for callee in callees:
                extra = found.get(callee, set()) - found[key]
                if extra:
                    found[key] |= extra
                    changed = True
    return {key: "".join(sorted(letters)) for key, letters in found.items() if letters}


def returned_draws(s) -> Dict[str, tuple]:
    """Functions that return a value no run can repeat (DET105, when the caller seeds with it):
    ``key -> (line, framework, spelled)``, framework ``""`` for the clock, ``os.urandom`` and
    the like, else the global RNG it draws from (repeatable once that RNG is seeded).  A
    returned name counts through its assignment unless the function takes a seed: ``def
    pick(seed=None): if seed is None: seed = random.randint(...)`` draws only as a fallback."""
    draws = {}
    for key, values in s.returns.items():
        for value, scope in values:
            takes_seed = any("seed" in name.lower() for name in s.params.get(key, ()))
            if isinstance(value, ast.Name) and not takes_seed:
                binding = scope.names.get(value.id)
                if binding is not None and binding[0] == "assign" and binding[1] is not None:
                    value = binding[1]
            found = _draw_in(s, value, scope)
            if found is not None:
                draws[key] = (value.lineno,) + found
                break
    return draws


def _draw_in(s, value, scope) -> Optional[Tuple[str, str]]:
    for node in ast.walk(value):
        if type(node) is not ast.Call:
            continue
        name = s.resolve(node.func, scope)
        if not name or name.startswith("#"):
            continue
        if name.startswith(T.ENTROPY_PREFIXES) or name in T.ENTROPY_CALLS:
            return "", dotted(node.func) or name
        framework = DRAW_FRAMEWORK.get(name)
        if framework is not None:
            return framework, dotted(node.func) or name
    return None


def _draws(s, call: ast.Call, scope) -> bool:
    """The call draws from a global RNG or applies dropout (what a resumed run draws anew)."""
    name = s.resolve(call.func, scope) or ""
    return name in DROPOUT or C.global_draw(call_of(call, name, lambda expr: s.resolve(expr, scope))) is not None


def _restores_optimizer(call: ast.Call) -> bool:
    """``optimizer.load_state_dict(ckpt["optimizer"])``: the receiver or a key read names an
    optimizer (``rules/det110.py`` for libcst)."""
    receiver = dotted(call.func.value) if isinstance(call.func, ast.Attribute) else ""
    keys = [n.value for a in call.args for n in ast.walk(a) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return any(word in name.lower() for name in [receiver.rsplit(".", 1)[-1], *keys] for word in R.OPTIMIZER_WORDS)


def _is_set_expression(node) -> bool:
    if isinstance(node, (ast.Set, ast.SetComp)):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset")


def _numeric_set(node) -> bool:
    """``set(range(n))``, ``{1, 2}``: numbers hash by value, the same order in every process."""
    if isinstance(node, ast.Set):
        return all(isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) for e in node.elts)
    if isinstance(node, ast.Call) and node.args:
        source = node.args[0]
        return isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "range"
    return False
