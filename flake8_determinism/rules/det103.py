from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional

from .._lazy import cst

from ..analysis.args import UNKNOWN, MISSING, find_arg, is_none, literal
from ..analysis.nodes import dotted_name, named_parameters, self_attribute
from ..analysis.scopes import enclosing_class, lookup
from ..tables.rng_objects import (
    ALBUMENTATIONS_COMPOSE, ALBUMENTATIONS_CONTAINERS, ALBUMENTATIONS_DETERMINISTIC, ALBUMENTATIONS_DISTRIBUTION,
    ALBUMENTATIONS_OWN_RNG_SINCE, ALBUMENTATIONS_REMOVED, ALBUMENTATIONS_REMOVED_PREFIX, ALBUMENTATIONS_SEEDING_METHODS,
    ALWAYS_UNSEEDED, DEFAULT_SAMPLER, STUDY_FACTORIES, UNSEEDED_CONSTRUCTORS,
)
from .common import edits
from .common.base import Report, Rule, last_parts
from .common.seeding import optimizes_in_parallel, seed_calls_on
from .common.monai_transforms import unseeded_monai_uses
from .common.environments import environment_fix, unseeded_environments

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


class UnseededRngObject(Rule):
    """DET103: an RNG object is created without a seed.

    What it does: reports ``np.random.default_rng()``, ``RandomState()``,
    ``SeedSequence()``, bit generators such as ``PCG64()`` (so
    ``Generator(PCG64())`` is reported once, at ``PCG64()``), ``random.Random()``,
    each also with an explicit ``None`` seed, and
    ``tf.random.Generator.from_non_deterministic_state()``.  ``torch.Generator()``
    is not reported: it starts from a fixed default seed; nor an object stored on
    ``self`` that a method of its class seeds (``self.rng.seed(s)`` in gym's
    ``seed(self, s)``).  Also a gymnasium/gym environment (``env = gym.make(...)``)
    whose resets in that function all pass no seed and that is never seeded
    with ``env.seed(...)``: its own RNG is created at the first reset.  Optuna:
    a sampler built without ``seed=``, and ``optuna.create_study()`` without
    ``sampler=`` (its default ``TPESampler()`` is unseeded; not with
    ``directions=``, whose default sampler differs between versions).  albumentations: a
    ``Compose`` without ``seed=`` where the installed release (>= 1.4.21; not installed:
    assumed current) gives each ``Compose`` its own RNG.  MONAI: a ``Rand*`` transform that
    nothing seeds -- not ``set_random_state``, not a ``Compose`` built after
    ``set_determinism(seed)``, not ``monai.data.DataLoader`` -- iterated by a torch
    ``DataLoader`` (with worker processes or not: a ``worker_init_fn`` reseeding
    ``random``/NumPy does not reach the transforms' own states) or applied directly
    (``train_transforms(sample)``); one report per transform.

    Why it matters: an unseeded RNG object pulls fresh OS entropy, and
    ``np.random.seed`` does not affect it, so global seeding cannot save it.

    Fix: pass a seed (``default_rng(SEED)``) or a seed derived from one
    (``SeedSequence(SEED).spawn(n)``); an environment: ``reset(seed=SEED)`` at
    its first reset when that runs once, else ``env.reset(seed=SEED)`` once,
    right after the environment is made (resets in the episode loop stay as
    they are: seeding each would replay one episode); a study:
    ``sampler=optuna.samplers.TPESampler(seed=SEED)``; a ``Compose``: ``seed=SEED``
    (where the installed albumentations takes it).
    """

    code = "DET103"
    fixes = "safe"
    # Environments: the module names gym or gymnasium (``make`` alone is in every other file).
    triggers = last_parts(UNSEEDED_CONSTRUCTORS) | last_parts(ALWAYS_UNSEEDED) | frozenset(
        {"gym", "gymnasium", "create_study", ALBUMENTATIONS_DISTRIBUTION, "monai"})
    invalid = (
        "import numpy as np\n\nrng = np.random.default_rng()\nprint(rng.random(3))\n",
        "import numpy as np\nrng = np.random.default_rng()\n",
        "import random\nr = random.Random(None)\n",
        "from numpy.random import Generator, PCG64\ng = Generator(PCG64())\n",
    )
    valid = (
        "import numpy as np\nrng = np.random.default_rng(0)\n",
        "import torch\ng = torch.Generator()\n",
        "import numpy as np\ndef make(seed):\n    return np.random.default_rng(seed)\n",
        "import numpy as np\ndef make(**kw):\n    return np.random.default_rng(**kw)\n",
    )
    sources = (
        (
            "MONAI's random transforms draw from ``Randomizable.R``, a ``np.random.RandomState()`` made "
            "from OS entropy when MONAI is imported; a ``Compose`` seeds its transforms when it is built "
            "from the seed of the last ``set_determinism`` (``set_random_state(seed=get_seed())``; None "
            "before any), a MONAI ``Dataset`` wraps other transforms in a ``Compose``; "
            "``set_random_state()`` or ``monai.data.DataLoader`` (``set_rnd``) seed them; a bare "
            "transform is never reached by ``set_determinism``.",
            "Project-MONAI/MONAI 1.6.1 monai/transforms/transform.py ``Randomizable``, "
            "monai/transforms/compose.py ``Compose.__init__``, monai/data/dataset.py ``Dataset.__init__``, "
            "monai/utils/misc.py ``set_determinism``/``get_seed``, monai/data/dataloader.py",
        ),
        (
            "From albumentations 1.4.21 every ``Compose`` holds ``np.random.default_rng(seed)`` and "
            "``random.Random(seed)`` of its own (``seed=None`` by default: OS entropy); 1.4.20 drew from "
            "the global ``random`` module.",
            "albumentations-team/albumentations albumentations/core/composition.py at tags 1.4.20 and "
            "1.4.21 (``BaseCompose.__init__``, ``set_random_seed``)",
        ),
        (
            "``np.random.default_rng(None)`` pulls fresh, unpredictable entropy from the OS; the "
            "function does not manage a default global instance, so ``np.random.seed`` does not reach "
            "it.",
            "https://numpy.org/doc/stable/reference/random/generator.html#numpy.random.default_rng",
        ),
        (
            "``RandomState(None)`` and bit generators such as ``PCG64(None)`` read ``/dev/urandom`` or "
            "the clock; ``SeedSequence()`` draws random entropy.",
            "https://numpy.org/doc/stable/reference/random/legacy.html#numpy.random.RandomState "
            "(facts §2)",
        ),
        (
            "``random.Random()`` with no seed is seeded from the current time or the OS.",
            "https://docs.python.org/3/library/random.html#random.seed",
        ),
        (
            "gymnasium ``Env.reset(seed=None)``: if the environment has no PRNG yet and no seed is given, "
            "'a seed will be chosen from some source of entropy'; reset 'should (in the typical use case) be "
            "called with a seed right after initialization and then never again'.",
            "gymnasium/core.py ``Env.reset`` and gymnasium/utils/seeding.py ``np_random`` in gymnasium 1.4",
        ),
        (
            "Optuna: ``create_study(sampler=None)`` uses ``TPESampler()``; a sampler's ``seed=None`` gives "
            "``LazyRandomState(None)``, a ``numpy.random.RandomState()`` of its own (OS entropy).",
            "optuna/study/study.py ``Study.__init__`` and optuna/samplers/_lazy_random_state.py in optuna 5.0",
        ),
        (
            "A new ``torch.Generator()`` starts from the fixed seed 67280421310721, so it is not "
            "reported.",
            "c10/core/GeneratorImpl.h in torch 2.13, observed (facts §1.0)",
        ),
    )
    fix_description = (
        "In an entry module, passes the seed: ``np.random.default_rng(SEED)``, ``random.Random(SEED)``, "
        "..., with ``SEED = 0`` defined after the imports; an environment's first reset gets ``seed=SEED`` "
        "(or, when every reset is in the episode loop, ``env.reset(seed=SEED)`` follows ``gym.make``), where the "
        "installed gym takes ``reset(seed=...)``. In a "
        "library module the seed is the caller's job: reported, not changed."
    )

    def check(self, ctx: FileContext) -> Iterator[Report]:
        for site in ctx.calls_to(set(UNSEEDED_CONSTRUCTORS) | ALWAYS_UNSEEDED):
            name = site.qualname
            if name in UNSEEDED_CONSTRUCTORS:
                keyword, position = UNSEEDED_CONSTRUCTORS[name]
                seed = find_arg(site.node, keyword, position)
                if seed is UNKNOWN or (seed is not MISSING and not is_none(seed)):
                    continue
            if _seeded_by_its_class(ctx, site) or _seeded_after(ctx, site):
                continue
            keyword, position = UNSEEDED_CONSTRUCTORS.get(name, ("seed", 0))
            example = "%s(%sSEED)" % (ctx.spelling(site), "" if position == 0 else keyword + "=")
            yield Report(
                site.node,
                "%s() creates an RNG without a seed, so it draws fresh OS entropy every run"
                " (global seeding does not reach it) — pass a seed, e.g. %s" % (ctx.spelling(site), example),
                fix=_fix(ctx, site),
            )
        for site in ctx.calls_to(STUDY_FACTORIES):
            sampler = find_arg(site.node, "sampler")
            if sampler is UNKNOWN or (sampler is not MISSING and not is_none(sampler)):
                continue
            if find_arg(site.node, "directions") is not MISSING:
                continue  # several objectives: the default sampler differs between versions
            yield Report(
                site.node,
                "%s() without sampler= uses TPESampler() with no seed: its own RandomState draws fresh OS"
                " entropy, so the trials differ every run (global seeding does not reach it) — pass"
                " sampler=optuna.samplers.TPESampler(seed=SEED)" % ctx.spelling(site),
                fix=edits.set_argument(site.node, "sampler", None, DEFAULT_SAMPLER, "pass a seeded sampler")
                if ctx.facts.is_entry and not optimizes_in_parallel(ctx) else None,
            )
        composes = list(ctx.calls_to(ALBUMENTATIONS_COMPOSE))
        # (each test below only when the one before passes: the installed version is read last)
        if composes and not _seeded_later(ctx) and not _older_albumentations(ctx) and _albumentations_own_rng(ctx):
            for site in composes:
                seed = find_arg(site.node, "seed")
                if seed is UNKNOWN or (seed is not MISSING and not is_none(seed)) \
                        or not _albumentations_random(ctx, site, site.node):
                    continue
                yield Report(
                    site.node,
                    "%s() without seed= keeps its own RNG (albumentations >= 1.4.21), seeded from OS entropy: the"
                    " augmentations differ every run and global seeding does not reach them — pass seed=SEED"
                    % ctx.spelling(site),
                    fix=edits.set_argument(site.node, "seed", None, "{SEED}", "pass the seed")._replace(
                        requires=((site.qualname, "seed"),)) if ctx.facts.is_entry else None,
                )
        for site, applied in unseeded_monai_uses(ctx):
            if applied:
                message = ("%s() applies a MONAI random transform whose own RandomState nothing seeds (set_determinism"
                           " only seeds a Compose built after it): its draws differ every run — call"
                           " set_determinism(seed=SEED) before building a Compose of them, or"
                           " set_random_state(seed=SEED) on the transform" % _applied(ctx, site))
            else:
                message = ("%s() over a MONAI dataset whose random transforms hold their own RandomState, which nothing"
                           " seeds (a torch DataLoader does not; set_determinism only seeds a Compose built after it):"
                           " the augmentations differ every run — use monai.data.DataLoader, call"
                           " set_determinism(seed=SEED) before building the transforms, or set_random_state(seed=SEED)"
                           " on them" % ctx.spelling(site))
            yield Report(site.node, message)
        for site, resets in unseeded_environments(ctx):
            yield Report(
                site.node,
                "%s() makes an environment whose own RNG is seeded only by reset(seed=...), and every reset"
                " here passes none: its first reset draws fresh OS entropy (global seeding does not reach it)"
                " — call reset(seed=SEED) once, at the first reset" % ctx.spelling(site),
                fix=environment_fix(ctx, site, resets),
            )


