from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator, Optional, Tuple

from .._lazy import cst

from ..analysis.args import MISSING, UNKNOWN, absent_or_none, find_arg, literal
from ..analysis.nodes import code_children, contains, dotted_name, own_nodes
from ..analysis.scopes import lookup
from ..tables import seeding as T
from ..analysis.order_free import builtin_name, is_log_call
from ..analysis.options import option_default, option_default_value
from ..analysis.kinds import SALTED, argument_kind
from ..tables.rng_draws import DRAW_FRAMEWORK
from ..tables.rng_objects import UNSEEDED_CONSTRUCTORS
from ..tables.aliases import KNOWN_ROOTS
from ..tables.run_uses import RNG_NAMES
from .common.base import Report, Rule
from .common.seeding import fallback_seed_draw, seed_argument

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite

# mmengine runners built directly: without ``randomness=dict(seed=...)`` they draw a random seed.
_RUNNERS = frozenset({"mmengine.runner.Runner", "mmengine.runner.FlexibleRunner"})


class NonReproducibleSeed(Rule):
    """DET105: the seed itself comes from a nonreproducible source.

    What it does: reports seeding calls that reseed from OS entropy
    (``torch.seed()``, ``torch.cuda.seed(_all)()``, ``Generator.seed()``,
    ``random.seed()``/``np.random.seed()`` with no seed or ``None``, mmengine
    ``set_random_seed(None)``, detectron2 ``seed_all_rng()``), an mmengine
    ``Runner``/``FlexibleRunner`` built without ``randomness=dict(seed=...)`` (its
    default seed is None: a random one), and any seeding call or RNG
    constructor whose seed is built from ``time.*``, ``datetime.now``,
    ``os.urandom``, ``os.getpid``, ``secrets`` or ``uuid``, from ``hash()`` of a
    string (salted per process), or from a draw of a global RNG that is not
    seeded yet (``opt.manualSeed = random.randint(1, 10000)``) -- also through a
    variable or an ``args.x`` attribute assigned earlier in the same body, an
    option's ``default=``, or a project function that returns such a value
    (``torch.manual_seed(utils.random_seed())``, asked of the project model from
    the entry module).  One report per source, at its first seeding call.  Not
    a fallback drawn only when no seed is given and logged (``if opt.manualSeed is
    None: opt.manualSeed = random.randint(...)`` with ``print(opt.manualSeed)``, or
    the options holding it recorded: ``wandb.config.update(args)``, ``print(vars(args))``):
    passing the logged seed repeats the run.  Such a call still counts as
    seeding for the draw rules; the problem is reported once, here.

    Why it matters: the run is seeded, but with a value no one can reproduce.

    Fix: use a fixed seed (log it, take it from the config).
    """

    code = "DET105"
    cross_module = True  # an entry module seeding with what a project function returns
    invalid = (
        "import torch\ntorch.seed()\n",
        "import random, time\nrandom.seed(time.time())\n",
        "import time\nimport numpy as np\nseed = int(time.time())\nnp.random.seed(seed)\n",
    )
    valid = (
        "import random\nrandom.seed(0)\n",
        "import lightning as L\nL.seed_everything()\n",
        "import torch\ng = torch.Generator()\ng.manual_seed(0)\n",
    )
    sources = (
        (
            "``torch.seed()`` sets the seed to a non-deterministic random number on all devices.",
            "https://docs.pytorch.org/docs/stable/generated/torch.seed.html",
        ),
        (
            "``random.seed()`` / ``random.seed(None)`` seeds from the current time or the OS.",
            "https://docs.python.org/3/library/random.html#random.seed",
        ),
        (
            "``np.random.seed()`` with no seed reseeds from OS entropy (``seed=None``).",
            "https://numpy.org/doc/stable/reference/random/legacy.html#numpy.random.RandomState "
            "(facts §2)",
        ),
        (
            "``hash()`` of ``str`` and ``bytes`` is salted with an unpredictable random value per "
            "process unless ``PYTHONHASHSEED`` is set.",
            "https://docs.python.org/3/reference/datamodel.html#object.__hash__",
        ),
        (
            "mmengine ``set_random_seed(None)`` draws a random seed; detectron2 ``seed_all_rng(None)`` "
            "builds one from the pid, the clock and ``os.urandom``.",
            "mmengine 0.10.7 mmengine/runner/utils.py; detectron2/utils/env.py (facts §8)",
        ),
    )
    fix_description = (
        "Only you know which fixed seed the run should use. Pick one, put it in the config and "
        "log it."
    )
    fixed = (
        "import torch\n\nSEED = 0  # fixed; keep it in the run's config and log it\n"
        "torch.manual_seed(SEED)\n"
    )

    def might_fire(self, text, settings) -> bool:
        if self._fires_without_draws(text, settings):
            return True
        # ``random.seed(hash(name))``, a seed drawn from an RNG not seeded yet: the second stage
        # looks at the tree for a seed made by a call.
        return bool(text.search(_SEED_CALL_OR_ALIAS)) and text.has_any(_DRAW_WORDS | {"hash"})

    def might_fire_in(self, shape, settings) -> bool:
        if not super().might_fire_in(shape, settings):
            return False
        whole = shape.whole
        if whole is not None and self._fires_without_draws(whole, settings):
            return True
        return _seed_from_call(shape.code.text)

    def might_fire_through_project(self, text, settings) -> bool:
        return super().might_fire_through_project(text, settings) and text.search(_SEED_CALL_OR_ALIAS)

    @staticmethod
    def _fires_without_draws(text, settings) -> bool:
        """An mmengine Runner or a user-named seed function; a *seed* call without a seed
        (``torch.seed()``, ``set_random_seed(None)``); or a seed call or RNG constructor in a
        file that names an entropy source."""
        if ("Runner" in text.text and "mmengine" in text) or settings.seed_functions:
            return True
        seeding = text.search(_SEED_CALL_OR_ALIAS)
        if seeding and text.search(_SEED_CALL_WITHOUT_SEED):
            return True
        return (
            bool(seeding or text.has_any(_CONSTRUCTOR_WORDS)) and text.has_any(_ENTROPY_WORDS)
            and text.search(_ENTROPY_CALL)
        )

    def check(self, ctx: FileContext) -> Iterator[Report]:
        sources_reported: set = set()
        for site in ctx.index.calls:
            name = ctx.qualname(site)
            if name in T.ALWAYS_NONDETERMINISTIC:
                yield self._report(ctx, site, "reseeds from OS entropy")
            elif name in T.SEED_REQUIRED and absent_or_none(site.node, *T.SEED_REQUIRED[name]):
                yield self._report(ctx, site, "has no seed, so it seeds from OS entropy or the clock")
            elif name in _RUNNERS and self._runner_seed_missing(ctx, site):
                yield Report(
                    site.node,
                    "%s() sets no randomness seed, so mmengine picks a random one every run"
                    " — pass randomness=dict(seed=SEED)" % ctx.spelling(site),
                )
            else:
                seed = seed_argument(ctx, site, name)
                found = self._entropy_source(ctx, site, seed, depth=0) if seed is not None else None
                if found is not None and found[1] not in sources_reported:
                    # One report per source: ``seed = int(time.time())`` feeding random, NumPy and
                    # torch is one cause, reported at its first seeding call -- or at the draw, for
                    # a seed drawn when none is given (docs/contract.md: one cause, at the draw).
                    sources_reported.add(found[1])
                    drawn = ctx.site_of(found[2])
                    if drawn is not None and fallback_seed_draw(ctx, drawn):
                        yield Report(drawn.node, "a seed drawn when none is given: %s, so the run cannot be"
                                     " repeated — log the drawn seed, or seed with a fixed value (e.g. SEED = 0)"
                                     % found[0])
                    else:
                        yield self._report(ctx, site, "takes its seed from %s" % found[0])

    @staticmethod
    def _report(ctx: FileContext, site: CallSite, problem: str) -> Report:
        return Report(
            site.node,
            "%s() %s, so the run cannot be repeated — seed with a fixed, logged value (e.g. SEED = 0)"
            % (ctx.spelling(site), problem),
        )

    def _entropy_source(self, ctx: FileContext, site: CallSite, expr, depth: int) -> Optional[Tuple[str, int]]:
        """(what the seed comes from, id of the expression holding it) when ``expr`` is built from
        an entropy source, from ``hash()`` of a string, or from a draw of a global RNG not seeded
        yet -- also through a variable or an attribute (``opt.manualSeed = random.randint(...)``)
        assigned earlier in the same body."""
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Call):
                found = self._source_call(ctx, site, node, inside=depth == 0)
                if found is not None:
                    return found, id(expr), node
            if isinstance(node, (cst.Name, cst.Attribute)) and depth < 2:
                value = _assigned_value(ctx, site, node)
                if value is not None and not _logged_fallback(ctx, site, node, value) \
                        and not _zero_taken_for_none(ctx, site, node, value):
                    found = self._entropy_source(ctx, site, value, depth + 1)
                    if found:
                        return found
                if isinstance(node, cst.Name):
                    continue
            stack.extend(code_children(node))
        return None

    @staticmethod
    def _source_call(ctx: FileContext, site: CallSite, call, inside: bool) -> Optional[str]:
        """What ``call`` makes the seed from, if it is not reproducible.  ``inside``: the call is
        in the seeding call's own arguments, so it runs before that seeding."""
        if builtin_name(call, site) == "hash":
            kind = argument_kind(ctx, call.args[0].value, site.scope, site.order) if call.args else None
            if kind in SALTED:  # a str (or a tuple holding one, or a value that may be one)
                return "hash() of %s, which Python salts per process (PYTHONHASHSEED)" % kind
            return None
        name = ctx.resolve(call.func, site)
        if not name:
            return None
        if name.startswith(T.ENTROPY_PREFIXES) or name in T.ENTROPY_CALLS:
            return "%s(), which differs every run" % (dotted_name(call.func) or name)
        spelled = dotted_name(call.func) or name
        framework = DRAW_FRAMEWORK.get(name)
        returned = None
        if framework is None and name.split(".", 1)[0] not in KNOWN_ROOTS:
            returned = _project_draw(ctx, name)  # ``seed = utils.random_seed()``
            if returned is None:
                return None
            where, framework, drawn = returned
            if not framework:
                return "%s(), which returns %s() (%s), different every run" % (spelled, drawn, where)
        if framework is not None:
            draw = site if inside else ctx.site_of(call)  # ``seed_all_rng(np.random.randint(...))``
            if draw is not None and not ctx.facts.seeded_at(framework, draw):
                rng = RNG_NAMES.get(framework, framework)
                if returned is not None:
                    return "%s(), which returns %s() (%s), a draw from %s, which is not seeded yet" % (
                        spelled, returned[2], returned[0], rng)
                return "%s(), a draw from %s, which is not seeded yet" % (spelled, rng)
        return None

    @staticmethod
    def _runner_seed_missing(ctx: FileContext, site: CallSite) -> bool:
        """A ``randomness`` without a seed; or none at all (its default is ``dict(seed=None)``)
        in entry code -- a test or a library function building a Runner leaves it to its caller."""
        call = site.node
        randomness = find_arg(call, "randomness")
        if randomness is MISSING:
            return ctx.facts.in_entry_code(site)
        if randomness is UNKNOWN:
            return False
        if isinstance(randomness, cst.Call) and dotted_name(randomness.func) == "dict":
            if any(a.star for a in randomness.args):
                return False
            seed = find_arg(randomness, "seed")
            return seed is MISSING or literal(seed) == (True, None)
        if isinstance(randomness, cst.Dict):
            for element in randomness.elements:
                if not isinstance(element, cst.DictElement):
                    return False
                if literal(element.key) == (True, "seed"):
                    return literal(element.value) == (True, None)
            return True
        return False


