"""The cheap pre-checks: skip files in which no rule can fire, before the libcst parse.

Stage 1 (text): every report needs the callee's own name in the text (an import
alias still spells the original name in its ``import`` line), so a file whose
identifiers meet none of a rule's trigger words cannot produce that rule's
report.  Collecting identifiers costs a few percent of ``ast.parse``.

Stage 2 (shape, from the ``ast`` tree flake8 has already built): draws are
only reported at import time or in entry modules (outside strict mode), and
DET100 only in entry modules.  For a library module we therefore look for the
draw rules' trigger words only among the names that code run at import time
imports or calls -- everything but function bodies.  Both stages over-approximate: they may let a file through
that yields nothing, never the reverse (the fixture tests check this).  Function
bodies and docstrings are left out of the import-time text.
"""

import ast
import re
from typing import FrozenSet, Optional, Set, Tuple

from .analysis.ast_names import dotted
from .tables.entry import is_declarative_call

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def identifiers(source: str) -> FrozenSet[str]:
    return frozenset(_IDENTIFIER.findall(source))


class SourceText:
    """A text and its identifiers (computed once, on first use; ``words`` may be a function
    that computes them)."""

    def __init__(self, text: str, words=None) -> None:
        self.text = text
        self._words = words
        self.fires: dict = {}  # rule code -> its own words are in this text (both stages ask)

    @property
    def words(self) -> FrozenSet[str]:
        if self._words is None:
            self._words = identifiers(self.text)
        elif callable(self._words):
            self._words = self._words()
        return self._words

    def __contains__(self, word: str) -> bool:
        return word in self.words

    def has_any(self, words) -> bool:
        return not self.words.isdisjoint(words)

    def search(self, pattern) -> bool:
        return pattern.search(self.text) is not None


class LazyText(SourceText):
    """A SourceText whose text is made on first use (most files are decided without it)."""

    def __init__(self, make_text, words=None) -> None:  # noqa: super().__init__ would set the text
        self._make_text = make_text
        self._words = words
        self.fires: dict = {}
        self._text: Optional[str] = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self._make_text()
        return self._text


class ProjectImports:
    """Does the module import a module of its project (``analysis/project``)?  Asked only for
    entry modules whose own text names no draw: a run can use an RNG through the project."""

    def __init__(self, tree: ast.Module, path: Optional[str], settings) -> None:
        self.tree, self.path, self.settings = tree, path, settings
        self._answer: Optional[bool] = None

    def __bool__(self) -> bool:
        if self._answer is None:
            from .analysis.project.views import imports_project_module

            self._answer = bool(self.path) and imports_project_module(self.tree, self.path, self.settings)
        return self._answer


class ModuleShape:
    """What the second stage reads of a module, each part made on first use:
    ``is_entry`` (may be an entry module, over-approximated: module-level statements only),
    ``code`` (the text without docstrings), ``import_time`` (also without function bodies; its
    words are only the names that code run at import time imports or calls: a draw is a call),
    ``imports_project`` (truthy: it imports a module of its project), ``whole`` (the whole
    text, as the first stage read it)."""

    def __init__(self, tree: ast.Module, lines, imports_project: object = False,
                 whole: Optional[SourceText] = None) -> None:
        self.tree, self.lines = tree, lines
        self.imports_project = imports_project
        self.whole = whole
        self._entry: Optional[bool] = None
        self._lines: Optional[tuple] = None
        self.code = LazyText(lambda: self._text(with_bodies=True))
        self.import_time = LazyText(lambda: self._text(with_bodies=False), lambda: _import_time_words(tree))

    @property
    def is_entry(self) -> bool:
        if self._entry is None:
            self._entry = _is_entry(self.tree)
        return self._entry

    def _text(self, with_bodies: bool) -> str:
        if self._lines is None:
            self._lines = _docstrings_and_bodies(self.tree, self.lines)
        docstrings, bodies = self._lines
        return "".join(
            line for number, line in enumerate(self.lines, 1)
            if number not in docstrings and (with_bodies or number not in bodies)
        )


def module_shape(tree: ast.Module, lines, project_imports: object = False,
                 whole: Optional[SourceText] = None) -> ModuleShape:
    return ModuleShape(tree, lines, project_imports, whole)


def _is_entry(tree: ast.Module) -> bool:
    """Module-level work (a call statement outside an ``except`` handler) or a ``__main__``
    guard, at module level or in its blocks; function and class bodies are never looked at."""
    stack = [(stmt, False) for stmt in tree.body]
    while stack:
        node, in_handler = stack.pop()
        if isinstance(node, (ast.ClassDef,) + _FUNCTIONS):
            continue
        if not in_handler and isinstance(node, ast.Expr) and _is_work(node.value):
            return True
        if isinstance(node, ast.If) and _mentions_name_dunder(node.test):
            return True
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, ()) or ():
                if isinstance(child, ast.stmt):
                    stack.append((child, in_handler))
                elif hasattr(child, "body"):  # except handlers, match cases
                    handler = in_handler or isinstance(child, ast.ExceptHandler)
                    stack.extend((c, handler) for c in child.body)
    return False