def _seeded_after(ctx: FileContext, site) -> bool:
    """``rng = random.Random()`` then ``rng.seed(seed)`` in the same body (open_clip's shard
    shuffle): seeded before it draws, with a seed not ``None``."""
    assign = ctx.index.parents.get(id(site.node))
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 \
            or not isinstance(assign.targets[0].target, cst.Name):
        return False
    for other in seed_calls_on(ctx, assign.targets[0].target.value):
        if other.fn is site.fn and other.order > site.order:
            seed = find_arg(other.node, "a", 0)
            return seed is not MISSING and (seed is UNKNOWN or not is_none(seed))
    return False


def _applied(ctx: FileContext, site) -> str:
    """``augment`` for ``augment(x)``; ``RandFlip(...)`` for ``RandFlip(prob=0.5)(x)``."""
    func = site.node.func
    if isinstance(func, cst.Call):
        return "%s(...)" % (dotted_name(func.func) or "transform")
    return ctx.spelling(site)


def _seeded_later(ctx: FileContext) -> bool:
    """``self.transform.set_random_seed(torch.initial_seed())`` (Ultralytics): seeded after it is made."""
    return any(site.method_name in ALBUMENTATIONS_SEEDING_METHODS for site in ctx.index.calls)


def _older_albumentations(ctx: FileContext) -> bool:
    """The module uses names albumentations removed before 1.4.21: it is written for an older
    release, whose ``Compose`` draws from the global RNGs."""
    for site in ctx.index.calls:
        name = ctx.qualname(site) or ""
        if name.startswith("albumentations."):
            last = name.rsplit(".", 1)[-1]
            if last in ALBUMENTATIONS_REMOVED or last.startswith(ALBUMENTATIONS_REMOVED_PREFIX):
                return True
    return False


