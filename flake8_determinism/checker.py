"""Lint one file: pre-check, one libcst parse, one index, all rules, positions for reports only."""

import ast
import gc
from typing import Iterable, List, NamedTuple, Optional, Tuple

import libcst as cst

from . import guard, precheck
from .analysis.context import FileContext
from .positions import start_positions
from .registry import ALL_RULES
from .settings import Settings
from .tables.entry import TEST_MODULE_CODES
from .testcode import is_test_module
from .tables import cuda_ops, determinism, rng_draws, rng_objects, seeding, sklearn, stochastic


class Finding(NamedTuple):
    line: int  # 1-based
    column: int  # 0-based, as flake8 expects from plugins
    code: str
    message: str

    def __str__(self) -> str:
        return "%d:%d %s %s" % (self.line, self.column + 1, self.code, self.message)


def _known_names() -> frozenset:
    names = set(seeding.SEEDERS) | set(rng_objects.UNSEEDED_CONSTRUCTORS) | set(sklearn.SKLEARN_RANDOM_STATE)
    names |= rng_draws.PYTHON_RANDOM | rng_draws.NUMPY_LEGACY | rng_draws.TORCH_GLOBAL
    names |= set(rng_draws.TF_DRAWS) | set(rng_draws.MINDSPORE_DRAWS)
    names |= set(determinism.ENABLERS) | set(stochastic.DROPOUT) | set(stochastic.RANDOM_TRANSFORMS)
    names |= {name for op in cuda_ops.TORCH_OPS for name in op.names} | set(cuda_ops.MINDSPORE_ASCEND_OPS)
    return frozenset(names)


KNOWN_NAMES = _known_names()


class ParseFailure(Exception):
    """libcst could not parse the file (flake8 reports the syntax error itself as E999)."""


class Skipped(ParseFailure):
    """Python parses the file, but we do not analyse it: its shape would make libcst too slow
    or too big (``guard``), or libcst cannot parse it (3,500 implicitly joined strings)."""


def parse(source: str, ast_checked: bool = False) -> cst.Module:
    """libcst's tree of ``source``.  Unless the caller already ran ``ast.parse``
    on it (flake8 has), do so first: it is ~10x cheaper, rejects what Python
    rejects, and guards libcst's native parser, which can crash on code nested
    deeper than Python itself accepts."""
    if not ast_checked:
        parse_ast(source)
    try:
        return cst.parse_module(source)
    except (cst.ParserSyntaxError, RecursionError, MemoryError, ValueError, SyntaxError) as error:
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise Skipped("not checked: libcst cannot parse it, though Python can (%s)" % detail) from None


def check_module(
    module: cst.Module, settings: Settings, rules: Iterable = ALL_RULES, filename: str = "", path: Optional[str] = None
) -> List[Finding]:
    return [finding for finding, _ in analyse(module, settings, rules, filename, path)[1]]


def analyse(
    module: cst.Module, settings: Settings, rules: Iterable = ALL_RULES, filename: str = "", path: Optional[str] = None
) -> Tuple[FileContext, List[Tuple[Finding, object]]]:
    """The file's context and its findings in order, each with its fix (None: not fixed).
    ``path``: where the file is on disk, for its project (``analysis/project``); None: alone."""
    ctx = FileContext(module, settings, KNOWN_NAMES, filename, path)
    reports = [(rule.code, report) for rule in rules for report in rule.check(ctx)]
    if not reports:
        return ctx, []
    positions = start_positions(module, [r.node for _, r in reports if r.node is not None])
    findings = {}
    for code, report in reports:
        line, column = report.line, 0
        if report.node is not None:
            line, column = positions.get(id(report.node), (report.line, 0))
        if report.column is not None:
            column = report.column
        findings.setdefault(Finding(line, column, code, "%s %s" % (code, report.message)), report.fix)
    return ctx, sorted(findings.items(), key=lambda pair: pair[0])


def select_rules(
    source: str, tree: ast.Module, settings: Settings, rules: Iterable = ALL_RULES, filename: str = "",
    words_checked: bool = False, path: Optional[str] = None,
) -> tuple:
    """The rules that can report on this file: the pre-check's first stage (unless the
    caller ran it: ``words_checked``), the test-module filter, the second stage."""
    rules = tuple(rules) if words_checked else tuple(precheck.rules_for_words(source, settings, tuple(rules), tree))
    if rules:
        rules = _outside_tests(rules, settings, filename, tree)
    if rules:
        rules = tuple(precheck.rules_for_shape(tree, source, settings, rules, path))
    return rules


