"""The cheap pre-checks: skip files in which no rule can fire, before the libcst parse.

Stage 1 (text): every report needs the callee's own name in the text (an import
alias still spells the original name in its ``import`` line), so a file whose
identifiers meet none of a rule's trigger words cannot produce that rule's
report.  Collecting identifiers costs a few percent of ``ast.parse``.

Stage 2 (shape, from the ``ast`` tree flake8 has already built): draws are
only reported at import time or in entry modules (outside strict mode), and
DET100 only in entry modules.  For a library module we therefore look for the
draw rules' trigger words only in code that runs at import time -- everything
but function bodies.  Both stages over-approximate: they may let a file through
that yields nothing, never the reverse (the fixture tests check this).
"""

import ast
import re
from typing import FrozenSet, NamedTuple, Set

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def identifiers(source: str) -> FrozenSet[str]:
    return frozenset(_IDENTIFIER.findall(source))


class ModuleShape(NamedTuple):
    is_entry: bool  # may be an entry module (over-approximated)
    import_time_words: FrozenSet[str]  # identifiers outside function bodies


def module_shape(tree: ast.Module, lines) -> ModuleShape:
    entry = False
    body_lines: Set[int] = set()
    stack = [(stmt, True) for stmt in tree.body]
    while stack:
        node, module_level = stack.pop()
        if isinstance(node, _FUNCTIONS):
            first = node.body[0].lineno
            start = first if first > node.lineno else node.lineno + 1
            body_lines.update(range(start, node.end_lineno + 1))
            continue
        if module_level and isinstance(node, ast.Expr) and isinstance(node.value, (ast.Call, ast.Await)):
            entry = True
        if module_level and isinstance(node, ast.If) and _mentions_name_dunder(node.test):
            entry = True
        inner_level = module_level and not isinstance(node, ast.ClassDef)
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, ()) or ():
                if isinstance(child, ast.stmt):
                    stack.append((child, inner_level))
                elif isinstance(child, (ast.ExceptHandler, ast.match_case if hasattr(ast, "match_case") else ())):
                    stack.extend((c, inner_level) for c in child.body)
    text = "".join(line for number, line in enumerate(lines, 1) if number not in body_lines)
    return ModuleShape(entry, identifiers(text))


def _mentions_name_dunder(test: ast.expr) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(test))


def rules_for_words(source: str, settings, rules):
    """Stage 1: the rules whose trigger words occur in the text."""
    words = identifiers(source)
    return [rule for rule in rules if rule.might_fire(words, settings)]


def rules_for_shape(tree: ast.Module, lines, settings, rules):
    """Stage 2: drop entry-only and draw rules that the module's shape rules out."""
    shape = None
    kept = []
    for rule in rules:
        scope = getattr(rule, "precheck_scope", None)
        if scope is None:
            kept.append(rule)
            continue
        if shape is None:
            shape = module_shape(tree, lines)
        if shape.is_entry:
            kept.append(rule)
        elif scope == "draw" and (settings.strict or rule.might_fire(shape.import_time_words, settings)):
            kept.append(rule)
    return kept