def _albumentations_random(ctx: FileContext, site, call, depth: int = 0) -> bool:
    """The Compose (or a transform in it) draws, as far as we can read it: a transform that is
    random at its default ``p``, a ``p`` below 1 (or a variable), a ``OneOf``.  What we cannot read
    (a user's transform class, a list built elsewhere) is no evidence either way: not reported."""
    if not _always_applied(call, site):
        return True
    listed = find_arg(call, "transforms", 0)
    elements = list(_elements(ctx, site, listed, depth)) if listed not in (MISSING, UNKNOWN) else []
    while elements:
        node = elements.pop()
        if isinstance(node, cst.IfExp):  # ``A.RandomResizedCrop(...) if new_api else A.RandomResizedCrop(...)``
            elements += [node.body, node.orelse]
            continue
        name = (ctx.resolve(node.func, site) or "") if isinstance(node, cst.Call) else ""
        if not name.startswith("albumentations."):
            continue
        last = name.rsplit(".", 1)[-1]
        if last in ALBUMENTATIONS_CONTAINERS:
            if depth < 4 and _albumentations_random(ctx, site, node, depth + 1):
                return True
        elif last not in ALBUMENTATIONS_DETERMINISTIC or not _always_applied(node, site):
            return True
    return False


def _always_applied(call, site=None) -> bool:
    """``p`` is absent or 1 -- also a parameter of the enclosing function that defaults to 1
    (``def val_transform(p=1): return Compose([...], p=p)``)."""
    probability = find_arg(call, "p")
    if isinstance(probability, cst.Name) and site is not None and isinstance(site.fn and site.fn.node, cst.FunctionDef):
        for param in named_parameters(site.fn.node.params):
            if param.name.value == probability.value and param.default is not None:
                probability = param.default
    return probability is MISSING or literal(probability) in ((True, 1), (True, 1.0))


