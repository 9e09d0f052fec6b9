"""Line/column of the few nodes that are reported, without a whole-module PositionProvider.

libcst keeps no positions on nodes; its PositionProvider regenerates the module
and records a range for every node (about 2x the parse).  We only need the start
of the reported nodes, so we regenerate the code once, count lines as tokens go
by, note where the first token of each wanted node lands, and stop as soon as
the last wanted node is found.  Files without reports never pay for this.
"""

import sys
import threading
from typing import Dict, Iterable, Tuple

import libcst as cst
from libcst._nodes.internal import CodegenState


class _AllFound(Exception):
    pass


class _StartFinder(CodegenState):
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


def _run_with_deep_stack(module: cst.Module, finder: _StartFinder) -> None:
    """libcst's codegen recurses once per nesting level; very deep code (a sum of
    thousands of terms) needs a bigger stack than the default thread has."""
    outcome = []

    def target():
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 200_000))
        try:
            _run(module, finder)
            outcome.append(True)
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


def start_positions(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> Dict[int, Tuple[int, int]]:
    """Map ``id(node)`` to its (1-based line, 0-based column) start."""
    nodes = list(nodes)
    finder = _StartFinder(module, nodes)
    if finder.wanted:
        try:
            _run(module, finder)
        except RecursionError:
            finder = _StartFinder(module, nodes)
            _run_with_deep_stack(module, finder)
    return finder.found
