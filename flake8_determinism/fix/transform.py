"""Apply the fixes of one file's findings: a libcst codemod command, repeated to a fixed point.

``fix_source`` lints with the linter's own rules (one detector), keeps the
findings the user selected and did not silence, applies the fixes of those
(safe ones; unsafe ones too on request) in one ``DeterminismFix`` pass, and
lints again, until nothing fixable is left or the output stops changing (as
ruff does, with a cap).  Output that does not parse is never returned.
"""

import ast
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

import libcst as cst
from libcst.codemod import CodemodContext, VisitorBasedCodemodCommand

from .. import checker
from ..rules.common.cuda_ops import calls_raising_op
from ..rules.common import block, installed, placement
from . import imports, wrapping
from ..rules.common.edits import SEED_WORKER, SEED_WORKER_OBJECTS, SEEDING, Fix
from .config import silenced
from .spelling import Spelling, assigned_at_top

MAX_ROUNDS = 5
MAX_LINE_LENGTH = 79  # pycodestyle's default; flake8's ``max-line-length`` wins
SEED_NAME = "SEED"
SEED_NAME_TAKEN = "DETERMINISM_SEED"  # when the module binds SEED itself, later than the block


class Problem(NamedTuple):
    finding: checker.Finding
    fix: Optional[Fix]


class FileFix(NamedTuple):
    source: str  # the fixed source (the original when nothing changed)
    found: List[Problem]  # what was reported (selected, not silenced) before fixing
    left: List[Problem]  # what is still reported after
    unsafe: List[Problem]  # left, with an unsafe fix not applied
    changed: bool  # the source changed (with ``check_only``: would change)


class DeterminismFix(VisitorBasedCodemodCommand):
    """Rewrites the nodes the fixes name, then fills the module-level needs in ``leave_Module``."""

    DESCRIPTION = "Fix what flake8-determinism reports."

    def __init__(self, context: CodemodContext, ctx, fixes: List[Fix], settings, seed: int,
                 max_line_length: int = MAX_LINE_LENGTH) -> None:
        super().__init__(context)
        module = ctx.module
        self.seed_value = seed
        self.rewrites: Dict[int, List[Callable]] = {}
        for fix in fixes:
            for node, rewrite in fix.edits:
                self.rewrites.setdefault(id(node), []).append(rewrite)
        needs = frozenset().union(*(fix.needs for fix in fixes)) if fixes else frozenset()
        insert_at, first_work = block.insertion_point(module)
        self.seed_name, self.seed_defined, insert_at = _seed_name(module, insert_at, first_work)
        self.spelling = Spelling(module, context, self.seed_name, ctx.facts.is_entry, insert_at, seed)
        self.plan = block.plan(ctx, needs, self.spelling, settings, calls_raising_op(ctx))._replace(
            insert_at=insert_at)
        objects = SEED_WORKER_OBJECTS in needs
        self.seed_worker = block.seed_worker_source(ctx, objects) if objects or SEED_WORKER in needs else None
        if self.plan.helper_lines is not None:
            node, lines = self.plan.helper_lines
            self.rewrites.setdefault(id(node), []).append(lambda old, spell: _append_to_body(old, lines, spell))
        if self.plan.place is not None and self.plan.run_lines:
            place = self.plan.place
            self.rewrites.setdefault(id(place.node), []).append(
                lambda old, spell: placement.insert_into(old, place.index, self._statements(
                    [spell.format(line) for line in self.plan.run_lines], comment=self.plan.comment, blank_lines=0)))
        if self.plan.completion is not None:
            statement, lines = self.plan.completion
            self.rewrites.setdefault(id(statement), []).append(
                lambda old, spell: cst.FlattenSentinel([old, *self._statements(
                    [spell.format(line) for line in lines], blank_lines=0)]))
        self.config = module.config_for_parsing
        self.grown: List[cst.Call] = []
        self.max_line_length = max_line_length

    def transform_module(self, tree: cst.Module) -> cst.Module:
        """As ``CodemodCommand.transform_module``, on ``tree`` itself: the fixes name its nodes,
        and the metadata wrapper the base class builds would visit a copy."""
        tree = tree.visit(self)
        tree = wrapping.wrap_long_calls(tree, self.grown, self.max_line_length)
        return imports.add_imports(tree, self.spelling.new_imports)

    def on_leave(self, original_node, updated_node):
        updated = super().on_leave(original_node, updated_node)
        for rewrite in self.rewrites.get(id(original_node), ()):
            updated = rewrite(updated, self.spelling)
        if isinstance(updated, cst.Call) and id(original_node) in self.rewrites:
            self.grown.append(updated)  # an argument added: wrapped if the line grew too long
        return updated

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        plan, spell = self.plan, self.spelling
        if any("{SEED}" in line for line in plan.lines):
            spell.seed()
        lines = [spell.format(line) for line in plan.lines]
        after = spell.format(plan.after_helper[1]) if plan.after_helper else None
        worker = None
        if self.seed_worker and "seed_worker" not in spell.taken:
            worker = spell.format(self.seed_worker)
        if spell.seed_used and not self.seed_defined:
            lines.insert(0, "%s = %d" % (self.seed_name, self.seed_value))
        lines[:0] = dict.fromkeys(spell.imports_needed)
        body = list(updated_node.body)
        if after:
            index = plan.after_helper[0] + 1
            body[index:index] = self._statements([after])
        inserted = self._statements(lines, comment=plan.comment) if lines else []
        if worker:
            inserted += self._statements(worker.replace("    ", updated_node.default_indent).splitlines(),
                                         blank_lines=2)
        body[plan.insert_at:plan.insert_at] = inserted
        return updated_node.with_changes(body=body)

    def _statements(self, lines: List[str], comment: str = "", blank_lines: int = 1):
        newline = self.config.default_newline
        statements = list(cst.parse_module(newline.join(lines) + newline, config=self.config).body)
        leading = [cst.EmptyLine() for _ in range(blank_lines)]
        if comment:
            leading.append(cst.EmptyLine(comment=cst.Comment(comment)))
        statements[0] = statements[0].with_changes(leading_lines=leading)
        return statements


