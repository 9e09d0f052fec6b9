"""Where the seeding of a run goes, and with which seed (docs/contract.md: "Seeding, in the run, never
at import time").

A module with a ``__main__`` block is seeded there -- or in the module's own function that
block calls, when that function parses the arguments -- right after the arguments are parsed
(the run's ``--seed`` option is read then), else as the block's first statement.  A run whose
work ``torch.multiprocessing.spawn`` starts in a function of the module is seeded at that
function's start: each process imports the module afresh and skips the block.  Importing the
module runs none of it, so an importer's random streams stay as they were.  A script without
a ``__main__`` block is seeded at module level (``block.insertion_point``).
"""

import re
from typing import List, NamedTuple, Optional, Tuple

import libcst as cst

from ...analysis.args import MISSING, UNKNOWN, find_arg, literal
from ...analysis.body import walk_with_parents
from ...analysis.nodes import is_docstring

# ``--seed``, ``--manualSeed``, ``--random-seed``, ``--rng_seed``: the run's own seed option.
SEED_OPTION = re.compile(r"^-{1,2}(?:manual|random|rng|global|train)?[-_]?seed$", re.IGNORECASE)
PARSING_METHODS = ("parse_args", "parse_known_args")


class Place(NamedTuple):
    node: cst.CSTNode  # the ``if __name__ == "__main__":`` statement or the function
    index: int  # where in its body the lines go
    seed: Optional[str]  # the run's own seed (``args.seed``); None: the module's SEED


def run_start(ctx) -> Optional[Place]:
    """The start of the module's run; None for a module without a ``__main__`` block."""
    guard = _main_guard(ctx)
    return _with_config_seed(_start(ctx, guard)) if guard is not None else None


def starts_in_spawned_function(ctx) -> bool:
    """Is the run's start the function ``torch.multiprocessing.spawn`` starts (``run_start``)?"""
    return _main_guard(ctx) is not None and spawned_function(ctx) is not None


def _main_guard(ctx):
    return next((g for g in ctx.index.main_guards if isinstance(g.body, cst.IndentedBlock)), None)


def _start(ctx, guard) -> Place:
    option = seed_option(ctx)
    spawned = spawned_function(ctx)
    if spawned is not None:
        return _spawned_start(ctx, guard, spawned, option)
    parsed = parsed_at(guard.body.body, ctx)
    if parsed is not None:
        index, namespace = parsed
        return Place(guard, index + 1, _seed_of(namespace, option))
    called = called_function(guard.body.body, ctx)
    if called is not None:
        parsed = parsed_at(called.body.body, ctx)
        if parsed is not None:
            index, namespace = parsed
            return Place(called, index + 1, _seed_of(namespace, option))
        if _config_seed(called, called.body.body, 0) is not None:
            return Place(called, 0, None)  # ``main(cfg)`` reads ``cfg.seed``: seeded there
    return Place(guard, _after_imports(guard.body.body), None)


def spawned_function(ctx) -> Optional[cst.FunctionDef]:
    """The module's one function that ``torch.multiprocessing.spawn`` starts: each process it
    starts imports the module afresh (no ``__main__`` block), so neither the parent's seeds nor its
    deterministic switches reach it; the run is seeded there."""
    found = [info.node for info in ctx.index.functions.values()
             if id(info.node) in ctx.facts.spawned and info.parent_scope is ctx.index.module_scope]
    if len(found) != 1 or not isinstance(found[0], cst.FunctionDef):
        return None
    return found[0] if isinstance(found[0].body, cst.IndentedBlock) else None


def _spawned_start(ctx, guard, spawned: cst.FunctionDef, option: Optional[str]) -> Place:
    """The spawned function's first statement (after its docstring), with the run's seed when the
    parsed arguments are handed to it under the same name (``def train(rank, args)``)."""
    body = spawned.body.body
    index = 1 if body and is_docstring(body[0]) else 0
    parsed = parsed_at(guard.body.body, ctx)
    seed = None
    if parsed is not None:
        namespace = parsed[1]
        # mp.spawn hands its args on by position: a keyword-only parameter never receives them.
        positional = {param.name.value for param in (*spawned.params.posonly_params, *spawned.params.params)}
        seed = _seed_of(namespace, option) if namespace in positional else None
    return Place(spawned, index, seed)


def _with_config_seed(place: Place) -> Place:
    """Without a ``--seed`` option: the seed the run reads from its configuration
    (``cfg.seed``, ``config["seed"]``), seeded once that object exists."""
    if place.seed is not None:
        return place
    found = _config_seed(place.node, place.node.body.body, place.index)
    if found is None:
        return place
    index, seed = found
    return Place(place.node, max(place.index, index), seed)


def _config_seed(owner, statements, start: int) -> Optional[Tuple[int, str]]:
    """(where the seeding can go, the expression) for the first ``NAME.seed`` / ``NAME["seed"]``
    read at or after ``start``, NAME being a parameter of ``owner`` or assigned by an earlier
    statement of ``statements`` (the seeding then goes right after that assignment)."""
    params = {p.name.value for p in owner.params.params} if isinstance(owner, cst.FunctionDef) else set()
    assigned = {}
    for index, statement in enumerate(statements):
        for name in _assigned_names(statement):
            assigned[name] = index + 1
        if index < start:
            continue
        for node, _ in walk_with_parents(statement):
            name = _seed_field_owner(node)
            if name is not None and (name in params or name in assigned):
                where = assigned.get(name, 0)
                if where <= index:
                    return max(where, start), cst.Module([]).code_for_node(node)
    return None


