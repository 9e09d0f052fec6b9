"""The run's seeding fix and what a seed cannot settle: shared by the seeding rules (DET100-DET107),
DET103, DET303 and the seeding block the codemod writes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

from ..._lazy import cst
from ...analysis.args import MISSING, UNKNOWN, find_arg, literal
from ...analysis.calls import fallback_seed
from ...analysis.body import scope_body
from ...analysis.nodes import contains, dotted_name
from ...tables import seeding as T
from ...tables.rng_objects import STUDY_FACTORIES, UNSEEDED_CONSTRUCTORS
from ...tables.seeding import (
    ESTIMATOR_SEED_KEYWORD,
    SEEDABLE_ROOTS,
    SEEDING_KEYWORDS,
    is_estimator_config,
)
from . import edits

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite
    from .edits import Fix

# Trials run by these run in several workers: one seeded sampler per study cannot cover them.
PARALLEL_ROOTS = frozenset({"dask", "distributed", "ray", "joblib", "multiprocessing", "concurrent"})


def seeding_fix(ctx: FileContext, extra: Sequence[Fix] = ()) -> Optional[Fix]:
    """The canonical seeding block, in an entry module only: in a library module the seed is
    the caller's job (docs/contract.md).  None in a module importing no framework the block can seed
    (an MXNet or JAX script).  A TensorFlow Estimator's ``RunConfig`` built here gets
    ``tf_random_seed=``: the Estimator builds its model in a graph of its own, which the
    default graph's seed never reaches.  ``extra``: what else the fix of the run's cause does
    (``cause_fix.run_cause_fix``: its DataLoaders' ``generator=``, deterministic mode)."""
    if not ctx.facts.is_entry or not ctx.index.imported_roots & SEEDABLE_ROOTS:
        return None
    if seeding_changes_nothing(ctx):
        return None
    block = edits.module_fix("seed every RNG at start-up", edits.SEEDING)
    configs = estimator_configs(ctx)
    reseeding = reseeding_builders(ctx)
    if not configs and not reseeding and not extra:
        return block
    what = "seed every RNG at start-up, and what seeds on its own" if configs or reseeding else \
        "seed every RNG at start-up, and: " + "; ".join(fix.what for fix in extra)
    return edits.combine(what, [block] + [
        edits.set_argument(site.node, ESTIMATOR_SEED_KEYWORD, None, "{SEED}", "pass tf_random_seed=SEED")
        for site in configs
    ] + [
        edits.set_argument(site.node, keyword, None, "{SEED}", "pass %s=SEED" % keyword)
        for site, keyword in reseeding
    ] + list(extra))


def seeding_changes_nothing(ctx: FileContext) -> bool:
    """Modules whose reports a seed would not answer (reported, not fixed): an Optuna study whose
    trials run in several workers or resume from a storage (no seed reproduces its trials), a
    benchmark script (``bench_gcn.py``: its result is a time)."""
    return shared_study(ctx) or measures_speed(ctx)


def shared_study(ctx: FileContext) -> bool:
    """An Optuna study whose trials run in several workers or resume from a storage
    (``optimizes_in_parallel``): its sampler cannot take one seed."""
    if "optuna" not in ctx.index.imported_roots:
        return False
    return any(True for _ in ctx.calls_to(STUDY_FACTORIES)) and optimizes_in_parallel(ctx)


def reseeding_builders(ctx: FileContext) -> list:
    """(site, keyword) of the calls that seed on their own with a new random seed unless given one
    (``LightningCLI(...)``: ``seed_everything_default=True``): a seed set before them is lost."""
    found = []
    for name, sites in ctx.calls_by_name.items():
        if name not in SEEDING_KEYWORDS:
            continue
        keyword = SEEDING_KEYWORDS[name][0]
        for site in sites:
            value = find_arg(site.node, keyword)
            if not _passes_keywords(site.node) and (value is MISSING or literal(value) == (True, True)):
                found.append((site, keyword))
    return found


def estimator_configs(ctx: FileContext) -> list:
    """The TensorFlow Estimator ``RunConfig(...)`` calls of the module without ``tf_random_seed=``."""
    return [
        site for name, sites in ctx.calls_by_name.items() if is_estimator_config(name)
        for site in sites
        if find_arg(site.node, ESTIMATOR_SEED_KEYWORD) is MISSING and not _passes_keywords(site.node)
    ]


def _passes_keywords(call) -> bool:
    return any(arg.star == "**" for arg in call.args)


def optimizes_in_parallel(ctx: FileContext) -> bool:
    """Trials run in several workers (``study.optimize(..., n_jobs=4)``, dask/ray/joblib tasks,
    processes sharing a ``storage=``, or one run resuming the study a storage keeps):
    each copy of one seeded sampler would suggest the same parameters (and a resumed one would
    start its sequence again); a seed there needs one sampler per worker -- no single right fix."""
    if ctx.index.imported_roots & PARALLEL_ROOTS:
        return True
    if any(find_arg(site.node, "storage") is not MISSING for site in ctx.calls_to(STUDY_FACTORIES)):
        return True  # a shared storage: several worker processes run the same study
    for site in ctx.index.calls:
        if site.method_name == "optimize":
            jobs = find_arg(site.node, "n_jobs")
            if jobs is UNKNOWN or (jobs is not MISSING and literal(jobs) != (True, 1)):
                return True
    return False


def measures_speed(ctx: FileContext) -> bool:
    """A benchmark script (``training_benchmark.py``, ``bench_gcn.py``, one that times its work):
    its result is a time (``ModuleFacts.is_benchmark``)."""
    return ctx.facts.is_benchmark


def seed_argument(ctx: FileContext, site: CallSite, name: Optional[str]):
    """The seed a seeding call or RNG constructor named ``name`` takes, as written; None when it
    takes none or its value cannot be found (DET105 judges it, DET209 follows it)."""
    if name in UNSEEDED_CONSTRUCTORS:
        where = UNSEEDED_CONSTRUCTORS[name]
    elif name in T.SEED_ARGUMENT:
        where = T.SEED_ARGUMENT[name]
    elif name in T.SEED_REQUIRED:
        where = T.SEED_REQUIRED[name]
    elif ctx.facts.call_seeds(site) or site.method_name in T.OBJECT_SEED_METHODS:
        where = ("seed", 0)
    else:
        return None
    value = find_arg(site.node, *where)
    return None if value in (MISSING, UNKNOWN) else value


def seed_calls_on(ctx: FileContext, holder: str) -> list:
    """The module's ``holder.seed(...)`` calls, in source order (``rng.seed(s)``, ``self.rng.seed(s)``
    for ``holder`` ``"rng"``, ``"self.rng"``): where an RNG object made without a seed gets one.
    Setting its whole state counts too (``rng.set_state(np.random.get_state())``, CTGAN's
    ``random_state``; ``Random.setstate``): the entropy it was made with is never drawn from."""
    return [
        site for site in ctx.index.calls
        if isinstance(site.node.func, cst.Attribute) and site.node.func.attr.value in _SEEDING_METHODS
        and dotted_name(site.node.func.value) == holder
    ]


_SEEDING_METHODS = frozenset({"seed", "set_state", "setstate"})


def fallback_seed_draw(ctx: FileContext, site) -> bool:
    """The draw makes a seed only when none is given: ``if seed is None: seed = random.randrange(...)``
    (an assignment under a seed guard), ``seed = seed or random.randint(...)``,
    ``seed = random.randint(...) if seed is None else seed``.  docs/contract.md: one cause, DET105's,
    at the draw -- never also DET101/DET102 for it."""
    body = scope_body(ctx, site)
    parent = body.parents.get(id(site.node))
    while parent is not None and not isinstance(parent, (cst.Assign, cst.SimpleStatementLine)):
        parent = body.parents.get(id(parent))
    if not isinstance(parent, cst.Assign) or len(parent.targets) != 1:
        return False
    target, value, code = ctx.module.code_for_node(parent.targets[0].target), parent.value, ctx.module.code_for_node
    if isinstance(value, cst.BooleanOperation) and isinstance(value.operator, cst.Or):
        return fallback_seed(target, alternative=code(value.left))  # ``seed = seed or draw()``
    if isinstance(value, cst.IfExp):
        return fallback_seed(target, test=code(value.test))  # ``draw() if seed is None else seed``
    return any(fn is site.fn and order < site.order and contains(guard.body, parent)
               and fallback_seed(target, test=code(guard.test)) for guard, _, fn, order in ctx.index.seed_guards)
