from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, Optional, Set, Tuple

from .._lazy import cst
from ..analysis.args import MISSING, UNKNOWN, find_arg, is_none, literal
from ..analysis.nodes import callee_name, calls_in, own_nodes
from ..analysis.scopes import lookup
from ..tables.seeding import FRAMEWORKS
from .common import edits
from .common.base import Report, Rule

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext

_DECLARING_WORDS = frozenset({"None", "add_argument", "field"}) | frozenset(
    "DEFINE_" + kind for kind in ("integer", "int", "string", "float")
)


class OptionalSeed(Rule):
    """DET109: seeding that runs only when an optional seed option is given.

    What it does: in an entry module, reports a guard such as
    ``if args.seed is not None:`` (or ``if args.seed:``) around the seeding when
    the seed option is declared here with ``None`` as its default: argparse
    ``add_argument("--seed", default=None)`` or without a default, absl
    ``DEFINE_integer("seed", None, ...)``, or a dataclass/config field
    ``seed: Optional[int] = None``.  Reported once, at the guard.  Not when the
    option is filled in elsewhere (``set_defaults(seed=0)``, ``args.seed = ...``),
    nor for a library function's own ``seed=None`` parameter: that is its
    caller's choice (unless every caller here passes it the optional option:
    ``train(seed=args.seed)``).  Also a truth test (``if args.seed:``) of a seed option whose
    default is 0: the default run skips the seeding (fixed, unsafely, to ``is not None``); and
    a fallback under ``if not args.seed:`` that replaces it (``args.seed = int(time.time())``,
    CleanRL's bug): the default run draws a new seed every time (fixed, unsafely, to ``is None``;
    the draw is not reported again as DET105).
    The guarded seeding still counts for the draw rules.

    Why it matters: the run everyone starts first, without ``--seed``, seeds
    nothing; it cannot be repeated, and nobody notices until two runs disagree.

    Example: ``parser.add_argument("--seed", type=int)`` ...
    ``if args.seed is not None: set_seed(args.seed)``.
    Fix: give the option a default (``default=0``) and seed unconditionally.
    """

    code = "DET109"
    fixes = "unsafe"
    precheck_scope = "program"  # entry modules and modules that parse the command line (``check``)
    invalid = (
        "import argparse, random\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument('--seed', type=int, default=None)\nargs = parser.parse_args()\n"
        "if args.seed is not None:\n    random.seed(args.seed)\nprint(random.random())\n",
    )
    valid = (
        "import argparse, random\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument('--seed', type=int, default=0)\nargs = parser.parse_args()\n"
        "if args.seed is not None:\n    random.seed(args.seed)\nprint(random.random())\n",
        "import random\n\ndef draw(seed=None):\n    if seed is not None:\n        random.seed(seed)\n"
        "    return random.random()\n",
    )
    sources = (
        (
            "An argparse option's ``default`` is ``None`` unless given: the value used when the option "
            "is absent from the command line.",
            "https://docs.python.org/3/library/argparse.html#default",
        ),
        (
            "Unseeded, Python's ``random`` is seeded from the clock or the OS (and so are NumPy's and "
            "torch's global RNGs).",
            "https://docs.python.org/3/library/random.html#random.seed",
        ),
    )
    fix_description = (
        "Changes the option's default from ``None`` to ``0`` (``default=0``). A run without "
        "``--seed`` then seeds with 0 instead of not seeding at all, which changes its behaviour. "
        "For a seed option that defaults to 0, ``if args.seed:`` becomes ``if args.seed is not None:``."
    )

    def might_fire(self, text, settings) -> bool:
        return "seed" in text.text and text.has_any(_DECLARING_WORDS)

    def check(self, ctx: FileContext) -> Iterator[Report]:
        facts = ctx.facts
        if not ctx.index.seed_guards:
            return
        # The options are the program's own when the module parses its command line: the run that
        # starts it gets the guard wherever the code sits (an entry, or a helper's ``main()``).
        program = facts.is_entry or _parses_command_line(ctx)
        if not program:
            return
        fixes: Dict[str, edits.Fix] = {}
        options = optional_seed_options(ctx, fixes)
        zeros = _zero_default_seed_options(ctx)
        if not options and not zeros:
            return
        reported: Set[str] = set()
        for guard, scope, fn, order in ctx.index.seed_guards:
            if facts.is_entry and not facts.reaches(fn):
                continue
            tested = _guarded(guard.test)
            if tested is None:
                continue
            expr, runs_when_given = tested
            dest = _option_name(ctx, expr, scope, order)
            if dest in reported or (dest not in options and dest not in zeros):
                continue
            found = _problem(ctx, guard, expr, runs_when_given, options.get(dest), zeros.get(dest), fixes.get(dest))
            if found is not None:
                reported.add(dest)
                message, fix = found
                yield Report(guard, message, fix=fix)