SEED_FIELDS = ("seed", "random_seed", "manual_seed", "manualSeed", "rng_seed")


def _seed_field_owner(node) -> Optional[str]:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.attr.value in SEED_FIELDS:
        return node.value.value
    if (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)):
        key = node.slice[0].slice.value
        if isinstance(key, cst.SimpleString) and key.evaluated_value in SEED_FIELDS:
            return node.value.value
    return None


def _assigned_names(statement):
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, cst.Assign):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        yield target.target.value
            elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                yield small.target.value
    elif isinstance(statement, cst.With) and isinstance(statement.body, cst.IndentedBlock):
        # ``with open(path) as f: cfg = yaml.safe_load(f)``: bound once the block has run
        for inner in statement.body.body:
            yield from _assigned_names(inner)


def _after_imports(statements) -> int:
    """Past the imports a ``__main__`` block starts with: the seeding follows them."""
    index = 0
    while index < len(statements) and isinstance(statements[index], cst.SimpleStatementLine) and all(
            isinstance(small, (cst.Import, cst.ImportFrom)) for small in statements[index].body):
        index += 1
    return index


def seed_option(ctx) -> Optional[str]:
    """The attribute of the run's ``--seed`` option (``manualSeed``), when it has a default that
    is not None (a run without the option then has a seed: otherwise DET109's case)."""
    for site in ctx.index.calls:
        func = site.node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "add_argument") or not site.node.args:
            continue
        flags = [literal(a.value)[1] for a in site.node.args if a.keyword is None]
        flags = [f for f in flags if isinstance(f, str)]
        if not any(SEED_OPTION.match(flag) for flag in flags):
            continue
        default = find_arg(site.node, "default")
        if default in (MISSING, UNKNOWN) or literal(default) == (True, None):
            return None
        dest = find_arg(site.node, "dest")
        if dest not in (MISSING, UNKNOWN):
            known, value = literal(dest)
            return value if known and isinstance(value, str) else None
        longest = max(flags, key=len)
        return longest.lstrip("-").replace("-", "_")
    return None


def _seed_of(namespace: str, option: Optional[str]) -> Optional[str]:
    return "%s.%s" % (namespace, option) if option else None


def parsed_at(statements, ctx) -> Optional[Tuple[int, str]]:
    """(index, name) of ``args = parser.parse_args()`` (or ``opt = parse_opt()``, a function of
    this module that parses them) among ``statements``."""
    for index, statement in enumerate(statements):
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            continue
        small = statement.body[0]
        if not isinstance(small, cst.Assign) or len(small.targets) != 1:
            continue
        target = small.targets[0].target
        if isinstance(target, cst.Tuple) and target.elements:
            target = target.elements[0].value  # ``args, unknown = parser.parse_known_args()``
        if isinstance(target, cst.Name) and _parses(small.value, ctx):
            return index, target.value
    return None


def _parses(value, ctx) -> bool:
    """``parser.parse_args()``, or a call of this module's function that returns what it parsed."""
    if _is_parse_call(value):
        return True
    call = value.value if isinstance(value, cst.Subscript) else value  # ``parse_opt()[0]``
    local = _local_function(call, ctx) if isinstance(call, cst.Call) else None
    return local is not None and _returns_parsed(local)


def _returns_parsed(function: cst.FunctionDef) -> bool:
    """``def parse_opt(): ...; return parser.parse_args()`` (or the name it was stored in): a
    function that parses the arguments and hands them back -- not a ``cli_main()`` that parses
    them, trains and returns what it built."""
    parsed, returned = set(), []
    for node, _ in walk_with_parents(function.body):
        if isinstance(node, cst.Assign) and _is_parse_call(node.value):
            for target in node.targets:
                element = target.target
                if isinstance(element, cst.Tuple) and element.elements:
                    element = element.elements[0].value
                if isinstance(element, cst.Name):
                    parsed.add(element.value)
        elif isinstance(node, cst.Return) and node.value is not None:
            returned.append(node.value)
    return bool(returned) and all(
        _is_parse_call(value) or (isinstance(value, cst.Name) and value.value in parsed) for value in returned)


def _is_parse_call(value) -> bool:
    if isinstance(value, cst.Subscript):
        value = value.value  # ``parser.parse_known_args()[0]``
    return (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in PARSING_METHODS)


def called_function(statements, ctx) -> Optional[cst.FunctionDef]:
    """The module's own function the ``__main__`` block calls first (``main()``, ``main(opt)``)."""
    for statement in statements:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
            if isinstance(value, cst.Call):
                local = _local_function(value, ctx)
                if local is not None and isinstance(local.body, cst.IndentedBlock):
                    return local
    return None


def _local_function(call: cst.Call, ctx) -> Optional[cst.FunctionDef]:
    """The module-level function of this module that ``call`` calls, if any."""
    callee = ctx.facts.local_callee.get(id(call))
    if callee is None or callee.parent_scope is not ctx.index.module_scope:
        return None
    return callee.node if isinstance(callee.node, cst.FunctionDef) else None


def insert_into(node: cst.CSTNode, index: int, statements: List[cst.BaseStatement]) -> cst.CSTNode:
    """``statements`` placed at ``index`` of the body of ``node`` (an ``If`` or a function)."""
    body = node.body
    lines = list(body.body)
    if 0 < index and statements and _after_imports(lines[index - 1:index]):  # a blank line after imports
        first = statements[0]
        statements = [first.with_changes(leading_lines=[cst.EmptyLine(indent=False), *first.leading_lines]),
                      *statements[1:]]
    lines[index:index] = statements
    return node.with_changes(body=body.with_changes(body=lines))
