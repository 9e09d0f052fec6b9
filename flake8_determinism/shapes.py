"""Second-stage pre-checks of single rules, on the text and the ``ast`` tree flake8 already built:
cheap necessary conditions for a report, so a file that cannot get one is never parsed by libcst.
Each over-approximates its rule (the fixtures check that no report is hidden)."""

import ast
import re
from typing import FrozenSet, Iterator, Tuple

_FUNCTIONS = {ast.FunctionDef, ast.AsyncFunctionDef}


def calls_in_functions(tree: ast.Module) -> Iterator[Tuple[str, ast.Call]]:
    """(name of the innermost enclosing function, or "", call) for every call."""
    stack = [("", node) for node in tree.body]
    while stack:
        function, node = stack.pop()
        kind = type(node)
        if kind is ast.Call:
            yield function, node
        elif kind in _FUNCTIONS:
            function = node.name
        stack.extend((function, child) for child in ast.iter_child_nodes(node))


def callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


_HASH_CALL = re.compile(r"(?<![\w.])hash\s*\(")


def hash_outside(tree: ast.Module, text: str, protocol: FrozenSet[str]) -> bool:
    """DET209: a call of ``hash(...)`` (not in a comment) on a line outside the object protocol's
    methods (``__hash__``...), found in the text and placed with the tree's classes only."""
    lines = set()
    for match in _HASH_CALL.finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        if "#" not in text[start:match.start()]:
            lines.add(text.count("\n", 0, match.start()) + 1)
    if not lines:
        return False
    inside = set()
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.ClassDef):
            stack.extend(node.body)
        elif type(node) in _FUNCTIONS and node.name in protocol:
            inside.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return not lines <= inside


def empty_held(text: str, empty: FrozenSet[str], holders: FrozenSet[str]) -> bool:
    """DET307: an ``empty`` call given to a parameter or buffer maker: the maker's call, then one
    of the empty calls within its first arguments (the rule's creations are its first argument,
    or ``register_buffer``'s second)."""
    makers = re.compile(r"\b(?:%s)\s*\(" % "|".join(sorted(holders)))
    calls = re.compile(r"\b(?:%s)\s*\(" % "|".join(sorted(empty)))
    return any(calls.search(text, match.end(), match.end() + 400) for match in makers.finditer(text))


def functional_in_forward(tree: ast.Module, functionals: FrozenSet[str]) -> bool:
    """DET403: a dropout functional in a ``forward`` without its ``training`` argument."""
    for function, call in calls_in_functions(tree):
        if function == "forward" and callee(call) in functionals:
            if len(call.args) < 3 and not any(k.arg == "training" or k.arg is None for k in call.keywords):
                return True
    return False


_HASH_KEY = re.compile(r"\bkey\s*=\s*hash\b")


def hash_as_key(text: str) -> bool:
    """DET209: ``sorted(names, key=hash)``."""
    return _HASH_KEY.search(text) is not None


_SEEDING_CALL = re.compile(r"seed\w*\s*\(([^)]*)\)", re.IGNORECASE)
_DEFAULT_CALL = re.compile(r"add_argument\([^)]*seed[^)]*default\s*=\s*[^,)]*\(", re.IGNORECASE)
_HELD_NAME = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*(?:[,)=]|$)")


def seed_from_call(text: str) -> bool:
    """DET105: a seeding call (a callee named ``*seed*``) whose seed is made by a call -- in its
    arguments, or assigned before to the name or ``a.b`` it is given -- or a seed option whose
    default is made by a call.  From the text alone (RNG constructors are seeded by their first
    argument the same way, and named so rarely that the rule's first stage covers them)."""
    if _DEFAULT_CALL.search(text):
        return True
    names = set()
    for match in _SEEDING_CALL.finditer(text):
        arguments = match.group(1)
        if "(" in arguments:
            return True
        held = _HELD_NAME.match(arguments)
        if held:
            names.add(held.group(1))
    return any(re.search(r"^\s*%s\s*(?::[^=\n]*)?=[^=\n][^\n]*\(" % re.escape(name), text, re.MULTILINE)
               for name in names)
