"""Refuse, before libcst sees it, a file that would make libcst's parse too slow or too big.

libcst's native parser takes time that grows with the *square* of how deeply an
expression nests, and nesting inside brackets costs most: a 1,600-term
``a + b + ...`` chain takes ~0.9 s, 40 nested calls ``f(f(...))`` on each of
1,000 lines ~25 s, while ``ast.parse`` takes milliseconds for either.  Python 3.9
even accepts a 20,000-term chain (3.11 rejects it), which libcst would take
minutes over.  Its tree also takes up to 6 KB per ``ast`` node: a list of
100,000 numbers on one line costs 380 MB.

So we estimate libcst's time and memory from the ``ast`` tree (flake8 has already
built it) with a cost model fitted on such shapes (``benchmarks/shapes.py``) and on
torch's own sources, and skip a file whose estimate is over the budget per 1,000
lines (files under 1,000 lines get the budget of 1,000) or that nests deeper than
libcst's recursion can take.  The model overestimates what we measured, so a file
it lets through keeps the bounds the README states ("Limits"); no file of torch's
own sources is skipped.
"""

import ast
import re
from typing import NamedTuple, Optional

# Microseconds of libcst parse per unit, on the 2-core CI machine; fitted on the
# shapes of ``benchmarks/shapes.py`` and on torch's own sources, with a margin.
CHAR_US = 2.0  # per character of source: every token costs, even those ``ast`` folds away
NODE_US = 15.0  # per ast node: a huge literal costs by its size alone
DEPTH_US = 1.5  # per unit of weighted nesting depth, summed over the nodes that nest
BUDGET_PER_1000_LINES_US = 1_500_000.0
# Peak memory of libcst's tree, measured on torch's largest files and on the shapes: up to
# 6 KB per ast node (a node of ``ast`` becomes several of libcst's), and the text itself.
NODE_KB = 6.0
CHAR_B = 3.0
MEMORY_PER_1000_LINES_MB = 60.0
# Beyond this weighted depth we stop whatever the budget: libcst recurses once per level.
MAX_DEPTH = 2000

# How much one level of each kind of node adds to the depth of what it contains: a level
# inside brackets costs libcst ~30 times a level of ``a + b + ...`` (measured: 40 nested
# calls on each of 1,000 lines take 25 s, a 1,600-term sum 0.9 s).
BRACKETS = 32
DEPTH_STEP = {
    ast.Call: BRACKETS, ast.Tuple: BRACKETS, ast.List: BRACKETS, ast.Set: BRACKETS, ast.Dict: BRACKETS,
    ast.ListComp: BRACKETS, ast.SetComp: BRACKETS, ast.DictComp: BRACKETS, ast.GeneratorExp: BRACKETS,
    ast.Subscript: 4, ast.IfExp: 2,
}
# Leaves: their depth costs nothing (a name, a constant, a context or operator marker).
_LEAVES = frozenset({ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del} | {
    kind for kind in vars(ast).values()
    if isinstance(kind, type) and issubclass(kind, (ast.operator, ast.unaryop, ast.boolop, ast.cmpop))
})

# Parentheses that only group, ``((((x))))``, leave no trace in the ``ast`` tree but nest in
# libcst's; a run of them is found in the text (in a string too: that only overestimates).
# Each alternative between two ``(`` starts with its own character and a comment runs to the
# end of its line, so matching stays linear (overlapping ``\s*`` runs made it quadratic in a
# long run of spaces; a comment that could end at any ``#`` made a banner of ``#`` exponential).
_GROUPING_RUN = re.compile(r"\((?:(?:[ \t\f\r\n]|\\|#[^\r\n]*(?![^\r\n]))*\()+")


class Estimate(NamedTuple):
    size: int  # characters of source
    nodes: int
    depth_units: int  # nesting depth summed over all nodes, brackets weighted
    deepest: int  # the largest weighted depth of any node

    @property
    def seconds(self) -> float:
        return (self.size * CHAR_US + self.nodes * NODE_US + self.depth_units * DEPTH_US) / 1e6

    @property
    def megabytes(self) -> float:
        return (self.nodes * NODE_KB * 1024 + self.size * CHAR_B) / 2 ** 20


def estimate(tree: ast.AST, source: str) -> Estimate:
    nodes, units, deepest = _tree_costs(tree)
    for run in _GROUPING_RUN.finditer(source):
        levels = run.group().count("(")
        units += BRACKETS * levels * (levels + 1) // 2
        deepest = max(deepest, BRACKETS * levels)
    return Estimate(len(source), nodes, units, deepest)


def _tree_costs(tree: ast.AST):
    """Walk ``tree`` once, without recursion (Python 3.9 builds trees 20,000 deep)."""
    nodes = units = deepest = 0
    steps, leaves, statement = DEPTH_STEP, _LEAVES, ast.stmt
    children = ast.iter_child_nodes
    stack = [(tree, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        nodes += 1
        kind = type(node)
        if kind in leaves:
            continue
        if isinstance(node, statement):
            depth = 0  # nesting of blocks is cheap for libcst; of expressions it is not
        else:
            units += depth
            if depth > deepest:
                deepest = depth
        below = depth + steps.get(kind, 1)
        for child in children(node):
            push((child, below))
    return nodes, units, deepest


def budget_seconds(line_count: int) -> float:
    return BUDGET_PER_1000_LINES_US * max(line_count, 1000) / 1000 / 1e6


def budget_megabytes(line_count: int) -> float:
    return MEMORY_PER_1000_LINES_MB * max(line_count, 1000) / 1000


def reason_to_skip(tree: ast.AST, source: str) -> Optional[str]:
    """Why libcst must not parse ``source`` (whose tree is ``tree``), in one line; None when it may."""
    line_count = source.count("\n") + 1
    found = estimate(tree, source)
    if found.deepest > MAX_DEPTH:
        return "an expression nests too deeply (depth %d, limit %d; a bracket counts %d)" % (
            found.deepest, MAX_DEPTH, BRACKETS)
    if found.seconds > budget_seconds(line_count):
        return "too complex to analyse in time (%d syntax nodes, %d characters in %d lines: %s)" % (
            found.nodes, found.size, line_count, "estimated %.1f s, budget %.1f s" % (
                found.seconds, budget_seconds(line_count)))
    if found.megabytes > budget_megabytes(line_count):
        return "too large to analyse in bounded memory (%d syntax nodes in %d lines: %s)" % (
            found.nodes, line_count, "estimated %.0f MB, budget %.0f MB" % (
                found.megabytes, budget_megabytes(line_count)))
    return None