def _problem(ctx: FileContext, guard, expr, runs_when_given: bool, optional: Optional[str], zero: Optional[str],
             default_fix: Optional[edits.Fix]):
    """(message, fix) for a seed guard on an option that defaults to None (``optional``: how to
    name it; ``default_fix`` gives it a default) or to 0 (``zero``); None when the guard is fine."""
    if zero and not runs_when_given and _truthiness(guard.test, expr) and _assigns(guard.body, expr, ctx):
        # ``if not args.seed: args.seed = int(time.time())``: 0, the default, counts as none
        return ("%s is 0 by default and this test takes 0 for no seed: the default run replaces it with a new"
                " seed every run — test `is None`" % zero, _none_test_fix(guard.test, ctx, negated=True))
    block = guard.body if runs_when_given else getattr(guard.orelse, "body", None)
    if block is None or not _seeds_in(ctx, block):
        return None
    if optional:
        return ("seeding runs only when %s is given, and it defaults to None: a run without it is unseeded and"
                " cannot be repeated — give it a default (e.g. default=0) and seed unconditionally" % optional,
                default_fix)
    if _truthiness(guard.test, expr):
        return ("seeding is skipped when %s is 0, its default: the default run is unseeded and cannot be"
                " repeated — test `is not None` (or seed unconditionally)" % zero,
                _none_test_fix(guard.test, ctx, negated=False))
    return None


def optional_seed_options(ctx: FileContext, fixes: Optional[Dict[str, edits.Fix]] = None) -> Dict[str, str]:
    """Seed options declared here whose default is ``None``: attribute name -> how to name it.
    ``fixes`` is filled with the (unsafe) fix of each: a default of ``--seed`` instead of None."""
    fixes = {} if fixes is None else fixes
    options: Dict[str, str] = {}
    filled: Set[str] = set()
    for site in ctx.index.calls:
        call, method = site.node, site.method_name
        if method == "add_argument":
            dest, spelled = _argparse_dest(call)
            if dest and "seed" in dest.lower() and _defaults_to_none(call, "default", None):
                if literal(find_arg(call, "required")) != (True, True):
                    options[dest] = spelled
                    fixes[dest] = _default_fix(call, "default", None)
        elif method.startswith("DEFINE_") and call.args:
            known, name = literal(find_arg(call, "name", 0))
            if known and isinstance(name, str) and "seed" in name.lower() and _defaults_to_none(call, "default", 1):
                options[name] = "--" + name
                fixes[name] = _default_fix(call, "default", 1)
        elif method == "set_defaults":
            filled |= {a.keyword.value for a in call.args if a.keyword is not None and not is_none(a.value)}
    for node, body_scope, _ in ctx.index.classes:
        for name, bindings in body_scope.bindings.items():
            if "seed" in name.lower() and bindings[-1].kind == "assign" and _none_default(bindings[-1].value):
                options.setdefault(name, "the %s field of %s" % (name, node.name.value))
                value = bindings[-1].value
                fixes.setdefault(name, _default_fix(value, "default", None) if isinstance(value, cst.Call)
                                 else edits.replace(value, _SEED_VALUE, _WHAT, safe=False))
    for assignment in ctx.index.assignments:
        target = assignment.target
        if isinstance(target, cst.Attribute) and target.attr.value in options:
            if assignment.value is not None and not is_none(assignment.value):
                filled.add(target.attr.value)
    return {dest: spelled for dest, spelled in options.items() if dest not in filled}


def _zero_default_seed_options(ctx: FileContext) -> Dict[str, str]:
    """Seed options declared here with the default 0: attribute name -> how to name it."""
    options: Dict[str, str] = {}
    for site in ctx.index.calls:
        call, method = site.node, site.method_name
        if method == "add_argument":
            dest, spelled = _argparse_dest(call)
            value = find_arg(call, "default")
            if dest and "seed" in dest.lower() and value not in (MISSING, UNKNOWN) and literal(value) == (True, 0):
                options[dest] = spelled
        elif method.startswith("DEFINE_") and call.args:
            known, name = literal(find_arg(call, "name", 0))
            value = find_arg(call, "default", 1)
            if known and isinstance(name, str) and "seed" in name.lower() and value not in (MISSING, UNKNOWN) \
                    and literal(value) == (True, 0):
                options[name] = "--" + name
    return options


def _parses_command_line(ctx: FileContext) -> bool:
    """The module reads the command line: ``parser.parse_args()``, Hugging Face's
    ``parse_args_into_dataclasses()``, absl's ``app.run``."""
    return any(site.method_name in _PARSING or ctx.qualname(site) in _ABSL_RUN for site in ctx.index.calls)


_PARSING = frozenset({"parse_args", "parse_known_args", "parse_args_into_dataclasses"})
_ABSL_RUN = frozenset({"absl.app.run"})