def _project_draw(ctx: FileContext, name: str):
    """What a project function returns, when no run can repeat it (``analysis/project``).  Asked
    only from entry modules, as DET207 does: the run starts there."""
    project = ctx.project if ctx.facts.is_entry else None
    return project.returned_draw(name) if project is not None else None


def _assigned_value(ctx: FileContext, site: CallSite, node):
    """The value last assigned, earlier in the same body, to the name or ``a.b`` attribute."""
    if isinstance(node, cst.Name):
        binding = lookup(site.scope, node.value, site.order)
        if binding is not None and binding.kind == "assign" and (
                binding.scope is site.scope
                # ``global start`` ... ``start = random.randint(...)`` in this same function
                or (node.value in site.scope.globals and site.fn is not None and contains(site.fn.node, binding.node))):
            if binding.value is not None and binding.order < site.order:
                return binding.value
        return None
    target = dotted_name(node)
    if not target:
        return None
    body = site.fn.node if site.fn is not None else None
    value = None
    for assignment in ctx.index.assignments:
        if assignment.order >= site.order:
            break
        if (assignment.fn.node if assignment.fn is not None else None) is body and assignment.value is not None \
                and dotted_name(assignment.target) == target:
            value = assignment.value
    if value is None:
        value = option_default(ctx, node)
    return value if isinstance(value, cst.CSTNode) else None  # a flag's default is no expression


