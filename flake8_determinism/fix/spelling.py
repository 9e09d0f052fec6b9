"""How the file being fixed spells what a fix names: its own import aliases first.

``spell.name("numpy.random.seed")`` is ``np.random.seed`` under ``import numpy as
np``, ``seed`` under ``from numpy.random import seed``; a module not imported
yet is added by ``fix.imports`` (as ``np``/``tf`` when those names are free) where isort
would put it, without duplicating one.
"""

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst
from libcst.codemod import CodemodContext

from ..analysis.nodes import dotted_name

CONVENTIONAL_ALIASES = {"numpy": "np", "tensorflow": "tf"}
# When the module's own name is taken (``from numpy import random``): the alias to import it as.
FALLBACK_ALIASES = {"random": "py_random"}
_PLACEHOLDER_ROOTS = ("torch", "numpy", "random", "os", "tensorflow", "mindspore", "keras", "optuna", "dgl", "mxnet")


class Spelling:
    def __init__(self, module: cst.Module, context: CodemodContext, seed_name: str, entry: bool,
                 imports_before: int, seed_value: int = 0) -> None:
        self.context = context
        self.seed_value = seed_value
        self.seed_name = seed_name
        self.entry = entry
        self.bound, self.late = top_level_imports(module, imports_before)
        self.taken: Set[str] = top_level_names(module)
        self.seed_used = False
        self.imports_needed: List[str] = []  # modules imported only after the block: import again in it
        self.new_imports: List[Tuple[str, Optional[str]]] = []  # (module, alias) the module lacks

    def name(self, dotted: str) -> str:
        parts = dotted.split(".")
        for i in range(len(parts), 0, -1):
            prefix = ".".join(parts[:i])
            local = self.bound.get(prefix)
            if local is not None:
                return ".".join([local] + parts[i:])
        root = parts[0]
        alias = CONVENTIONAL_ALIASES.get(root)
        if alias is not None and alias in self.taken:
            alias = None
        if alias is None and root in self.taken and root not in self.late:
            # ``from numpy import random`` holds the name: Python's random under another one
            alias = _free_name(FALLBACK_ALIASES.get(root, root + "_module"), self.taken)
        if root in self.late or (alias or root) in self.late:
            self.imports_needed.append("import %s%s" % (root, " as %s" % alias if alias else ""))
        else:
            if (root, alias) not in self.new_imports:
                self.new_imports.append((root, alias))
        self.bound[root] = alias or root
        return ".".join([alias or root] + parts[1:])

    def seed(self) -> str:
        """The seed a fix passes: the module's ``SEED`` in an entry module; in a library
        module the caller's (``torch.initial_seed()``), so the caller's seeding decides."""
        if self.entry:
            self.seed_used = True
            return self.seed_name
        return self.name("torch.initial_seed") + "()"

    def expr(self, template: str) -> cst.BaseExpression:
        return cst.parse_expression(self.format(template))

    def format(self, template: str) -> str:
        return template.format_map(_Lookup(self))


def _free_name(wanted: str, taken: Set[str]) -> str:
    name, number = wanted, 2
    while name in taken:
        name, number = "%s%d" % (wanted, number), number + 1
    return name


class _Lookup(dict):
    def __init__(self, spelling: Spelling) -> None:
        super().__init__()
        self.spelling = spelling

    def __missing__(self, key: str) -> str:
        if key == "SEED":
            return self.spelling.seed()
        if key == "SEED_VALUE":
            return str(self.spelling.seed_value)
        if key == "tf1_set_random_seed":  # TF 1's graph seed: under the module's compat.v1 alias if it has one
            spelling = self.spelling
            if "tensorflow.compat.v1" in spelling.bound:
                return spelling.name("tensorflow.compat.v1.set_random_seed")
            return spelling.name("tensorflow.set_random_seed")
        if key in _PLACEHOLDER_ROOTS:
            return self.spelling.name(key)
        if key == "monai_worker_init_fn":  # exported by monai.data (monai/data/__init__.py)
            return self.spelling.name("monai.data.worker_init_fn")
        if key == "dgl_graphbolt":  # ``gb`` under ``import dgl.graphbolt as gb``
            return self.spelling.name("dgl.graphbolt")
        return key  # a name used as is (``seed_worker``)


def top_level_imports(module: cst.Module, before: int):
    """(qualified name -> local name for the imports among the first ``before`` statements,
    the local names that only later imports bind)."""
    bound: Dict[str, str] = {}
    late: Set[str] = set()
    for index, statement in enumerate(module.body):
        for node in _imports_in(statement):
            for qualified, local in _bindings(node):
                if index < before:
                    bound.setdefault(qualified, local)
                else:
                    late.add(local)
    late -= set(bound.values())
    return bound, late


def _imports_in(statement):
    if isinstance(statement, cst.SimpleStatementLine):
        return [s for s in statement.body if isinstance(s, (cst.Import, cst.ImportFrom))]
    if isinstance(statement, cst.Try):  # ``try: import x`` / ``except ImportError:``
        return [s for line in statement.body.body if isinstance(line, cst.SimpleStatementLine)
                for s in line.body if isinstance(s, (cst.Import, cst.ImportFrom))]
    return []


def _bindings(node):
    if isinstance(node, cst.Import):
        for alias in node.names:
            full = dotted_name(alias.name)
            if alias.asname is not None:
                yield full, alias.asname.name.value
            else:
                root = full.split(".")[0]
                yield root, root
    elif not node.relative and node.module is not None and not isinstance(node.names, cst.ImportStar):
        module = dotted_name(node.module)
        for alias in node.names:
            name = dotted_name(alias.name)
            local = alias.asname.name.value if alias.asname is not None else name
            yield "%s.%s" % (module, name), local


def top_level_names(module: cst.Module) -> Set[str]:
    names: Set[str] = set()
    for statement in module.body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            names.add(statement.name.value)
        for node in _imports_in(statement):
            names.update(local for _, local in _bindings(node))
        names.update(_assigned_names(statement))
    return names


def assigned_at_top(module: cst.Module, name: str) -> Optional[int]:
    """Index of the first top-level statement assigning ``name``."""
    for index, statement in enumerate(module.body):
        if name in _assigned_names(statement):
            return index
    return None


def _assigned_names(statement) -> Set[str]:
    """Names a top-level ``x = ...`` / ``x: T = ...`` line binds."""
    if not isinstance(statement, cst.SimpleStatementLine):
        return set()
    targets = []
    for small in statement.body:
        if isinstance(small, cst.Assign):
            targets += [t.target for t in small.targets]
        elif isinstance(small, cst.AnnAssign):
            targets.append(small.target)
    return {t.value for t in targets if isinstance(t, cst.Name)}
