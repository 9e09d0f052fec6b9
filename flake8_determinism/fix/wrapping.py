"""A call an argument was added to, wrapped one argument per line (as black does) when its
line grew past the project's ``max-line-length``.  The outermost call of the line is the one
wrapped; a line whose outermost bracket is not a call (a comprehension, a list), a line
already on several lines, or one that says ``# noqa`` keeps its layout."""

from typing import Dict, List, Set

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

_BRACKETS = (cst.Call, cst.List, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
             cst.Subscript)


def wrap_long_calls(tree: cst.Module, calls: List[cst.Call], max_length: int) -> cst.Module:
    if not calls:
        return tree
    outermost = _Outermost({id(call) for call in calls})
    positions = MetadataWrapper(tree, unsafe_skip_copy=True).resolve(PositionProvider)
    tree.visit(outermost)
    lines = tree.code.splitlines()
    chosen: Set[int] = set()
    for call in outermost.found:
        where = positions.get(call)
        if where is None or where.start.line != where.end.line or not call.args:
            continue
        line = lines[where.start.line - 1]
        if len(line) > max_length and "# noqa" not in line:
            chosen.add(id(call))
    return tree.visit(_Wrap(chosen, tree.default_indent)) if chosen else tree


class _Outermost(cst.CSTVisitor):
    """For each grown call, the outermost bracket around it in its statement, when a call."""

    def __init__(self, grown: Set[int]) -> None:
        super().__init__()
        self.grown, self.stack, self.found = grown, [], []
        self.seen: Dict[int, bool] = {}

    def on_visit(self, node) -> bool:
        if isinstance(node, (cst.BaseSuite, cst.BaseCompoundStatement)):
            self.stack.append(None)  # a new statement: brackets outside it do not count
        elif isinstance(node, _BRACKETS):
            self.stack.append(node)
            if id(node) in self.grown:
                markers = [i for i, n in enumerate(self.stack) if n is None]
                first = self.stack[markers[-1] + 1 if markers else 0]  # the statement's outermost bracket
                if isinstance(first, cst.Call) and id(first) not in self.seen:
                    self.seen[id(first)] = True
                    self.found.append(first)
        return True

    def on_leave(self, original_node) -> None:
        if isinstance(original_node, (cst.BaseSuite, cst.BaseCompoundStatement) + _BRACKETS):
            self.stack.pop()


class _Wrap(cst.CSTTransformer):
    def __init__(self, calls: Set[int], indent: str) -> None:
        super().__init__()
        self.calls, self.indent = calls, indent

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if id(original_node) not in self.calls:
            return updated_node
        args = list(updated_node.args)
        for index, arg in enumerate(args):
            last = index == len(args) - 1
            args[index] = arg.with_changes(
                comma=cst.Comma(whitespace_after=_next_line("" if last else self.indent)),
                whitespace_after_arg=cst.SimpleWhitespace(""),
            )
        return updated_node.with_changes(args=args, whitespace_before_args=_next_line(self.indent))


def _next_line(indent: str) -> cst.ParenthesizedWhitespace:
    """A line break, then the statement's indentation plus ``indent``."""
    return cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(indent))
