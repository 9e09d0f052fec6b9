"""Run flake8 with some installed plugin distributions hidden (used by ``benchmark``).

Usage::

    python -m flake8_determinism._flake8_launcher [--without-determinism] [--without-torchfix] <flake8 args>

flake8 discovers plugins in ``flake8.plugins.finder._find_importlib_plugins``,
which yields one ``Plugin`` per entry point of every installed distribution.
We replace that function (``find_plugins`` looks it up as a module global at
call time) with a filter that drops the ``Plugin``s whose ``package`` is one of
the named distributions, then call ``flake8.main.cli.main``.  So "without"
means exactly: the same interpreter, the same flake8 and the same other plugins,
but the plugin is never discovered, imported, registered or run.  Without any
``--without-*`` flag the launcher is plain ``flake8``.
"""

import sys
from typing import Callable, FrozenSet, Iterator, List, Sequence, Tuple

# Launcher flag -> distribution name (compared after PyPI name normalisation).
HIDE_FLAGS = {
    "--without-determinism": "flake8-determinism",
    "--without-torchfix": "torchfix",
}


def _normalize(name: str) -> str:
    from flake8 import utils

    return utils.normalize_pypi_name(name)


def split_args(argv: Sequence[str]) -> Tuple[FrozenSet[str], List[str]]:
    """Leading launcher flags -> hidden distributions; the rest goes to flake8."""
    hidden = set()
    rest = list(argv)
    while rest and rest[0] in HIDE_FLAGS:
        hidden.add(_normalize(HIDE_FLAGS[rest.pop(0)]))
    return frozenset(hidden), rest


def _filtered(find: Callable[[], Iterator], hidden: FrozenSet[str]) -> Callable[[], Iterator]:
    def find_visible_plugins():
        # Plugin.package is the distribution's metadata name (e.g. "TorchFix").
        return (plugin for plugin in find() if _normalize(plugin.package) not in hidden)

    return find_visible_plugins


def hide_plugins(hidden: FrozenSet[str]) -> None:
    if not hidden:
        return
    from flake8.plugins import finder

    finder._find_importlib_plugins = _filtered(finder._find_importlib_plugins, hidden)


def main(argv: Sequence[str]) -> int:
    hidden, flake8_args = split_args(argv)
    hide_plugins(hidden)
    from flake8.main import cli

    return cli.main(flake8_args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