def _seed_name(module: cst.Module, insert_at: int, first_work: int) -> Tuple[str, bool, int]:
    """(name of the seed constant, whether the module defines it already, where the block goes)."""
    index = assigned_at_top(module, SEED_NAME)
    if index is None:
        return SEED_NAME, False, insert_at
    if index < first_work:
        return SEED_NAME, True, max(insert_at, index + 1)  # the module's own SEED, before the block
    return SEED_NAME_TAKEN, False, insert_at


def _append_to_body(function: cst.FunctionDef, lines: List[str], spell) -> cst.FunctionDef:
    """Add ``lines`` to a function's body, before a final ``return``."""
    body = function.body
    if not isinstance(body, cst.IndentedBlock):
        return function
    new = [cst.parse_statement(spell.format(line)) for line in lines]
    statements = list(body.body)
    at = len(statements)
    last = statements[-1] if statements else None
    if isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[0], cst.Return):
        at -= 1
    statements[at:at] = new
    return function.with_changes(body=body.with_changes(body=statements))


def fix_source(source: str, settings, seed: int = 0, unsafe: bool = False, codes: Optional[frozenset] = None,
               noqa: Optional[dict] = None, filename: str = "", rules=checker.ALL_RULES,
               check_only: bool = False, only: Optional[Callable[[checker.Finding], bool]] = None,
               linted: Optional[Tuple[object, List[Problem]]] = None, path: Optional[str] = None) -> FileFix:
    """Fix ``source``.  Only findings of ``codes`` (None: all) count; with ``noqa`` (flake8's
    options) those silenced by ``# noqa`` do not, decided anew on each round's source.
    ``check_only``: stop at "is there a fix to apply" (``--check``), transform nothing.
    ``only``: apply the fixes of the findings it accepts, in one round (an editor's quick fix).
    ``linted``: ``lint``'s answer for ``source`` with the same arguments, when the caller has it.
    ``path``: the file on disk, whose project the runs are judged in (None: the file alone).
    Raises ``checker.ParseFailure`` when ``source`` does not parse."""
    wanted = selection(codes, noqa, filename)
    ctx, found = linted if linted is not None else _problems(source, settings, rules, filename, wanted, path)
    current, left = source, found
    for _ in range(1 if only else MAX_ROUNDS):
        chosen = [p for p in left if only(p.finding)] if only else left
        fixes = [f for f in (installed_fix(p.fix, settings) for p in chosen
                             if p.fix is not None and (p.fix.safe or unsafe)) if f is not None]
        if not fixes or ctx is None:
            break
        if any(SEEDING in f.needs for f in fixes):
            fixes = [f for f in fixes if not f.after_seeding]  # the next round sees the run seeded
        if current is source:
            _check_rewritable(ctx.module, source)
        command = DeterminismFix(CodemodContext(filename=filename or None), ctx, fixes, settings, seed,
                                 (noqa or {}).get("max_line_length") or MAX_LINE_LENGTH)
        fixed = command.transform_module(ctx.module).code
        if check_only:  # would the first round change the file (as writing it would)?
            unfixed = [p for p in left if p.fix is None or not (p.fix.safe or unsafe)]
            return FileFix(current, found, unfixed, _unsafe(left) if not unsafe else [], fixed != current)
        if fixed == current:
            break
        try:  # linting the output is also the check that it parses (ast, then libcst)
            next_ctx, next_left = _problems(fixed, settings, rules, filename, wanted, path)
        except (checker.ParseFailure, RecursionError):
            break  # never returned: the last output that parsed stands
        if next_ctx is None and not _parses(fixed):  # nothing left to lint: libcst never saw it
            break
        current, ctx, left = fixed, next_ctx, next_left
    return FileFix(current, found, left, _unsafe(left), current != source)


