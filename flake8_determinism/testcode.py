"""Is a module a test module (RULES.md "Test modules")?  By its path or its content.

Path: ``test_*.py``, ``*_test.py``, ``conftest.py``, or a ``tests``/``test``
directory on the way to it.  The directories are read from the path relative to
the working directory when the file lies under it (an editor passes absolute
paths; a checkout under ``/home/me/test/`` is not a test module), else from the
whole path.  Content, from the ``ast`` tree flake8 already built: a module-level
``def test_*``, a class deriving from a ``*TestCase``, or a pytest-style
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
    for node in tree.body:
        if isinstance(node, _FUNCTIONS) and node.name.startswith(E.TEST_FUNCTION_PREFIX):
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
