"""Line/column of the few nodes that are reported, without a whole-module PositionProvider.

libcst keeps no positions on nodes; its PositionProvider regenerates the module
and records a range for every node (about 2x the parse).  We only need the start
of the reported nodes, so we regenerate the code once, count lines as tokens go
by, note where the first token of each wanted node lands, and stop as soon as
the last wanted node is found.  Files without reports never pay for this.

That fast path subclasses libcst's private ``CodegenState`` (``libcst._nodes.internal``,
the same in libcst 1.1 to 1.9) and calls ``Module._codegen``.  Should a libcst release move
or change them, ``start_positions`` falls back to the public API (``libcst.metadata``),
which gives the same positions at the cost of a range for every node.
"""

import re
import sys
import threading
from functools import lru_cache
from typing import Callable, Dict, Iterable, List, Tuple

import libcst as cst

try:
    from libcst._nodes.internal import CodegenState as _CodegenState
except ImportError:  # a libcst that moved it: the public fallback only
    _CodegenState = None


class _AllFound(Exception):
    pass


class _StartFinder(_CodegenState or object):  # object: never used then (_fast_path_works)
    def __init__(self, module: cst.Module, wanted: Iterable[cst.CSTNode]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.wanted = {id(node) for node in wanted}
        self.found: Dict[int, Tuple[int, int]] = {}
        self.pending = []
        self.line = 1
        self.offset = 0  # characters emitted so far
        self.line_start = 0  # offset of the current line's first character

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.wanted and id(node) not in self.found:
            self.pending.append(id(node))

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        if not value:
            return
        # A statement's codegen starts with its leading blank/comment lines and
        # indentation; it starts where its first real token does.
        if self.pending and value.strip() and not value.lstrip().startswith("#"):
            column = self.offset - self.line_start
            for key in self.pending:
                self.found[key] = (self.line, column)
            self.pending.clear()
            if len(self.found) == len(self.wanted):
                raise _AllFound
        self.offset += len(value)
        newlines = value.count("\n") + value.count("\r") - value.count("\r\n")
        if newlines:
            self.line += newlines
            self.line_start = self.offset - (len(value) - 1 - max(value.rfind("\n"), value.rfind("\r")))


def _run(module: cst.Module, finder: _StartFinder) -> None:
    try:
        module._codegen(finder)
    except _AllFound:
        pass


def _with_deep_stack(work: Callable[[], object]) -> object:
    """libcst's codegen recurses once per nesting level; very deep code (a sum of
    thousands of terms) needs a bigger stack than the default thread has."""
    outcome = []

    def target():
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 200_000))
        try:
            outcome.append(work())
        except RecursionError:
            pass
        finally:
            sys.setrecursionlimit(limit)

    previous = threading.stack_size(512 * 1024 * 1024)
    try:
        worker = threading.Thread(target=target, name="determinism-positions")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(previous)
    if not outcome:
        raise RecursionError("code nested too deeply to locate findings")
    return outcome[0]


def fast_start_positions(module: cst.Module, nodes: List[cst.CSTNode]) -> Dict[int, Tuple[int, int]]:
    """``start_positions`` through libcst's private codegen state (it must be there)."""
    finder = _StartFinder(module, nodes)
    if finder.wanted:
        try:
            _run(module, finder)
        except RecursionError:
            finder = _StartFinder(module, nodes)
            _with_deep_stack(lambda: _run(module, finder))
    return finder.found


# Where a node's first real token starts, from where its code starts: whitespace, line breaks
# and comments are skipped (as the fast path skips those tokens).
_NOT_A_TOKEN = re.compile(r"(?:[ \t\f\r\n]+|#[^\r\n]*)*")
_LINE_BREAK = re.compile(r"\r\n?|\n")


def public_start_positions(module: cst.Module, nodes: List[cst.CSTNode]) -> Dict[int, Tuple[int, int]]:
    """``start_positions`` through libcst's public metadata API.  The ranges of
    ``WhitespaceInclusivePositionProvider`` start where a node's code does (before its
    decorators, parentheses and leading comment lines, which ``PositionProvider`` leaves
    out); the position reported is that of its first real token after that."""
    from libcst.metadata import MetadataWrapper, WhitespaceInclusivePositionProvider

    def ranges_and_code():
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        return wrapper.resolve(WhitespaceInclusivePositionProvider), module.code

    try:
        found, code = ranges_and_code()
    except RecursionError:
        found, code = _with_deep_stack(ranges_and_code)
    line_starts = [0] + [match.end() for match in _LINE_BREAK.finditer(code)]
    positions: Dict[int, Tuple[int, int]] = {}
    for node in nodes:
        where = found.get(node)
        if where is None:
            continue
        offset = _NOT_A_TOKEN.match(code, line_starts[where.start.line - 1] + where.start.column).end()
        line = _line_of(line_starts, offset)
        positions[id(node)] = (line, offset - line_starts[line - 1])
    return positions


def _line_of(line_starts: List[int], offset: int) -> int:
    """The 1-based line holding ``offset``."""
    low, high = 0, len(line_starts)
    while high - low > 1:
        middle = (low + high) // 2
        if line_starts[middle] <= offset:
            low = middle
        else:
            high = middle
    return low + 1


@lru_cache(maxsize=None)
def _fast_path_works() -> bool:
    """Does the private codegen state still behave as the fast path expects?  Tried once, on a
    small module whose answers are known."""
    if _CodegenState is None or _StartFinder is None:
        return False
    try:
        probe = cst.parse_module("@d\ndef f():\n    # note\n    (x)\n")
        function = probe.body[0]
        statement = function.body.body[0]
        expression = statement.body[0].value
        found = fast_start_positions(probe, [function, statement, expression])
    except Exception:  # a libcst whose private codegen changed
        return False
    return found == {id(function): (1, 0), id(statement): (4, 4), id(expression): (4, 4)}


def start_positions(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> Dict[int, Tuple[int, int]]:
    """Map ``id(node)`` to its (1-based line, 0-based column) start."""
    nodes = list(nodes)
    if not nodes:
        return {}
    if _fast_path_works():
        return fast_start_positions(module, nodes)
    return public_start_positions(module, nodes)