def installed_fix(fix: Fix, settings) -> Optional[Fix]:
    """``fix``, or its fallback when the installed framework (``settings.frameworks``) does not
    take an option it sets."""
    if all(installed.accepts(name, keyword, settings.frameworks) for name, keyword in fix.requires):
        return fix
    return fix.fallback


def _check_rewritable(module: cst.Module, source: str) -> None:
    """The codemod writes the file back from libcst's tree: refuse (``Skipped``) a file that
    tree does not reproduce byte for byte, or whose indentation libcst cannot write, rather
    than change lines no fix asked for.  (libcst 1.9 drops a final lone CR, and blank lines
    before a last whitespace-only line; it rejects a form feed in the first indentation.)"""
    try:
        module.config_for_parsing
    except ValueError:
        raise checker.Skipped("not fixed: libcst cannot write code in this file's indentation "
                              "(%r); flake8 still reports its problems" % module.default_indent) from None
    if module.code != source:
        raise checker.Skipped("not fixed: libcst would not write back the lines no fix touches as they "
                              "are (line endings or blank lines at the end); flake8 still reports its problems")


def _unsafe(found: List[Problem]) -> List[Problem]:
    return [p for p in found if p.fix is not None and not p.fix.safe]


def selection(codes: Optional[frozenset], noqa: Optional[dict], filename: str) -> Callable:
    """``source -> (finding -> bool)``: the findings the user sees in that source: of ``codes``
    (None: all) and, with ``noqa`` (flake8's options), not silenced by ``# noqa``."""
    def wanted(text: str) -> Callable[[checker.Finding], bool]:
        ignored = silenced(filename, text.splitlines(True), noqa) if noqa is not None else (lambda finding: False)
        if ignored is None:  # ``# flake8: noqa``
            return lambda finding: False
        return lambda finding: (codes is None or finding.code in codes) and not ignored(finding)

    return wanted


def lint(source: str, settings, codes: Optional[frozenset] = None, noqa: Optional[dict] = None,
         filename: str = "", rules=checker.ALL_RULES, path: Optional[str] = None) -> Tuple[object, List[Problem]]:
    """The file's context and what the user sees reported in ``source``, each with its fix.
    Raises ``checker.ParseFailure``."""
    return _problems(source, settings, rules, filename, selection(codes, noqa, filename), path)


def _problems(source: str, settings, rules, filename: str, wanted, path=None) -> Tuple[object, List[Problem]]:
    """Lint ``source`` as the plugin does; ``wanted(source)`` filters.  Every file is parsed
    (``ast``, cheap), so one that does not parse is reported, not skipped by the pre-check."""
    tree = checker.parse_ast(source)
    ctx, findings = checker.analyse_source(source, settings, rules, tree=tree, filename=filename, path=path)
    if not findings:
        return ctx, []
    keep = wanted(source)
    return ctx, [Problem(f, fix) for f, fix in findings if keep(f)]


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
        cst.parse_module(source)
    except Exception:  # noqa: BLE001 - any failure means: do not write it
        return False
    return True