def _outside_tests(rules: tuple, settings: Settings, filename: str, tree: ast.Module) -> tuple:
    """In a test module default mode reports only ``TEST_MODULE_CODES``."""
    if settings.strict or not is_test_module(filename, tree):
        return rules
    return tuple(rule for rule in rules if rule.code in TEST_MODULE_CODES)


def check_source(
    source: str,
    settings: Optional[Settings] = None,
    rules: Iterable = ALL_RULES,
    use_precheck: bool = True,
    tree: Optional[ast.Module] = None,
    words_checked: bool = False,
    filename: str = "",
    path: Optional[str] = None,
) -> List[Finding]:
    """All findings for ``source``; [] when nothing can fire or it cannot be parsed.
    The arguments are ``analyse_source``'s."""
    try:
        _, found = analyse_source(source, settings, rules, use_precheck, tree, words_checked, filename, path)
    except (ParseFailure, RecursionError):
        return []
    findings = [finding for finding, _ in found]
    if len(source) > RELEASE_AFTER_BYTES:
        del found  # the fixes hold nodes of the tree
        release_memory()
    return findings


# libcst's tree of a file this large takes ~100 MB or more.
RELEASE_AFTER_BYTES = 256 * 1024
_libc = None


def release_memory() -> None:
    """Free libcst's tree of the file just linted and hand its pages back to the system:
    the analysis' scopes and bindings refer to each other and to the tree's nodes, so only
    a collection frees it, and glibc keeps freed memory; a flake8 worker would stay at its
    largest file's size for the rest of the run (700 MB after torch's
    common_methods_invocations.py, 134 MB with this)."""
    global _libc
    gc.collect()
    if _libc is None:
        import ctypes
        import ctypes.util

        name = ctypes.util.find_library("c")
        try:
            _libc = ctypes.CDLL(name) if name else False
        except OSError:
            _libc = False
    trim = getattr(_libc, "malloc_trim", None) if _libc else None  # glibc only
    if trim is not None:
        trim(0)


def analyse_source(
    source: str,
    settings: Optional[Settings] = None,
    rules: Iterable = ALL_RULES,
    use_precheck: bool = True,
    tree: Optional[ast.Module] = None,
    words_checked: bool = False,
    filename: str = "",
    path: Optional[str] = None,
) -> Tuple[Optional[FileContext], List[Tuple[Finding, object]]]:
    """The file's context and its findings with their fixes (``analyse``); (None, []) when
    nothing can fire.  Raises ``ParseFailure`` when the source does not parse, ``Skipped``
    (a kind of it) when its shape would make libcst's parse too slow (``guard``).

    ``tree`` is the ``ast`` tree when the caller has one (flake8 does); without
    it we build one: ~10x cheaper than libcst's parse, it rejects what Python
    rejects and guards libcst's native parser, which can crash on code nested
    deeper than Python itself accepts.  ``words_checked``: ``rules`` already
    passed the pre-check's first stage (the plugin runs it before importing us).
    ``path``: the file on disk, whose project the cross-module facts come from (the plugin,
    the codemod and the editor pass it; the linted text stays ``source``); None: the file alone.
    """
    settings = settings or Settings()
    rules = tuple(rules)
    if use_precheck and not words_checked:
        rules = tuple(precheck.rules_for_words(source, settings, rules))
    if not rules:
        return None, []
    if tree is None:
        tree = parse_ast(source)
    if use_precheck:
        rules = select_rules(source, tree, settings, rules, filename, words_checked=True, path=path)
    else:
        rules = _outside_tests(rules, settings, filename, tree)
    if not rules:
        return None, []
    reason = guard.reason_to_skip(tree, source)
    if reason:
        raise Skipped("not checked: " + reason)
    # libcst builds hundreds of thousands of small acyclic objects; the cyclic
    # GC would rescan them again and again (25-30 % of the parse on large files).
    collecting = gc.isenabled()
    gc.disable()
    try:
        module = parse(source, ast_checked=True)
        return analyse(module, settings, rules, filename, path)
    finally:
        if collecting:
            gc.enable()


def parse_ast(source: str) -> ast.Module:
    """``ast.parse``, its failures as ``ParseFailure`` with one line (the message and line)."""
    try:
        return ast.parse(source)
    except SyntaxError as error:
        raise ParseFailure("%s (line %s)" % (error.msg, error.lineno)) from None
    except (ValueError, RecursionError, MemoryError) as error:
        raise ParseFailure(str(error) or type(error).__name__) from None
