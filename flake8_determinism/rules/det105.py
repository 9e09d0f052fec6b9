from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator, Optional

from .._lazy import cst

from ..analysis.args import MISSING, UNKNOWN, absent_or_none, find_arg, literal
from ..analysis.nodes import code_children, dotted_name
from ..analysis.scopes import lookup
from ..tables import seeding as T
from ..tables.rng_objects import UNSEEDED_CONSTRUCTORS
from .base import Report, Rule

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
    ``os.urandom``, ``os.getpid``, ``secrets`` or ``uuid`` -- also through a
    variable assigned from one in the same scope.  Such a call still counts as
    seeding for the draw rules; the problem is reported once, here.

    Why it matters: the run is seeded, but with a value no one can reproduce.

    Fix: use a fixed seed (log it, take it from the config).
    """

    code = "DET105"
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
            "(catalog §2)",
        ),
        (
            "mmengine ``set_random_seed(None)`` draws a random seed; detectron2 ``seed_all_rng(None)`` "
            "builds one from the pid, the clock and ``os.urandom``.",
            "mmengine 0.10.7 mmengine/runner/utils.py; detectron2/utils/env.py (catalog §8)",
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
        # An mmengine Runner or a user-named seed function; a *seed* call without a
        # seed (``torch.seed()``, ``set_random_seed(None)``); or a seed call or RNG
        # constructor in a file that names an entropy source.
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
                seed = self._seed_argument(ctx, site, name)
                if seed is not None:
                    source = self._entropy_source(ctx, site, seed, depth=0)
                    if source is not None:
                        yield self._report(ctx, site, "takes its seed from %s(), which differs every run" % source)

    @staticmethod
    def _report(ctx: FileContext, site: CallSite, problem: str) -> Report:
        return Report(
            site.node,
            "%s() %s, so the run cannot be repeated — seed with a fixed, logged value (e.g. SEED = 0)"
            % (ctx.spelling(site), problem),
        )

    @staticmethod
    def _seed_argument(ctx: FileContext, site: CallSite, name: Optional[str]):
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

    def _entropy_source(self, ctx: FileContext, site: CallSite, expr, depth: int) -> Optional[str]:
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Call):
                name = ctx.resolve(node.func, site)
                if name and (name.startswith(T.ENTROPY_PREFIXES) or name in T.ENTROPY_CALLS):
                    return dotted_name(node.func) or name
            if isinstance(node, cst.Name) and depth < 2:
                binding = lookup(site.scope, node.value, site.order)
                if binding is not None and binding.kind == "assign" and binding.scope is site.scope:
                    if binding.value is not None and binding.order < site.order:
                        found = self._entropy_source(ctx, site, binding.value, depth + 1)
                        if found:
                            return found
                continue
            stack.extend(code_children(node))
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


_SEED_CALL_OR_ALIAS = re.compile(r"seed\w*\s*(?:\(|as\s)")
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
