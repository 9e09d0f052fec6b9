"""DET103's environments: ``env = gym.make(...)`` reset without a seed (the env's own RNG).

A gymnasium (or gym >= 0.22) environment's ``np_random`` is created at the first ``reset()``:
from the seed given, else from OS entropy; global seeding never reaches it.  Its documentation:
reset "should be called with a seed right after initialization and then never again".  So the
first reset takes the seed when it runs once; when every reset is inside the episode loop, the
fix seeds the environment once, right after it is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Optional, Tuple

from ..._lazy import cst

from ...analysis.args import MISSING, find_arg
from ...analysis.body import scope_body
from ...analysis.nodes import named_parameters
from . import edits
from ...tables.rng_objects import ENV_MAKERS, ENV_SEEDING_METHODS
from ...tables.seeding import named_like_seeding

if TYPE_CHECKING:
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite


def unseeded_environments(ctx: FileContext) -> Iterator[Tuple[CallSite, List[CallSite]]]:
    """(the ``make`` call, the resets of its variable in the same body) for each environment
    reset without a seed and never seeded otherwise."""
    for site in ctx.calls_to(ENV_MAKERS):
        name = _assigned_name(ctx, site)
        if name is None:
            continue
        uses = [other for other in ctx.index.calls if other.fn is site.fn and other.order > site.order
                and isinstance(other.node.func, cst.Attribute) and _receiver(other.node.func) == name]
        resets = [u for u in uses if u.method_name == "reset"]
        if not resets or any(u.method_name in ENV_SEEDING_METHODS for u in uses):
            continue  # handed on (a library seeds it, or not), or seeded the old way
        if any(find_arg(r.node, "seed", 0) is not MISSING for r in resets):
            continue
        if _handed_to_seeding(ctx, site, name):
            continue  # ``set_seed(seed, env)``: a seeding helper is given the environment
        yield site, resets


def _handed_to_seeding(ctx: FileContext, site: CallSite, name: str) -> bool:
    """The environment is passed to a function named for seeding (``set_seed(config.seed, env)``,
    which calls ``env.seed`` in CORL) in the same body, after it is made."""
    return any(
        other.fn is site.fn and other.order > site.order and named_like_seeding(other.method_name or "")
        and any(isinstance(arg.value, cst.Name) and arg.value.value == name for arg in other.node.args)
        for other in ctx.index.calls
    )


def environment_fix(ctx: FileContext, site: CallSite, resets: List[CallSite]) -> Optional[edits.Fix]:
    """Entry modules: seed the first reset when it runs once, else one seeded reset after ``make``.
    Only where the installed gym (or gymnasium) takes ``reset(seed=...)``: gym < 0.22 has
    ``env.seed`` instead, and a reset with a seed there raises (``rules/common/installed.py``)."""
    if not ctx.facts.is_entry:
        return None
    root = (site.qualname or "").split(".", 1)[0]
    fix = _reset_fix(ctx, site, resets)
    return fix._replace(requires=(("%s.Env.reset" % root, "seed"),)) if fix is not None else None


def _reset_fix(ctx: FileContext, site: CallSite, resets: List[CallSite]) -> Optional[edits.Fix]:
    body = scope_body(ctx, site)
    first = min(resets, key=lambda r: r.order)
    own = _seed_parameter(site)  # ``def evaluate(..., seed=1)``: the function's own seed
    if not _in_loop(body, first.node):
        return edits.set_argument(first.node, "seed", None, own or "{SEED}", "seed the environment's first reset")
    statement = _statement_of(body, site.node)
    if statement is None:
        return None
    name = _assigned_name(ctx, site)

    def rewrite(old, spell):
        line = cst.parse_statement("%s.reset(seed=%s)\n" % (name, own or spell.seed()))
        return cst.FlattenSentinel([old, line])

    return edits.Fix("seed the environment once, after it is made", ((statement, rewrite),))


def _seed_parameter(site: CallSite) -> Optional[str]:
    """``seed`` when the function making the environment takes a parameter of that name."""
    node = site.fn.node if site.fn is not None else None
    if not isinstance(node, cst.FunctionDef):
        return None
    return "seed" if any(param.name.value == "seed" for param in named_parameters(node.params)) else None


def _assigned_name(ctx: FileContext, site: CallSite) -> Optional[str]:
    assign = ctx.index.parents.get(id(site.node))
    if isinstance(assign, cst.Assign) and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name):
        return assign.targets[0].target.value
    return None


def _receiver(func: cst.Attribute) -> Optional[str]:
    return func.value.value if isinstance(func.value, cst.Name) else None


def _in_loop(body, node) -> bool:
    parent = body.parents.get(id(node))
    while parent is not None:
        if isinstance(parent, (cst.For, cst.While)):
            return True
        parent = body.parents.get(id(parent))
    return False


def _statement_of(body, node) -> Optional[cst.SimpleStatementLine]:
    parent = body.parents.get(id(node))
    while parent is not None and not isinstance(parent, cst.SimpleStatementLine):
        parent = body.parents.get(id(parent))
    return parent
