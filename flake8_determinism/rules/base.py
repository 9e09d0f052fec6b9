"""What a rule is: a code, a one-line message, pre-check words, examples, and ``check``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar, Dict, FrozenSet, Iterable, Iterator, NamedTuple, Optional, Tuple

from .._lazy import cst
from ..analysis.body import only_feeds
from ..fix import edits
from ..tables.seeding import ESTIMATOR_SEED_KEYWORD, SEEDABLE_ROOTS, SEEDING_KEYWORDS, is_estimator_config
from ..tables.entry import TRACING_CALLS, TRACING_METHODS

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..fix.edits import Fix
    from ..precheck import ModuleShape, SourceText
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite


class Docstring(NamedTuple):
    """A rule's docstring read as Markdown: the summary line and its labelled sections."""

    summary: str
    what: str
    why: str
    example: str
    fix: str


# Codes are grouped by hundreds (README, "Rules").
FAMILIES = {"1": "seeding", "2": "data order", "3": "kernels", "4": "stochastic layers"}
_LABELS = re.compile(r"^(What it does|Why it matters|Example|Fix):", re.MULTILINE)


def markdown(text: str) -> str:
    """Docstring text (reStructuredText quoting) as Markdown, on one line."""
    text = " ".join(text.split())
    return text.replace("``", "`").replace(" -- ", " — ")


class Report(NamedTuple):
    node: Optional[cst.CSTNode]  # located by its first token; None: use ``line``
    message: str  # without the code
    line: int = 1
    column: Optional[int] = None  # overrides the node's column when set
    fix: Optional[Fix] = None  # what ``determinism-fix`` does about it (``fix/edits.py``); None: not fixed


class Rule:
    """Base class.  Subclasses document themselves ruff-style in their docstring:
    what it does, why it matters, example, fix; and carry ``invalid``/``valid``
    snippets that the test suite lints (Fixit-style)."""

    code: ClassVar[str]
    # Identifiers at least one of which must appear in the file for the rule to
    # be able to fire (the cheap pre-check).  Empty: always run.
    triggers: ClassVar[FrozenSet[str]] = frozenset()
    # Where the rule can fire, for the pre-check's second stage: None (anywhere),
    # "entry" (entry modules only), "draw" (the RNG-draw scope policy).
    precheck_scope: ClassVar[Optional[str]] = None
    invalid: ClassVar[Tuple[str, ...]] = ()
    valid: ClassVar[Tuple[str, ...]] = ()
    # Settings the examples are linted with (``Settings.from_values`` keywords).
    example_settings: ClassVar[dict] = {}
    # What ``determinism-fix`` does with its reports: "safe", "unsafe", "sometimes" (safe or unsafe
    # depending on what it can see) or "" (reported, not changed).  Its reports carry the fix.
    fixes: ClassVar[str] = ""
    # Documentation only (``flake8_determinism/docs.py`` renders ``docs/rules/DETnnn.md`` and
    # ``determinism-fix --explain`` from these; the linter never reads them):
    # the facts the rule rests on, each with its source: (fact, URL or reference).
    sources: ClassVar[Tuple[Tuple[str, str], ...]] = ()
    # What ``determinism-fix`` does with its reports, in words (also why not, when it does not).
    fix_description: ClassVar[str] = ""
    # For rules the codemod does not fix: the first ``invalid`` example fixed by hand.
    fixed: ClassVar[str] = ""
    # Where the rule reports beyond the generic scope (strict mode, target torch version).
    scope_note: ClassVar[str] = ""

    # The rule can report through the project: a run reaching another module's code
    # (``runs.py``), so the pre-check lets an entry module importing a project module through.
    cross_module: ClassVar[bool] = False

    def might_fire(self, text: SourceText, settings) -> bool:
        return not self.triggers or text.has_any(self.triggers)

    def might_fire_through_project(self, text: SourceText, settings) -> bool:
        """The pre-check's first stage for the run: the module imports something."""
        return self.cross_module and settings.project_root.lower() != "none" and "import" in text

    def might_use(self, text: SourceText, settings) -> bool:
        """The pre-check for a run's uses other than the rule's own words (``GlobalDrawRule``)."""
        return False

    def fires_on(self, text: SourceText, settings) -> bool:
        """``might_fire`` or ``might_use`` on the whole text, asked once per text."""
        found = text.fires.get(self.code)
        if found is None:
            found = text.fires[self.code] = self.might_fire(text, settings) or self.might_use(text, settings)
        return found

    def might_fire_in(self, shape: ModuleShape, settings) -> bool:
        """The pre-check's second stage: look for the words only where the rule can fire."""
        scope = self.precheck_scope
        if scope == "entry" and not shape.is_entry:
            return False
        whole = shape.whole
        if whole is not None and not self.fires_on(whole, settings):
            # Through the project only: an entry module importing one of its modules.
            return self.cross_module and shape.is_entry and bool(shape.imports_project)
        library_draw = scope == "draw" and not shape.is_entry and not settings.strict
        if self.might_fire(shape.import_time if library_draw else shape.code, settings):
            return True
        if not shape.is_entry:
            return False
        return self.might_use(shape.code, settings) or (self.cross_module and bool(shape.imports_project))

    def check(self, ctx: FileContext) -> Iterable[Report]:
        raise NotImplementedError

    @classmethod
    def summary(cls) -> str:
        return (cls.__doc__ or "").strip().splitlines()[0]

    @classmethod
    def family(cls) -> str:
        return FAMILIES.get(cls.code[3:4], "other")

    @classmethod
    def describe(cls) -> Docstring:
        """The docstring as Markdown (rule pages, SARIF); a missing section is ""."""
        doc = (cls.__doc__ or "").strip()
        first, _, body = doc.partition("\n")
        summary = markdown(first.split(":", 1)[1] if first.startswith(cls.code + ":") else first)
        body = "\n".join(line.strip() for line in body.splitlines())
        sections: Dict[str, str] = {}
        matches = list(_LABELS.finditer(body))
        for match, following in zip(matches, matches[1:] + [None]):
            end = following.start() if following else len(body)
            sections[match.group(1)] = markdown(body[match.end():end])
        return Docstring(summary.rstrip("."), sections.get("What it does", ""), sections.get("Why it matters", ""),
                         sections.get("Example", ""), sections.get("Fix", ""))


