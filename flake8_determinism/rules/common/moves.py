"""The unsafe fix of a use before the run's seeding: move the seeding up (docs/contract.md: "a draw
before the existing seed gets no second seed").

``model = build(args.depth)`` followed by ``init_seeds(args.seed)`` in the same body: the
seeding statement goes just before the statement that uses the RNG, when nothing between
them binds a name the seeding statement reads (it would then read another value, or none).
Unsafe: the statements it now precedes draw other numbers than before -- which is the point,
but it changes what the run computes.
"""

from typing import Iterator, List, Optional, Set, Tuple

import libcst as cst

from ...tables.run_uses import SEEDED_BY
from .block import statement_call
from .edits import Fix

def move_seeding_fix(ctx, node, framework: str) -> Optional[Fix]:
    """Move the first statement after ``node``'s statement that seeds ``framework`` (in the
    same body) to just before it; None when there is none or the move could change its seed."""
    found = _statements_around(ctx, node, framework)
    if found is None:
        return None
    owner, use_index, seed_index = found
    body = _body_of(owner)
    seeding = body[seed_index]
    if _bound_in(body[use_index:seed_index]) & _names_read(seeding):
        return None
    shift = seed_index - use_index

    def rewrite(updated, spell):
        statements = list(_body_of(updated))
        # The seeding statement is unchanged by other fixes (libcst rebuilds it: compared by
        # value, the match nearest its old place); statements inserted before the use (the
        # run's start) shift both places alike.
        matches = [i for i, s in enumerate(statements) if s.deep_equals(seeding)]
        at = min(matches, key=lambda i: abs(i - seed_index)) if matches else None
        if at is None or at - shift < 0:
            return updated
        moved = statements.pop(at)
        target = at - shift
        comments = [line for line in moved.leading_lines if line.comment is not None]
        moved = moved.with_changes(leading_lines=[*statements[target].leading_lines, *comments])
        statements[target] = statements[target].with_changes(leading_lines=())
        statements.insert(target, moved)
        return _with_body(updated, statements)

    return Fix("move the seeding before the first use", ((owner, rewrite),), frozenset(), safe=False)


def _statements_around(ctx, node, framework: str) -> Optional[Tuple[object, int, int]]:
    """(the body holding the use's statement, its index, the seeding statement's index):
    the innermost body first, then the bodies around it."""
    frameworks = set(SEEDED_BY.get(framework, (framework,)))
    for owner, use_index in _enclosing_bodies(ctx.module, node):
        body = _body_of(owner)
        for index in range(use_index + 1, len(body)):
            call = statement_call(body[index])
            site = ctx.site_of(call) if call is not None else None
            if site is not None and ctx.facts.call_seeds(site) & frameworks:
                return owner, use_index, index
        if isinstance(owner, cst.FunctionDef):
            return None  # the function's caller decides when its body runs
    return None


def _enclosing_bodies(module: cst.Module, node) -> Iterator[Tuple[object, int]]:
    """(statement owning a body, index of the statement there that holds ``node``), from the
    innermost body out to the module: one walk for the parents, then up from ``node``."""
    parents = {}
    for parent in _walk_all(module):
        for child in parent.children:
            parents[id(child)] = parent
    current = node
    while id(current) in parents:
        parent = parents[id(current)]
        owner = parent if isinstance(parent, cst.Module) else (
            parents.get(id(parent)) if isinstance(parent, cst.IndentedBlock) else None)
        if owner is not None and not isinstance(owner, cst.ClassDef):  # a class body is no run's
            body = _body_of(owner)
            yield owner, next(i for i, statement in enumerate(body) if statement is current)
        current = parent


def _body_of(owner) -> Optional[List]:
    if isinstance(owner, cst.Module):
        return list(owner.body)
    body = getattr(owner, "body", None)
    return list(body.body) if isinstance(body, cst.IndentedBlock) else None


def _with_body(owner, statements):
    if isinstance(owner, cst.Module):
        return owner.with_changes(body=statements)
    return owner.with_changes(body=owner.body.with_changes(body=statements))


def _walk_all(root) -> Iterator[object]:
    """Every node under ``root`` (nested scopes too), in pre-order."""
    stack = [root]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _names_read(statement) -> Set[str]:
    return {node.value for node in _walk_all(statement) if isinstance(node, cst.Name)}


def _bound_in(statements) -> Set[str]:
    """Names the statements bind: assignment and loop targets, imports, ``with ... as``,
    definitions, ``global``/``nonlocal`` (a function called there may rebind those)."""
    bound: Set[str] = set()
    for statement in statements:
        for node in _walk_all(statement):
            targets = []
            if isinstance(node, cst.AssignTarget):
                targets.append(node.target)
            elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
                targets.append(node.target)
            elif isinstance(node, (cst.For, cst.CompFor)):
                targets.append(node.target)
            elif isinstance(node, cst.AsName):
                targets.append(node.name)
            elif isinstance(node, cst.NamedExpr):
                targets.append(node.target)
            elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                bound.add(node.name.value)
            elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    bound.add((alias.evaluated_alias or alias.evaluated_name).split(".")[0])
            elif isinstance(node, (cst.Global, cst.Nonlocal)):
                bound.update(item.name.value for item in node.names)
            for target in targets:
                bound.update(n.value for n in _walk_all(target) if isinstance(n, cst.Name))
    return bound
