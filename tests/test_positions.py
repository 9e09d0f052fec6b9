"""Where a finding is reported: the fast path (libcst's private codegen state) and the public
fallback (``libcst.metadata``) give the same start for every node a rule can report."""

import libcst as cst
import pytest

from flake8_determinism import positions
from flake8_determinism.checker import check_source
from flake8_determinism.positions import fast_start_positions, public_start_positions, start_positions
from fixture_support import FIXTURES, settings_for

SOURCES = {
    "decorators, parentheses, comments": (
        "import torch\n\n\n# a comment\n@torch.no_grad()\n@staticmethod\ndef f(a, b=(1, 2)):\n"
        "    # leading comment\n    x = ((a +\n          b))  # trailing\n    return [x for y in a if y]\n\n\n"
        "class C(object):\n    '''doc'''\n\n    @property\n    def p(self):\n        return (yield)\n"
    ),
    "CRLF, tabs, form feed, continuations": (
        "import os\r\nif os.name:\r\n\ty = {'a': 1,\r\n\t     'b': 2}\r\n\tz = (\r\n\t\t# c\r\n\t\ty)\r\n"
        "\x0cdef g(): return os.listdir('.')\r\nw = f'{y!r:>{z}}' 'tail' \\\r\n    'more'\r\n"
    ),
    "statements": (
        "try:\n    import numpy as np\nexcept ImportError:  # optional\n    np = None\nfinally:\n    pass\n"
        "with open('f') as fh, open('g') as gh:\n    data = fh.read()\nfor i, (a, *rest) in enumerate(data):\n"
        "    while i:\n        i -= 1\n    else:\n        continue\nlambda q=1: q\nassert data, 'empty'\n"
        "del data\nglobal G\nmatch x:\n    case [1, *_] | {'k': _} if x:\n        pass\n"
    ),
    "nested deeper than the default stack": "y = " + " + ".join(["a"] * 3000) + "\nz = (\n  # c\n  1)\n",
}
FIXTURE_FILES = ("det307/reset_parameters.py", "det206/order_free.py", "det101/reachability.py")

# Nodes that hold no token of their own: the fast path places them at the next real token (or
# nowhere at the end of a file); rules never report them.  An f-string's text can start with
# spaces, which the fast path counts and the fallback skips.
_NOT_REPORTED = (
    cst.Module, cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.TrailingWhitespace, cst.Newline,
    cst.EmptyLine, cst.Comment, cst.FormattedStringText,
)


def _every_node(module: cst.Module):
    found, stack = [], [module]
    while stack:  # not a visitor: the deepest source would overflow its recursion
        node = stack.pop()
        found.append(node)
        stack.extend(node.children)
    return found


def _modules():
    for name, source in SOURCES.items():
        yield name, cst.parse_module(source)
    for name in FIXTURE_FILES:
        yield name, cst.parse_module((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name,module", list(_modules()), ids=[name for name, _ in _modules()])
def test_the_fallback_gives_the_fast_paths_positions(name, module):
    nodes = [node for node in _every_node(module) if not isinstance(node, _NOT_REPORTED)]
    fast = fast_start_positions(module, nodes)
    assert len(fast) == len({id(node) for node in nodes})
    assert public_start_positions(module, nodes) == fast


def test_this_libcst_takes_the_fast_path():
    # libcst 1.1 to 1.9 have the private codegen state the fast path needs (.ci/run tests 1.1).
    assert positions._fast_path_works()


class _Changed:  # a codegen state whose constructor no longer takes these arguments
    def __init__(self, *args, **kwargs):
        raise TypeError("unexpected keyword argument")


@pytest.fixture
def without_fast_path(monkeypatch):
    """Make ``start_positions`` run as where libcst has moved (None) or changed its private
    codegen state."""

    def take_away(finder):
        monkeypatch.setattr(positions, "_StartFinder", finder)
        positions._fast_path_works.cache_clear()

    yield take_away
    monkeypatch.undo()
    positions._fast_path_works.cache_clear()


@pytest.mark.parametrize("finder", [None, _Changed], ids=["moved", "changed"])
def test_start_positions_falls_back_to_the_public_api(without_fast_path, finder):
    module = cst.parse_module(SOURCES["decorators, parentheses, comments"])
    nodes = [node for node in _every_node(module) if not isinstance(node, _NOT_REPORTED)]
    fast = start_positions(module, nodes)
    without_fast_path(finder)
    assert not positions._fast_path_works()
    assert start_positions(module, nodes) == fast


@pytest.mark.parametrize("name", ["det307/parameter_never_initialized.py", "det101/reachability.py"])
def test_findings_are_placed_alike_without_the_fast_path(without_fast_path, name):
    source = (FIXTURES / name).read_text(encoding="utf-8")
    found = check_source(source, settings_for("strict"), filename=name)
    assert found
    without_fast_path(None)
    assert check_source(source, settings_for("strict"), filename=name) == found