def last_parts(names: Iterable[str]) -> FrozenSet[str]:
    """Pre-check words for a table of qualified names: their last components."""
    return frozenset(n.rsplit(".", 1)[-1].replace("()", "") for n in names)


class GlobalDrawRule(Rule):
    """A global RNG's seeding rule (DET101, DET102, DET104, DET106, DET107).

    In an entry module the rule judges the run (``runs.py``): one report for an RNG the run
    uses and never seeds, a report at each use made before the run seeds it.  A library
    module's draws are its callers' business, except those at import time; strict mode
    reports every draw made while the RNG is unseeded in the module.
    """

    precheck_scope = "draw"
    cross_module = True
    fix_description = (  # the seeding of the run, as for every draw rule
        "Seeds the run where it starts: the ``__main__`` block (or the function it calls, after the "
        "arguments are parsed), module level only in a script without one that no project module imports; "
        "with the run's own seed (``--seed``/``--manualSeed``, ``cfg.seed``, a ``SEED`` constant), else "
        "``SEED = 0``. One line per RNG the run uses: ``random.seed`` and ``np.random.seed`` always, "
        "``torch.manual_seed`` + ``torch.cuda.manual_seed_all``, ``tf.random.set_seed`` "
        "(``tf.set_random_seed`` in TensorFlow 1 code, ``keras.utils.set_random_seed`` for Keras alone), "
        "``mindspore.set_seed``, ``dgl.seed``. A run that seeds some RNGs "
        "itself gets the missing lines right after its own seeding, with its seed; its seeding helper is "
        "called, or completed. A use before the run's seeding: the unsafe fix moves the seeding up. In a "
        "library module the seed is the caller's job: reported, not changed."
    )
    framework: ClassVar[str]
    fix: ClassVar[str]
    rng_name: ClassVar[str]

    def draws(self, ctx: FileContext) -> Iterator[CallSite]:
        raise NotImplementedError

    def might_use(self, text: SourceText, settings) -> bool:
        from .runs import FRAMEWORKS_OF, might_use

        return might_use(text, FRAMEWORKS_OF[self.code])

    def check(self, ctx: FileContext) -> Iterator[Report]:
        from .runs import MOVE, SEED, cause_reports, run_of

        reported = set()
        for node, message, kind, framework in cause_reports(ctx, self.code):
            reported.add(id(node))
            fix = seeding_fix(ctx) if kind == SEED else None
            if kind == MOVE:
                from ..fix.moves import move_seeding_fix

                fix = move_seeding_fix(ctx, node, framework)
            yield Report(node, message, fix=fix)
        if run_of(ctx) is not None and not ctx.settings.strict:
            return  # the run's reports say it all
        for site in self.draws(ctx):
            if id(site.node) in reported or not self.in_scope(ctx, site):
                continue
            if ctx.facts.seeded_at(self.framework, site):
                continue
            if not ctx.settings.strict and only_feeds(ctx, site, TRACING_CALLS, TRACING_METHODS):
                continue  # a dummy input for export or tracing: its values never reach the result
            # Import-time code of a module with a ``__main__`` block runs before the run's
            # seeding (which goes in that block): moving code fixes it, another block would not.
            at_import = site.fn is None and bool(ctx.index.main_guards)
            yield Report(site.node, self.message(ctx, site), fix=None if at_import else seeding_fix(ctx))

    @staticmethod
    def in_scope(ctx: FileContext, site: CallSite) -> bool:
        """Strict: anywhere.  Default, outside a run: import-time code (it runs in every run)."""
        return ctx.settings.strict or ctx.facts.in_entry_code(site)

    def message(self, ctx: FileContext, site: CallSite) -> str:
        when = "is not seeded before this call" if ctx.facts.events[self.framework] else "is never seeded"
        return "%s() draws from %s, which %s in this module; the values change every run — %s" % (
            ctx.spelling(site), self.rng_name, when, self.fix,
        )


