"""Second-stage pre-checks of single rules, on the ``ast`` tree flake8 already built: cheap
necessary conditions for a report, so a file that cannot get one is never parsed by libcst.
Each over-approximates its rule (the fixtures check that no report is hidden)."""

import ast
from typing import FrozenSet, Iterator, Tuple

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def calls_in_functions(tree: ast.Module) -> Iterator[Tuple[str, ast.Call]]:
    """(name of the innermost enclosing function, or "", call) for every call."""
    stack = [("", node) for node in tree.body]
    while stack:
        function, node = stack.pop()
        if isinstance(node, _FUNCTIONS):
            function = node.name
        elif isinstance(node, ast.Call):
            yield function, node
        stack.extend((function, child) for child in ast.iter_child_nodes(node))


def callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def hash_outside(tree: ast.Module, protocol: FrozenSet[str]) -> bool:
    """DET209: a call of ``hash(...)`` outside the object protocol's methods (``__hash__``...)."""
    return any(isinstance(call.func, ast.Name) and call.func.id == "hash" and function not in protocol
               for function, call in calls_in_functions(tree))


def empty_held(tree: ast.Module, empty: FrozenSet[str], holders: FrozenSet[str]) -> bool:
    """DET307: an ``empty`` call (through ``.to()``-like chains) given to a parameter or buffer maker."""
    for _, call in calls_in_functions(tree):
        if callee(call) in holders:
            for argument in list(call.args) + [k.value for k in call.keywords]:
                for node in ast.walk(argument):
                    if isinstance(node, ast.Call) and callee(node) in empty:
                        return True
    return False


def functional_in_forward(tree: ast.Module, functionals: FrozenSet[str]) -> bool:
    """DET403: a dropout functional in a ``forward`` without its ``training`` argument."""
    for function, call in calls_in_functions(tree):
        if function == "forward" and callee(call) in functionals:
            if len(call.args) < 3 and not any(k.arg == "training" or k.arg is None for k in call.keywords):
                return True
    return False


def hash_as_key(tree: ast.Module) -> bool:
    """DET209: ``sorted(names, key=hash)``."""
    return any(k.arg == "key" and isinstance(k.value, ast.Name) and k.value.id == "hash"
               for _, call in calls_in_functions(tree) for k in call.keywords)


def _dotted(node) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _has_call(node) -> bool:
    return any(isinstance(inner, ast.Call) for inner in ast.walk(node))


def seed_from_call(tree: ast.Module, constructors: FrozenSet[str]) -> bool:
    """DET105: a seeding call (a callee named ``*seed*``, an RNG constructor) whose seed is made by
    a call -- in its arguments, or in what a name or ``a.b`` it is given was assigned -- or an
    option whose default is made by a call."""
    held = set()
    for _, call in calls_in_functions(tree):
        name = callee(call)
        if "seed" in name.lower() or name in constructors:
            for argument in list(call.args) + [k.value for k in call.keywords]:
                if _has_call(argument):
                    return True
                held.update(_dotted(node) for node in ast.walk(argument) if isinstance(node, (ast.Name, ast.Attribute)))
        elif name == "add_argument" and any(k.arg == "default" and _has_call(k.value) for k in call.keywords):
            return True
    held.discard("")
    if not held:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets = [node.target]
        else:
            continue
        names = {_dotted(element) for target in targets for element in ast.walk(target)}
        if names & held and _has_call(node.value):
            return True
    return False