def _docstrings_and_bodies(tree: ast.Module, lines) -> Tuple[Set[int], Set[int]]:
    """Lines holding only a string statement, and lines of function bodies (they never run at
    import time)."""
    docstrings: Set[int] = set()
    bodies: Set[int] = set()
    stack = [(stmt, False) for stmt in tree.body]
    while stack:
        node, in_function = stack.pop()
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            if _owns_its_lines(node, lines):
                docstrings.update(range(node.lineno, node.end_lineno + 1))
            continue
        if isinstance(node, _FUNCTIONS) and not in_function:
            first = node.body[0].lineno
            start = first if first > node.lineno else node.lineno + 1
            bodies.update(range(start, node.end_lineno + 1))
        inner_function = in_function or isinstance(node, _FUNCTIONS)
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, field, ()) or ():
                if isinstance(child, ast.stmt):
                    stack.append((child, inner_function))
                elif hasattr(child, "body"):
                    stack.extend((c, inner_function) for c in child.body)
    return docstrings, bodies


def _import_time_words(tree: ast.Module) -> FrozenSet[str]:
    """Names in the callee of every call that runs at import time (module level, class bodies,
    decorators and default values; not function bodies), and the imports those callees name
    (``from numpy.random import rand as r`` ... ``r()``): a module that imports ``random`` but
    draws only in functions has no import-time draw."""
    words: Set[str] = set()
    imports = []
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _FUNCTIONS):
            stack += node.decorator_list + node.args.defaults + [d for d in node.args.kw_defaults if d]
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Call):
            func = node.func
            while isinstance(func, ast.Attribute):
                words.add(func.attr)
                func = func.value
            if isinstance(func, ast.Name):
                words.add(func.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
        stack.extend(ast.iter_child_nodes(node))
    called = set(words)
    for node in imports:
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            if bound in called or alias.name == "*":
                words.update(alias.name.split("."))
                words.add(bound)
                if isinstance(node, ast.ImportFrom) and node.module:
                    words.update(node.module.split("."))
    return frozenset(words)


def _owns_its_lines(node: ast.stmt, lines) -> bool:
    """The statement is alone on its lines (``x = 1; "s"`` keeps its line)."""
    first, last = lines[node.lineno - 1], lines[node.end_lineno - 1]
    rest = last[node.end_col_offset:].strip() if node.end_col_offset is not None else "x"
    return first[: node.col_offset].strip() == "" and (rest == "" or rest.startswith("#"))


def _is_work(value: ast.expr) -> bool:
    if isinstance(value, ast.Await):
        value = value.value
        if not isinstance(value, ast.Call):
            return True
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    while isinstance(func, ast.Call):  # ``tf_export("x")(f)``: judged by the factory
        func = func.func
    method = func.attr if isinstance(func, ast.Attribute) else ""
    return not is_declarative_call(dotted(func), method)




def _mentions_name_dunder(test: ast.expr) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(test))


# The first stage's text, kept for the second stage of the same source (its words are read
# once per file: the plugin runs the first stage before it imports the analysis).
_last_text: list = [None]


def _text_of(source: str) -> SourceText:
    last = _last_text[0]
    if last is not None and last.text is source:
        return last
    text = _last_text[0] = SourceText(source)
    return text


def rules_for_words(source: str, settings, rules, tree: Optional[ast.Module] = None):
    """Stage 1: the rules whose trigger words occur in the text (or, for a rule that can fire
    through the project, a module that imports something and may be an entry module)."""
    text = _text_of(source)
    entry = tree is None or may_be_entry(tree)
    return [
        rule for rule in rules
        if rule.fires_on(text, settings) or (entry and rule.might_fire_through_project(text, settings))
    ]


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)


def may_be_entry(tree: ast.Module) -> bool:
    """Over-approximates ``module_shape``'s ``is_entry`` from the top-level statements alone:
    a module-level expression (a call), or a block that may hold one."""
    return any(isinstance(node, (ast.Expr,) + _COMPOUND) for node in tree.body) or any(
        type(node).__name__ in ("Match", "TryStar") for node in tree.body
    )


def rules_for_shape(tree: ast.Module, source: str, settings, rules, path: Optional[str] = None):
    """Stage 2: look for each rule's words only in the code where it can fire."""
    shape = module_shape(tree, source.splitlines(True), ProjectImports(tree, path, settings), _text_of(source))
    return [rule for rule in rules if rule.might_fire_in(shape, settings)]