def _truthiness(test, expr) -> bool:
    """The guard reads the seed as a truth value (``if args.seed:``, ``if args.seed and x:``),
    which 0 fails."""
    if test is expr:
        return True
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _truthiness(test.expression, expr)
    if isinstance(test, cst.BooleanOperation):
        return _truthiness(test.left, expr) or _truthiness(test.right, expr)
    return False


def _none_test_fix(test, ctx: FileContext, negated: bool) -> Optional[edits.Fix]:
    """``if args.seed:`` -> ``if args.seed is not None:``; ``negated``: ``if not args.seed:`` ->
    ``if args.seed is None:`` (only those plain shapes).  Unsafe: seed 0 then counts as a seed."""
    tested = test
    if negated:
        if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
            return None
        tested, comparison, what = test.expression, " is None", "take only a missing seed for none: test `is None`"
    else:
        comparison, what = " is not None", "seed when the seed is 0 too: test `is not None`"
    if not isinstance(tested, (cst.Attribute, cst.Name)):
        return None
    return edits.replace(test, ctx.module.code_for_node(tested) + comparison, what, safe=False)


def _assigns(block, expr, ctx: FileContext) -> bool:
    """The block assigns the tested option (a fallback seed)."""
    spelled = ctx.module.code_for_node(expr)
    return any(isinstance(node, cst.AssignTarget) and ctx.module.code_for_node(node.target) == spelled
               for node in own_nodes([block]))


_SEED_VALUE = "{SEED_VALUE}"  # the number given to ``determinism-fix --seed``
_WHAT = "default the seed option to --seed's value instead of None"


def _default_fix(call, keyword: str, position: Optional[int]) -> edits.Fix:
    """Unsafe (docs/contract.md): a run without the option is then seeded, which changes what it does."""
    return edits.set_argument(call, keyword, position, _SEED_VALUE, _WHAT, safe=False)


def _argparse_dest(call) -> Tuple[str, str]:
    flags = []
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            break
        known, value = literal(arg.value)
        if known and isinstance(value, str):
            flags.append(value)
    if not flags:
        return "", ""
    spelled = next((f for f in flags if f.startswith("--")), flags[0])
    known, dest = literal(find_arg(call, "dest"))
    if not (known and isinstance(dest, str)):
        dest = spelled.lstrip("-").replace("-", "_")
    return dest, spelled


def _defaults_to_none(call, keyword: str, position: Optional[int]) -> bool:
    value = find_arg(call, keyword, position)
    return value is MISSING or (value is not UNKNOWN and is_none(value))


def _none_default(value) -> bool:
    """``= None`` or ``= field(default=None, ...)`` (a field without a default is required)."""
    if is_none(value):
        return True
    if isinstance(value, cst.Call) and callee_name(value) == "field":
        default = find_arg(value, "default")
        return default not in (MISSING, UNKNOWN) and is_none(default)
    return False


def _guarded(test) -> Optional[Tuple[object, bool]]:
    """(tested expression, does the body run when the seed is given?) for a seed guard."""
    if isinstance(test, (cst.Attribute, cst.Name)):
        return test, True
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _guarded(test.expression)
        return (inner[0], not inner[1]) if inner else None
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        for side in (test.left, test.right):
            inner = _guarded(side)
            if inner is not None and inner[1]:
                return inner
        return None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if not is_none(target.comparator) or not isinstance(test.left, (cst.Attribute, cst.Name)):
            return None
        if isinstance(target.operator, (cst.IsNot, cst.NotEqual)):
            return test.left, True
        if isinstance(target.operator, (cst.Is, cst.Equal)):
            return test.left, False
    return None


def _option_name(ctx: FileContext, expr, scope, order) -> Optional[str]:
    """``args.seed`` -> ``seed``; a local ``seed = args.seed`` too; a parameter: what every
    caller here passes for it (``train(seed=args.seed)``), else None (the caller's choice)."""
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    if not isinstance(expr, cst.Name):
        return None
    binding = lookup(scope, expr.value, order)
    if binding is None:
        return None
    if binding.kind == "assign" and isinstance(binding.value, cst.Attribute):
        return binding.value.attr.value
    if binding.kind == "param" and binding.scope.function is not None:
        fn = binding.scope.function
        passed = set()
        for site in ctx.facts.callers.get(id(fn.node), ()):
            value = find_arg(site.node, expr.value, _position(fn.node, expr.value))
            passed.add(value.attr.value if isinstance(value, cst.Attribute) else None)
        return passed.pop() if len(passed) == 1 else None
    return None


def _position(function, name: str) -> Optional[int]:
    params = list(function.params.posonly_params) + list(function.params.params)
    for index, param in enumerate(params):
        if param.name.value == name:
            return index
    return None


def _seeds_in(ctx: FileContext, block) -> bool:
    calls = calls_in([block])
    frameworks = frozenset(FRAMEWORKS)
    return any(
        id(site.node) in calls and ctx.facts.call_seeds(site) & frameworks for site in ctx.index.calls
    )
