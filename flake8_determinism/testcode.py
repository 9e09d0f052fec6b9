"""Is a module a test module (docs/contract.md "Test modules")?  By its path or its content.

Path: ``test_*.py``, ``*_test.py``, ``conftest.py``, or a ``tests``/``test``
directory on the way to it.  The directories are read from the path relative to
the working directory when the file lies under it (an editor passes absolute
paths; a checkout under ``/home/me/test/`` is not a test module), else from the
whole path.  Content, from the ``ast`` tree flake8 already built: a module-level
``def test_*`` that the module never calls itself (a training script's ``test_step``/``test_epoch``
is called by its loop), a class deriving from a ``*TestCase``, or a pytest-style
``class Test*`` with a ``test_*`` method.
"""

import ast
import os
from typing import Optional

from .tables import entry as E

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def is_test_path(filename: str) -> bool:
    if not filename or filename in ("-", "stdin"):
        return False
    name = os.path.basename(filename)
    if name in E.TEST_FILE_NAMES or name.startswith(E.TEST_FILE_PREFIX) or name.endswith(E.TEST_FILE_SUFFIX):
        return True
    directory = os.path.dirname(os.path.normpath(filename))
    if os.path.isabs(directory):
        try:
            relative = os.path.relpath(directory)
        except ValueError:  # another drive (Windows)
            relative = directory
        if not relative.startswith(os.pardir):
            directory = relative
    parts = directory.replace("\\", "/").split("/")
    return not E.TEST_DIRECTORIES.isdisjoint(parts)


def defines_tests(tree: ast.Module) -> bool:
    called = None
    for node in tree.body:
        if isinstance(node, _FUNCTIONS) and node.name.startswith(E.TEST_FUNCTION_PREFIX):
            # A test runner calls a test; a training script calls its own ``test_step``/``test_epoch``.
            if called is None:
                called = _called_names(tree)
            if node.name not in called:
                return True
        if isinstance(node, ast.ClassDef):
            if any(_base_name(base).endswith(E.TEST_CASE_BASE_SUFFIX) for base in node.bases):
                return True
            if node.name.startswith("Test") and any(
                isinstance(item, _FUNCTIONS) and item.name.startswith(E.TEST_FUNCTION_PREFIX) for item in node.body
            ):
                return True
    return False


def is_test_module(filename: str, tree: Optional[ast.Module]) -> bool:
    return is_test_path(filename) or (tree is not None and defines_tests(tree))


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _called_names(tree: ast.Module) -> set:
    """Names called anywhere in the module (``test_step(x, y)``), also passed on as a callable
    (``map(test_one, items)``, ``pool.submit(test_one, ...)``)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for part in [node.func, *node.args, *(k.value for k in node.keywords)]:
                if isinstance(part, ast.Name):
                    found.add(part.id)
    return found
