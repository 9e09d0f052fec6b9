from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..analysis.args import MISSING, UNKNOWN, find_arg, literal
from ..analysis.hash_order import may_depend_on_hash_order
from ..analysis.switches import environ_update_items, subscript_key
from ..tables.data_order import HASH_SEED_VARIABLE
from .common.base import Report, Rule

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext

_MESSAGE = (
    "sets PYTHONHASHSEED inside the running program, where it has no effect: hash randomization is fixed"
    " at interpreter start-up (only child processes see it) — set it in the environment before Python starts"
)


class HashSeedSetInProcess(Rule):
    """DET208: ``PYTHONHASHSEED`` assigned inside the program.

    What it does: reports ``os.environ["PYTHONHASHSEED"] = ...``,
    ``os.environ.setdefault("PYTHONHASHSEED", ...)``, ``os.environ.update(...)``
    with that key, and ``os.putenv("PYTHONHASHSEED", ...)``.

    Why it matters: the interpreter reads it once at start-up; setting it later
    changes nothing for this process, yet looks like the problem was handled.
    Default mode reports it only in a module that depends on string hashes (it
    takes an order from a set, or calls ``hash()``): elsewhere the line changes no
    rerun (a dependence in another module is not seen: strict mode reports).

    Fix: set it where the process is launched (``PYTHONHASHSEED=0 python train.py``)
    and avoid depending on set order.
    """

    code = "DET208"
    triggers = frozenset({HASH_SEED_VARIABLE})
    invalid = ("import os\nos.environ['PYTHONHASHSEED'] = '0'\nclasses = list(set(names))\n",)
    valid = ("import os\nos.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8'\n", "seed = 'PYTHONHASHSEED'\n")
    sources = (
        (
            "``PYTHONHASHSEED`` is the environment variable Python takes the seed of ``str`` and ``bytes`` "
            "hashes from; unset (or ``random``), the seed is random.",
            "https://docs.python.org/3/using/cmdline.html#envvar-PYTHONHASHSEED",
        ),
        (
            "Setting ``os.environ['PYTHONHASHSEED']`` inside a running script does not change its "
            "hashes; only child processes started afterwards see it.",
            "observed (facts §3)",
        ),
    )
    fix_description = "The variable has to be set before Python starts, where you launch the job."
    fixed = (
        "# set it where Python starts:  PYTHONHASHSEED=0 python train.py\nimport os\n\n"
        "assert os.environ.get('PYTHONHASHSEED') == '0', 'run with PYTHONHASHSEED=0'\n"
    )

    def check(self, ctx: FileContext) -> Iterator[Report]:
        if not ctx.settings.strict and not may_depend_on_hash_order(ctx.module.code):
            return  # nothing here depends on string hashes: the line changes no rerun
        for assignment in ctx.index.assignments:
            target = assignment.target
            key = subscript_key(target)
            if key is not MISSING and literal(key) == (True, HASH_SEED_VARIABLE):
                if ctx.resolver.resolve(target.value, assignment.scope, assignment.order) == "os.environ":
                    yield Report(target, "os.environ[...] assignment " + _MESSAGE)
        for site in ctx.index.calls:
            name = ctx.qualname(site)
            if name in ("os.environ.setdefault", "os.putenv"):
                key = find_arg(site.node, "key", 0)
                if key not in (MISSING, UNKNOWN) and literal(key) == (True, HASH_SEED_VARIABLE):
                    yield Report(site.node, "%s() %s" % (ctx.spelling(site), _MESSAGE))
            elif name == "os.environ.update" and _update_sets_hash_seed(site.node):
                yield Report(site.node, "os.environ.update() " + _MESSAGE)


def _update_sets_hash_seed(call) -> bool:
    return any(literal(key) == (True, HASH_SEED_VARIABLE) for key, _ in environ_update_items(call))