def _elements(ctx: FileContext, site, value, depth: int):
    """The transforms a container lists (a list or tuple, also through a variable); what cannot
    be read (a call, a parameter) is returned as it is."""
    if isinstance(value, cst.Name) and depth < 4:
        # every list the name is given in its scope (``T = [...]`` in each branch of an if)
        bindings = site.scope.bindings.get(value.value) or [lookup(site.scope, value.value, site.order)]
        found = []
        for binding in bindings:
            if binding is not None and binding.kind == "assign" and isinstance(binding.value, (cst.List, cst.Tuple)):
                found.extend(element.value for element in binding.value.elements)
        return found or [value]
    if isinstance(value, (cst.List, cst.Tuple)):
        return [element.value for element in value.elements]
    return [value]


def _albumentations_own_rng(ctx: FileContext) -> bool:
    """The installed albumentations keeps an RNG per ``Compose`` (not installed: assume a current
    one); its version is read once, in ``Settings``."""
    version = ctx.settings.albumentations_version
    return version is None or version >= ALBUMENTATIONS_OWN_RNG_SINCE




OPTUNA_SAMPLERS = "optuna.samplers."


def _seeded_by_its_class(ctx: FileContext, site) -> bool:
    """``self.rng = np.random.RandomState()`` in a class whose ``seed(self, s)`` calls
    ``self.rng.seed(s)`` (gym's wrappers): the run seeds it through ``env.seed(...)``."""
    assign = ctx.index.parents.get(id(site.node))
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return False
    attribute = self_attribute(assign.targets[0].target)
    klass = enclosing_class(site.scope) if attribute else None
    if klass is None:
        return False
    return any(other.node.args and enclosing_class(other.scope) is klass
               for other in seed_calls_on(ctx, "self." + attribute))


def _fix(ctx: FileContext, site) -> Optional[edits.Fix]:
    """Pass the module's seed (entry modules: in a library module the seed is the caller's)."""
    if not ctx.facts.is_entry:
        return None
    if site.qualname.startswith(OPTUNA_SAMPLERS) and optimizes_in_parallel(ctx):
        return None  # a study resumed from its storage or shared by workers: one seed repeats the same trials
    if site.qualname in UNSEEDED_CONSTRUCTORS:
        keyword, position = UNSEEDED_CONSTRUCTORS[site.qualname]
        return edits.set_argument(site.node, keyword, position, "{SEED}", "pass the seed")
    func = site.node.func
    if isinstance(func, cst.Attribute) and not site.node.args:  # tf's from_non_deterministic_state()
        receiver = cst.Module([]).code_for_node(func.value)
        return edits.replace(site.node, receiver + ".from_seed({SEED})", "build the generator from the seed")
    return None
