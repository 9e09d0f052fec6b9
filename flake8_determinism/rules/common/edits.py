"""What a rule's fix is (Fixit's ``replacement=``, one step more general).

A rule attaches a ``Fix`` to the ``Report`` it yields: a rewrite of one node,
module-level needs that ``determinism-fix`` fills once per file (the seeding
block, ``SEED``, ``seed_worker``), or both.  Building a ``Fix`` is cheap and
loads nothing: the nodes are built only when the codemod applies it, so the
linter pays nothing for fixes.

Templates name what they use in braces, spelled by the file being fixed:
``{torch}.Generator().manual_seed({SEED})`` becomes
``torch.Generator().manual_seed(SEED)``, or ``T.Generator()...`` under
``import torch as T``; ``{SEED}`` is the module's seed in an entry module and
``torch.initial_seed()`` (the caller's seed) in a library module.
"""

from __future__ import annotations

from typing import Callable, FrozenSet, NamedTuple, Optional, Sequence, Tuple

from ..._lazy import cst

# Module-level needs (the block, ``rules/common/block.py``, fills them once).
SEEDING = "seeding"  # seed every framework the module uses (DET100-DET107)
TORCH_DETERMINISM = "torch-determinism"  # deterministic kernels (DET303)
TF_DETERMINISM = "tf-determinism"  # TF op determinism (DET306)
SEED_WORKER = "seed_worker"  # the worker_init_fn the DataLoader fix names (DET201)
SEED_WORKER_OBJECTS = "seed_worker, dataset RNG objects"  # the same, also reseeding the dataset's RNG objects


class Fix(NamedTuple):
    """``edits``: (node, ``rewrite(updated_node, spelling) -> new node``) pairs; ``needs``
    are filled at module level.  ``safe``: changes nothing but the randomness."""

    what: str  # one line, as ``--diff`` lists it
    edits: Tuple[Tuple[object, Callable], ...] = ()
    needs: FrozenSet[str] = frozenset()
    safe: bool = True
    # Applied in the round after the run's seeding is inserted: it then takes the run's own seed.
    after_seeding: bool = False
    # (qualified name, keyword) the installed framework must accept (``rules/common/installed.py``),
    # else ``fallback`` is applied instead (None: nothing).
    requires: Tuple[Tuple[str, str], ...] = ()
    fallback: Optional["Fix"] = None


def module_fix(what: str, *needs: str) -> Fix:
    return Fix(what, needs=frozenset(needs))


def combine(what: str, fixes: Sequence[Fix]) -> Fix:
    """One fix made of several (a switch on every ``Trainer(...)`` of the module)."""
    return Fix(what, tuple(e for f in fixes for e in f.edits), frozenset().union(*(f.needs for f in fixes)),
               all(f.safe for f in fixes), requires=tuple(r for f in fixes for r in f.requires))


def set_argument(call, keyword: Optional[str], position: Optional[int], template: str, what: str,
                 needs: Sequence[str] = (), safe: bool = True) -> Fix:
    """Give ``call`` an argument (replacing an explicit ``None``): positionally when
    it is the next positional slot and no keyword follows, else by keyword."""
    def rewrite(node, spell):
        return _with_argument(node, keyword, position, spell.expr(template))

    return Fix(what, ((call, rewrite),), frozenset(needs), safe)


def replace(node, template: str, what: str, safe: bool = True) -> Fix:
    def rewrite(old, spell):
        return _keep_parens(old, spell.expr(template))

    return Fix(what, ((node, rewrite),), frozenset(), safe)


def wrap(node, function: str, what: str, key: Optional[str] = None, safe: bool = True) -> Fix:
    """``x`` -> ``sorted(x)`` (``sorted(x, key=...)``)."""
    def rewrite(old, spell):
        args = [cst.Arg(old)]
        if key is not None:
            args.append(cst.Arg(spell.expr(key), keyword=cst.Name("key"), equal=_assign_equal()))
        return cst.Call(cst.Name(function), args=_with_commas(args))

    return Fix(what, ((node, rewrite),), frozenset(), safe)


