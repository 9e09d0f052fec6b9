"""The run's reports: one per cause (an RNG the run never seeds, or seeds only after a use), and
DET100's "seeds nothing at all" (docs/contract.md, "One report per cause").  ``runs.py`` builds
the run; this module words what is wrong with it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, Optional, Tuple

from ..._lazy import cst
from ...analysis.args import seed_arguments
from ...analysis.options import option_destination
from ...tables import seeding as T
from ...tables.run_uses import MS_INIT, RNG_NAMES
from ...tables.stochastic import KERAS
from .cause_fix import cause_hint
from .runs import FRAMEWORKS_OF, Run, run_of

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext

# The RNGs of a rule that reports several, named together.
GROUP_NAMES = {"DET106": "TensorFlow's and Keras's global seeds", "DET107": "MindSpore's seeds"}
SEED_CALLS = {
    T.RANDOM: "random.seed(SEED)",
    T.NUMPY: "np.random.seed(SEED)",
    T.TORCH: "torch.manual_seed(SEED)",
    T.TF: "keras.utils.set_random_seed(SEED)",
    KERAS: "keras.utils.set_random_seed(SEED)",
    T.MS: "mindspore.set_seed(SEED)",
    T.MS_DATASET: "mindspore.set_seed(SEED)",
    MS_INIT: "mindspore.set_seed(SEED)",
}


SEED, MOVE = "seed", "move"  # how a cause report is fixed: seeding the run, moving its seeding up


def cause_reports(ctx: FileContext, code: str) -> Iterator[Tuple[object, str, str, str]]:
    """(node, message, fix kind, framework) for each report of a seeding rule in the entry
    module's run; the kind is SEED, MOVE or "".  A use before the run's seeding is fixed by
    moving code, and one in a spawned process by seeding there: another seeding block would
    fix neither."""
    run = run_of(ctx)
    if run is None or seeds_nothing(run):
        return
    frameworks = FRAMEWORKS_OF[code]
    unseeded = run.unseeded(frameworks)
    if all(use.covered for use in unseeded):
        return  # nothing, or only uses another report's fix removes
    spawned = [use for use in unseeded if use.spawned is not None]
    if spawned:  # a process of its own: one report, for what it draws unseeded
        first = spawned[0]
        rng = RNG_NAMES.get(first.framework, first.framework)
        yield first.node, (
            "%s is never seeded in the processes torch.multiprocessing.spawn starts with %s(), which do not inherit"
            " the parent's seed; it %s — seed it at the start of %s()" % (
                rng, first.spawned, run.named(spawned), first.spawned)
        ), SEED, first.framework
        unseeded = [use for use in unseeded if use.spawned is None]
        if all(use.covered for use in unseeded):
            return
    if not any(run.seeded_in_run(fw) for fw in frameworks):
        first = unseeded[0]
        yield first.node, "%s never seeded in this run; %s %s — seed %s at start-up: %s%s" % (
            _rng_names(code, unseeded), "they" if _several(unseeded) else "it", run.named(unseeded),
            "them" if _several(unseeded) else "it", SEED_CALLS[first.framework],
            cause_hint(ctx, run, unseeded) if code == "DET104" else "",
        ), SEED, first.framework
        return
    # One report per RNG and function, at its first use there before the seeding: moving the
    # seeding above that use fixes the function's later ones too (HateXplain builds one of five
    # models in branches before it).  Uses in other functions may have seedings of their own.
    early: Dict[tuple, list] = {}
    for use in unseeded:
        if use.deferred or use.covered or _draws_the_seed(ctx, use.node):
            continue
        site = ctx.site_of(use.node)
        key = (use.framework, id(site.fn.node) if site is not None and site.fn is not None else
               (None if site is not None else id(use.node)))
        if all(other.node is not use.node for other in early.get(key, ())):
            early.setdefault(key, []).append(use)
    for (framework, _), uses in early.items():
        use = uses[0]
        verb, _, spelled = use.what.partition(" (")
        detail = "" if use.local else " (%s at %s)" % (spelled[:-1], use.where)
        lines = sorted(set(run.lines_of([other.node for other in uses[1:]])))
        more = "" if len(uses) == 1 else " (and %d more before it, at %s %s)" % (
            len(uses) - 1, "line" if len(lines) == 1 else "lines", ", ".join(map(str, lines)))
        yield use.node, (
            "%s %s%s with %s before the run seeds it%s: the values change every run — seed first, or move this"
            " after the seeding" % (_spelled_call(use.node), verb, detail, RNG_NAMES.get(framework, framework), more)
        ), MOVE, framework


def _draws_the_seed(ctx: FileContext, node) -> bool:
    """``opt.manualSeed = random.randint(1, 10000)`` then ``random.seed(opt.manualSeed)``: the
    draw is the seed itself (DET105's case when nothing seeded it), not a use to move after it."""
    parent = ctx.index.parents.get(id(node))
    option = _option_holding(ctx, node, parent)
    if option is not None:  # ``add_argument("--seed", default=random.randint(...))``
        def holds(value) -> bool:
            return isinstance(value, cst.Attribute) and value.attr.value == option
    elif isinstance(parent, cst.Assign) and len(parent.targets) == 1 \
            and isinstance(parent.targets[0].target, (cst.Name, cst.Attribute)):
        spelled = ctx.module.code_for_node(parent.targets[0].target)

        def holds(value) -> bool:
            return ctx.module.code_for_node(value) == spelled
    else:
        return False
    for site in ctx.index.calls:
        if site.node.args and ctx.facts.call_seeds(site):
            if any(holds(arg.value) for arg in seed_arguments(site.node) if not arg.star):
                return True
    return False


def _option_holding(ctx: FileContext, node, parent) -> Optional[str]:
    """The destination of the option whose ``default=`` the node is."""
    call = ctx.index.parents.get(id(parent)) if isinstance(parent, cst.Arg) else parent
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "add_argument"):
        return None
    if any(arg.value is node and arg.keyword is not None and arg.keyword.value == "default" for arg in call.args):
        return option_destination(call)
    return None