def _logged_fallback(ctx: FileContext, site: CallSite, holder, value) -> bool:
    """``if opt.manualSeed is None: opt.manualSeed = random.randint(1, 10000)`` then
    ``print("Random Seed:", opt.manualSeed)``: a seed drawn only when none is given, and logged (in
    the same body, before or after the seeding) or returned to the caller, so that the run can be
    repeated by passing it -- chosen on purpose (PyTorch's DCGAN example, MONAI's MAISI scripts).
    A seed drawn every run, or never shown, stays reported."""
    spelled = ctx.module.code_for_node(holder)
    guarded = any(contains(guard.body, value) and spelled in ctx.module.code_for_node(guard.test)
                  for guard, _, fn, order in ctx.index.seed_guards if order < site.order and fn is site.fn)
    # ``seed = random.randint(0, 99999) if seed is None else seed``: the same fallback in one line
    fallback = isinstance(value, cst.IfExp) and "seed" in ctx.module.code_for_node(value.test).lower()
    if not (guarded or fallback):
        return False
    # ``print(args.seed)``; or the whole namespace holding it: ``print(vars(args))``,
    # ``wandb.config.update(args)``, ``wandb.init(config=args)``
    base = spelled.split(".", 1)[0] if "." in spelled else None
    whole = {base, "vars(%s)" % base, "%s.__dict__" % base} if base else set()
    logged = any(
        log.fn is site.fn and (is_log_call(log.node, log) or ctx.qualname(log) in T.RUN_RECORDERS)
        and any(spelled in text or text in whole
                for text in (ctx.module.code_for_node(arg.value) for arg in log.node.args))
        for log in ctx.index.calls
    )
    return logged or _returned(site, spelled)


