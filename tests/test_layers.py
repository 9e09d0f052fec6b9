"""The package's layers stand on each other (docs/design.md, "Layers"):

    tables -> analysis -> rules.common -> rules (one module per rule) -> registry -> the tools

A module imports only from its own layer or the ones below it; no rule imports another rule;
and no two modules import each other, directly or through others.  Imports inside functions
count (a circle hidden in a function is still a circle); imports for annotations only
(``if TYPE_CHECKING:``) do not.  Read from the source with ``ast``: nothing is imported.
"""

import ast
import pathlib
from typing import Dict, List, Set

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "flake8_determinism"
ROOT = PACKAGE.name

# Lowest first.  A module belongs to the first prefix that matches it; the infrastructure that
# every layer may use (lazy imports, settings, positions) sits at the bottom.
LAYERS = (
    ("base", ("_lazy", "settings", "positions", "console", "guard")),
    ("tables", ("tables",)),
    ("analysis", ("analysis", "testcode")),
    ("rules.common", ("rules.common",)),
    ("rules", ("rules",)),
    ("registry", ("registry",)),
    ("tools", ("",)),  # checker, plugin, precheck, fix, verify, lsp, sarif, docs, benchmark, notebooks
)
MAX_LINES = 600


def _modules() -> Dict[str, pathlib.Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _layer(module: str) -> int:
    if module == "":
        return 0  # the package's own ``__init__``: its version and URLs, nothing imported
    for number, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if not prefix or module == prefix or module.startswith(prefix + "."):
                return number
    raise AssertionError(module)


def _type_checking_only(tree: ast.Module) -> Set[int]:
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
            skipped.update(id(n) for statement in node.body for n in ast.walk(statement))
    return skipped


def _imports(module: str) -> Set[str]:
    """The package's modules that ``module`` imports (a package's ``__init__`` counts as ``pkg``)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".") if package else []
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            elif (node.module or "").startswith(ROOT):
                target = node.module[len(ROOT) + 1:]
            else:
                continue
            for alias in node.names:
                sub = (target + "." + alias.name).lstrip(".")
                found.add(sub if sub in MODULES else target)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(ROOT + "."):
                    found.add(alias.name[len(ROOT) + 1:])
    found.discard(module)
    return {name for name in found if name in MODULES}


GRAPH = {module: _imports(module) for module in MODULES}


def _cycles() -> List[List[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(GRAPH[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(GRAPH):
        if module not in index:
            visit(module)
    return found


def test_the_reader_sees_the_package():
    # The test must be able to fail: it reads real imports of real modules.
    assert {"rules.common.base", "analysis.index", "registry"} <= set(MODULES)
    assert "analysis.context" in GRAPH["checker"]
    assert "registry" in GRAPH["plugin"]


def test_no_import_circle():
    assert _cycles() == []


def test_imports_follow_the_layers():
    against = sorted(
        "%s (%s) imports %s (%s)" % (module, LAYERS[_layer(module)][0], other, LAYERS[_layer(other)][0])
        for module, imported in GRAPH.items() for other in imported
        if _layer(other) > _layer(module)
    )
    assert against == []


def _is_rule(module: str) -> bool:
    return module.startswith("rules.det")


def test_no_rule_imports_another_rule():
    assert sorted(
        "%s imports %s" % (module, other)
        for module, imported in GRAPH.items() if _is_rule(module)
        for other in imported if _is_rule(other)
    ) == []


def test_rules_package_imports_nothing():
    # ``flake8_determinism.rules`` is imported before any of its modules: were it to import the
    # rules (the registry's job), every shared module below them would import them too.
    assert GRAPH["rules"] == set() and GRAPH["rules.common"] == set()


# Still over the bound, being split (issue 33): strict, so a split module must leave this list.
_NOT_YET_SPLIT = set()


@pytest.mark.parametrize("module", [
    pytest.param(m, marks=pytest.mark.xfail(strict=True, reason="not yet split")) if m in _NOT_YET_SPLIT else m
    for m in sorted(MODULES)
])
def test_modules_stay_small(module):
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, "%s has %d lines" % (module, lines)


def test_a_circle_is_found():
    saved = dict(GRAPH)
    try:
        GRAPH["tables.seeding"] = GRAPH["tables.seeding"] | {"checker"}
        assert _cycles()
    finally:
        GRAPH.clear()
        GRAPH.update(saved)