def _several(uses) -> bool:
    return len({use.framework for use in uses}) > 1


def _rng_names(code: str, uses) -> str:
    """``torch's RNG is``, ``MindSpore's seeds are``."""
    if _several(uses):
        return GROUP_NAMES[code] + " are"
    return RNG_NAMES.get(uses[0].framework, uses[0].framework) + " is"


def _spelled_call(node) -> str:
    from ...analysis.nodes import dotted_name

    if isinstance(node, cst.ImportFrom):
        return "importing from %s" % ("." * len(node.relative) + dotted_name(node.module))
    if isinstance(node, cst.Import):
        return "importing %s" % ", ".join(dotted_name(alias.name) for alias in node.names)
    spelled = dotted_name(getattr(node, "func", None))
    return "%s()" % spelled if spelled else "this call"


def seeds_nothing(run: Run) -> bool:
    """DET100's case: a run that seeds no RNG at all and trains, or uses several RNGs: one
    report for the run replaces the per-RNG reports (one cause, one fix: seed at start-up).
    A run that uses one RNG gets that RNG's report."""
    if run.ctx.facts.seeds_anything():
        return False
    used = sum(
        any(not use.covered for use in run.unseeded(frameworks)) for frameworks in FRAMEWORKS_OF.values()
    )
    return run.trains or used >= 2


def unseeded_summary(run: Run) -> str:
    """``torch's RNG initializes weights (nn.Linear) at models.py:12; NumPy's global RNG draws ...``."""
    parts = []
    for code, frameworks in FRAMEWORKS_OF.items():
        uses = run.unseeded(frameworks)
        if uses:
            if _several(uses):  # ``TensorFlow's and Keras's global seeds: the run draws ...``
                parts.append("%s: the run %s" % (GROUP_NAMES[code], run.named(uses)))
            else:
                parts.append("%s %s" % (RNG_NAMES.get(uses[0].framework, uses[0].framework), run.named(uses)))
    return "; ".join(parts)