def _zero_taken_for_none(ctx: FileContext, site: CallSite, holder, value) -> bool:
    """``if not args.seed: args.seed = int(time.time())`` with ``--seed`` defaulting to 0: the
    cause is the test that takes 0 for no seed, DET109's report (its fix removes this draw)."""
    if not isinstance(holder, cst.Attribute) or option_default_value(ctx, holder) != (True, 0):
        return False
    spelled = ctx.module.code_for_node(holder)
    return any(isinstance(guard.test, cst.UnaryOperation) and isinstance(guard.test.operator, cst.Not)
               and ctx.module.code_for_node(guard.test.expression) == spelled and contains(guard.body, value)
               for guard, _, fn, order in ctx.index.seed_guards if order < site.order and fn is site.fn)


def _returned(site: CallSite, spelled: str) -> bool:
    """The function returns the seed it drew (``return random_seed``): its caller logs or keeps it."""
    if site.fn is None:
        return False
    return any(isinstance(node, cst.Return) and isinstance(node.value, cst.Name) and node.value.value == spelled
               for node in own_nodes([site.fn.node.body]))


_SEED_CALL_OR_ALIAS = re.compile(r"seed\w*\s*(?:\(|as\s)")
_DRAW_WORDS = frozenset(name.rsplit(".", 1)[-1] for name in DRAW_FRAMEWORK)
_CONSTRUCTOR_WORDS = frozenset(n.rsplit(".", 1)[-1] for n in UNSEEDED_CONSTRUCTORS)
_SEED_CALL_WITHOUT_SEED = re.compile(r"seed\w*\s*\(\s*(?:\)|None\b|seed\s*=\s*None\b|a\s*=\s*None\b)")
# An entropy source is called somewhere: one of its functions' names right before "(".
_ENTROPY_CALL = re.compile(
    r"\b(?:time|time_ns|perf_counter|perf_counter_ns|monotonic|monotonic_ns|process_time|thread_time|now|utcnow|"
    r"today|urandom|getpid|uuid[1345]?|token_\w+|randbits|randbelow|choice|SystemRandom)\s*\("
)
# Words without which no seed can come from an entropy source (T.ENTROPY_PREFIXES, T.ENTROPY_CALLS).
_ENTROPY_WORDS = frozenset(p.split(".")[0] for p in T.ENTROPY_PREFIXES) | frozenset(
    name.split(".")[i] for name in T.ENTROPY_CALLS for i in (-1, -2) if name.split(".")[i] not in ("os", "random")
)


# -- pre-check (second stage: the text and the ``ast`` tree flake8 built) --
_SEEDING_CALL = re.compile(r"seed\w*\s*\(([^)]*)\)", re.IGNORECASE)
_DEFAULT_CALL = re.compile(r"add_argument\([^)]*seed[^)]*default\s*=\s*[^,)]*\(", re.IGNORECASE)
_HELD_NAME = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*(?:[,)=]|$)")


def _seed_from_call(text: str) -> bool:
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