def sorted_fix(ctx, node, what: str, safe: bool = True, key: Optional[str] = None, call=None) -> Optional[Fix]:
    """``sorted(node)``; ``list(node)`` (``call``, else the node's parent) becomes ``sorted(node)``,
    the same list in a fixed order.  None where ``sorted`` is not the builtin."""
    if _binds_sorted(ctx.index):
        return None
    if call is None:
        call = ctx.index.parents.get(id(node))
        if isinstance(call, cst.Arg):
            call = ctx.index.parents.get(id(call))
    if key is None and isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "list" \
            and len(call.args) == 1 and not call.args[0].star and call.args[0].value is node:
        def rewrite(old, spell):
            return old.with_changes(func=old.func.with_changes(value="sorted"))

        return Fix(what, ((call, rewrite),), frozenset(), safe)
    return wrap(node, "sorted", what, key, safe)


def _binds_sorted(index) -> bool:
    """Whether any scope of the module binds ``sorted``: then a ``sorted(...)`` we write may not
    call the builtin (a local one made the fix raise and wrap itself again every run)."""
    scopes = [index.module_scope, *(info.scope for info in index.functions.values()),
              *(body for _, body, _ in index.classes)]
    return any("sorted" in scope.bindings for scope in scopes)


def sort_in_loop(loop, names: Sequence[str], what: str) -> Fix:
    """``for root, dirs, files in os.walk(p):`` -> sort ``dirs`` and ``files`` first thing in the loop
    (sorting ``dirs`` in place also fixes the order ``os.walk`` descends in)."""
    def rewrite(old, spell):
        sorts = [cst.Expr(spell.expr("%s.sort()" % name)) for name in names]
        body = old.body
        if isinstance(body, cst.SimpleStatementSuite):
            return old.with_changes(body=body.with_changes(body=[*sorts, *body.body]))
        lines = [cst.SimpleStatementLine([s]) for s in sorts]
        return old.with_changes(body=body.with_changes(body=[*lines, *body.body]))

    return Fix(what, ((loop, rewrite),))


def _assign_equal():
    return cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _with_commas(args):
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [a.with_changes(comma=comma) for a in args[:-1]] + list(args[-1:])


def _keep_parens(old, new):
    if getattr(old, "lpar", ()) and hasattr(new, "lpar"):
        return new.with_changes(lpar=old.lpar, rpar=old.rpar)
    return new


def _with_argument(call, keyword: Optional[str], position: Optional[int], value):
    args = list(call.args)
    positional = 0
    for i, arg in enumerate(args):
        named = keyword is not None and arg.keyword is not None and arg.keyword.value == keyword
        if named or (arg.keyword is None and not arg.star and position is not None and positional == position):
            args[i] = arg.with_changes(value=value)  # an explicit None
            return call.with_changes(args=args)
        if arg.keyword is None and not arg.star:
            positional += 1
    plain = all(a.keyword is None and not a.star for a in args)
    if keyword is None or (position == positional == 0 and plain):
        new = cst.Arg(value)
    else:
        new = cst.Arg(value, keyword=cst.Name(keyword), equal=_assign_equal())
    return call.with_changes(args=_appended(call, args, new))


def _appended(call, args, new):
    """``args`` + ``new``, in the call's own layout: one argument per line stays so, a
    trailing comma stays trailing."""
    if not args:
        return [new]
    last = args[-1]
    separator = _separator(call)
    if isinstance(last.comma, cst.Comma):  # a trailing comma: the new argument takes it
        new = new.with_changes(comma=last.comma)
    # ``f(\n    a, b\n)``: the line break before ``)`` follows the new last argument.
    new = new.with_changes(whitespace_after_arg=last.whitespace_after_arg)
    last = last.with_changes(comma=separator, whitespace_after_arg=cst.SimpleWhitespace(""))
    return args[:-1] + [last, new]


def _separator(call):
    """The comma between arguments: ``, `` or, in a multi-line call, one that ends the line."""
    if isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        return cst.Comma(whitespace_after=call.whitespace_before_args)
    for arg in call.args[:-1]:
        comma = arg.comma
        if isinstance(comma, cst.Comma) and isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace):
            return comma
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
