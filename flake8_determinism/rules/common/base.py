"""What a rule is: a code, a one-line message, pre-check words, examples, and ``check``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, ClassVar, Dict, FrozenSet, Iterable, NamedTuple, Optional, Tuple

from ..._lazy import cst

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from .edits import Fix
    from ...precheck import ModuleShape, SourceText
    from ...analysis.context import FileContext


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
    fix: Optional[Fix] = None  # what ``determinism-fix`` does about it (``rules/common/edits.py``); None: not fixed


class Rule:
    """Base class.  Subclasses document themselves ruff-style in their docstring:
    what it does, why it matters, example, fix; and carry ``invalid``/``valid``
    snippets that the test suite lints (Fixit-style)."""

    code: ClassVar[str]
    # Identifiers at least one of which must appear in the file for the rule to
    # be able to fire (the cheap pre-check).  Empty: always run.
    triggers: ClassVar[FrozenSet[str]] = frozenset()
    # Where the rule reports (docs.SCOPES): None anywhere, "entry", "draw" (the scope policy of the
    # global draws), "program" (entries and modules that read the command line: checked by the rule).
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


def module_report(ctx: FileContext, message: str, fix: Optional[Fix] = None) -> Report:
    """A finding about the whole module: at its ``__main__`` guard, else at line 1."""
    guards = ctx.index.main_guards
    if guards:
        return Report(guards[0].test, message, column=0, fix=fix)
    return Report(None, message, line=1, column=0, fix=fix)