def seeding_fix(ctx: FileContext) -> Optional[Fix]:
    """The canonical seeding block, in an entry module only: in a library module the seed is
    the caller's job (docs/contract.md).  None in a module importing no framework the block can seed
    (an MXNet or JAX script).  A TensorFlow Estimator's ``RunConfig`` built here gets
    ``tf_random_seed=``: the Estimator builds its model in a graph of its own, which the
    default graph's seed never reaches."""
    if not ctx.facts.is_entry or not ctx.index.imported_roots & SEEDABLE_ROOTS:
        return None
    if seeding_changes_nothing(ctx):
        return None
    block = edits.module_fix("seed every RNG at start-up", edits.SEEDING)
    configs = estimator_configs(ctx)
    reseeding = reseeding_builders(ctx)
    if not configs and not reseeding:
        return block
    return edits.combine("seed every RNG at start-up, and what seeds on its own", [block] + [
        edits.set_argument(site.node, ESTIMATOR_SEED_KEYWORD, None, "{SEED}", "pass tf_random_seed=SEED")
        for site in configs
    ] + [
        edits.set_argument(site.node, keyword, None, "{SEED}", "pass %s=SEED" % keyword)
        for site, keyword in reseeding
    ])


def seeding_changes_nothing(ctx: FileContext) -> bool:
    """Modules whose reports a seed would not answer (reported, not fixed): an Optuna study whose
    trials run in several workers or resume from a storage (no seed reproduces its trials), a
    benchmark script (``bench_gcn.py``: its result is a time)."""
    from .det303 import measures_speed

    return shared_study(ctx) or measures_speed(ctx)


def shared_study(ctx: FileContext) -> bool:
    """An Optuna study whose trials run in several workers or resume from a storage
    (``det103._optimizes_in_parallel``): its sampler cannot take one seed."""
    if "optuna" not in ctx.index.imported_roots:
        return False
    from .det103 import STUDY_FACTORIES, _optimizes_in_parallel

    return any(True for _ in ctx.calls_to(STUDY_FACTORIES)) and _optimizes_in_parallel(ctx)


def reseeding_builders(ctx: FileContext) -> list:
    """(site, keyword) of the calls that seed on their own with a new random seed unless given one
    (``LightningCLI(...)``: ``seed_everything_default=True``): a seed set before them is lost."""
    from ..analysis.args import MISSING, find_arg, literal

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
    from ..analysis.args import MISSING, find_arg

    return [
        site for name, sites in ctx.calls_by_name.items() if is_estimator_config(name)
        for site in sites
        if find_arg(site.node, ESTIMATOR_SEED_KEYWORD) is MISSING and not _passes_keywords(site.node)
    ]


def _passes_keywords(call) -> bool:
    return any(arg.star == "**" for arg in call.args)


def module_report(ctx: FileContext, message: str, fix: Optional[Fix] = None) -> Report:
    """A finding about the whole module: at its ``__main__`` guard, else at line 1."""
    guards = ctx.index.main_guards
    if guards:
        return Report(guards[0].test, message, column=0, fix=fix)
    return Report(None, message, line=1, column=0, fix=fix)
