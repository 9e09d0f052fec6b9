"""Module facts shared by the rules: which RNGs are seeded where, entry/training module.

Seeding is tracked per framework as *events*: calls that seed it, directly
(``torch.manual_seed``), through an ecosystem helper (facts §8), through a
function defined here whose body seeds it (transitively), or through any other
call whose name contains ``seed`` (assumed to seed everything).

A draw is seeded when, in the same body (module level or one function), a
seeding event comes before it; or, for a draw inside a function, when every
way into that function is seeded: some local call of the function is itself
seeded at that point, or -- for a function nobody here calls (a ``main`` run by
a CLI library, a method a framework calls) -- the module seeds at import time or
in such an entry function.
"""

from typing import Dict, FrozenSet, List, Optional, Set

import libcst as cst

from ..tables import determinism as D
from ..tables import seeding as T
from ..tables.aliases import KNOWN_ROOTS
from . import calls
from .args import MISSING, find_arg, is_none, literal
from .cst_calls import call_of
from .demos import is_benchmark, is_library_demo, is_self_test, main_block_calls
from .index import Assignment, CallSite, ModuleIndex
from .reach import reachable_functions
from .scopes import FunctionInfo, Resolver, lookup
from .switches import assignment_switches, call_switches

_EMPTY: FrozenSet[str] = frozenset()
# Start their target in a new interpreter (the spawn start method), unseeded.
SPAWNING = frozenset({"torch.multiprocessing.spawn", "torch.multiprocessing.start_processes"})
SPAWN_METHODS = frozenset(name.rsplit(".", 1)[-1] for name in SPAWNING)
_SWITCH_ATTRIBUTES = frozenset({"deterministic"})  # attribute assignments that can flip a switch


def call_signature(call) -> tuple:
    """(how many positional arguments, which keywords, which are a literal false, the literals:
    strings, others as ``calls.FALSE_LITERAL``/``TRUE_LITERAL``) a libcst call passes; -1/"**": unknown
    (``summary.signature`` for ``ast``)."""
    positional = 0
    keywords, off, texts = [], [], []
    for index, arg in enumerate(call.args):
        known, value = literal(arg.value)
        falsy = known and value in (False, None, 0) and not isinstance(value, str)
        text = (value if isinstance(value, str) else calls.literal_flag(value)) if known else None
        if arg.star == "*":
            positional = -1
        elif arg.star == "**":
            keywords.append("**")
        elif arg.keyword is not None:
            keywords.append(arg.keyword.value)
            if falsy:
                off.append(arg.keyword.value)
            if text is not None:
                texts.append((arg.keyword.value, text))
        elif positional >= 0:
            if falsy:
                off.append("#%d" % positional)
            if text is not None:
                texts.append(("#%d" % positional, text))
            positional += 1
    return positional, tuple(keywords), tuple(off), tuple(texts)


class _ImportSite:
    """An import statement, placed like a call site among the seeding events."""

    __slots__ = ("scope", "fn", "order")

    def __init__(self, scope, fn, order) -> None:
        self.scope, self.fn, self.order = scope, fn, order


class ModuleFacts:
    def __init__(self, index: ModuleIndex, resolver: Resolver, settings, qualname, project=lambda: None,
                 filename: str = "", path: Optional[str] = None) -> None:
        self.index = index
        self.resolver = resolver
        self.settings = settings
        self.qualname = qualname
        # The project (``analysis/project``), asked about every call an entry module makes into
        # it; a library module asks only about calls named like seeding (a cost choice: a
        # library's seeding matters little outside strict mode).
        self._project = project
        self._asks_project = bool(index.main_guards) or index.module_work
        self.local_callee: Dict[int, FunctionInfo] = {}  # id(call node) -> local function
        self.callers: Dict[int, List[CallSite]] = {}  # id(function node) -> call sites
        self.direct_seeds: Dict[int, FrozenSet[str]] = {}  # id(call node) -> frameworks and switches
        self.assignment_effects: List[tuple] = []  # (Assignment, switches it turns on)
        self._seeds_of_function: Dict[int, FrozenSet[str]] = {}
        self._entry_memo: Dict[tuple, bool] = {}
        self._reachable: Optional[Set[int]] = None
        self._calls: Dict[int, calls.Call] = {}  # id(call node) -> the call as plain values
        self._self_test: Optional[bool] = None
        self._works: Optional[bool] = None  # ``is_entry``'s answer, once asked
        self._benchmark: Optional[bool] = None
        self.filename = filename  # the linted file's name, as flake8 shows it (a benchmark's says so)
        self.path = path or filename  # the file on disk (its folder tells a package's module)
        self._main_calls: Optional[Set[int]] = None  # ids of the calls in ``__main__`` blocks
        self._spawned: Optional[Set[int]] = None
        self._link_calls()
        self._close_over_local_functions()
        self._collect_events()

    # -- seeding -------------------------------------------------------------
    def _link_calls(self) -> None:
        functions = self.index.functions
        for site in self.index.calls:
            callee = self.resolver.local_function(site.node.func, site.scope, site.order, functions)
            if callee is not None:
                self.local_callee[id(site.node)] = callee
                self.callers.setdefault(id(callee.node), []).append(site)
            else:
                seeds = self._seeds_by_name(site) | call_switches(site, self.qualname(site), self.call, self.index.parents)
                if seeds:
                    self.direct_seeds[id(site.node)] = seeds
        for assignment in self.index.assignments:
            switches = assignment_switches(assignment, self._assigned_name(assignment))
            if switches:
                self.assignment_effects.append((assignment, switches))

    def _assigned_name(self, assignment: Assignment) -> Optional[str]:
        target = assignment.target
        if isinstance(target, cst.Attribute) and target.attr.value not in _SWITCH_ATTRIBUTES:
            return None
        return self.resolver.resolve(target, assignment.scope, assignment.order)

    def _seeds_by_name(self, site: CallSite) -> FrozenSet[str]:
        qualname = self.qualname(site)
        name = site.method_name
        if isinstance(site.node.func, cst.Attribute) and name in T.SEEDING_METHODS:
            return T.SEEDING_METHODS[name]  # ``fabric.seed_everything(...)``, whatever ``fabric`` is
        if qualname is not None:
            if qualname in T.CONFIG_FILE_SEEDERS:
                configured = self._config_seeds(qualname)
                if configured is not None:
                    return configured  # what the run's configuration files seed
            if qualname in T.SEEDERS:
                return T.SEEDERS[qualname]
            if qualname in T.SEEDING_KEYWORDS:
                keyword, seeds = T.SEEDING_KEYWORDS[qualname]
                given = find_arg(site.node, keyword)
                known, value = literal(given) if given is not MISSING else (True, None)
                unseeded = known and (value is None or isinstance(value, bool))  # absent, None, True, False
                return _EMPTY if unseeded else seeds
            if T.is_estimator_config(qualname):
                given = find_arg(site.node, T.ESTIMATOR_SEED_KEYWORD)
                return _EMPTY if given is MISSING or is_none(given) else frozenset({T.TF})
            if T.seeds_when_built(qualname):
                return T.TRAINER_SEEDS
            if self._named_as_seed_function(qualname):
                return T.ALL_FRAMEWORKS
            effects = self.project_effects(qualname, name, site)
            if effects is not None:
                return effects.seeds  # a project function: exactly what its body seeds
            if qualname in T.SEEDING_LIBRARY_CLASSES and self._project_misses(qualname):
                return T.SEEDING_LIBRARY_CLASSES[qualname]  # coqui's ``trainer.Trainer``
            if qualname.split(".")[0] in KNOWN_ROOTS:
                return _EMPTY
        elif self._builds_seeding_trainer(site):
            return T.TRAINER_SEEDS
        if name in self.settings.seed_functions:
            return T.ALL_FRAMEWORKS
        if not T.named_like_seeding(name, self.settings.strict):
            return _EMPTY
        if qualname is None and isinstance(site.node.func, cst.Attribute) and name in T.OBJECT_SEED_METHODS:
            return _EMPTY  # ``g.manual_seed(0)``: seeds that generator object only
        return T.ALL_FRAMEWORKS

    def _config_seeds(self, loader: str) -> Optional[FrozenSet[str]]:
        project = self._project() if self._asks_project else None
        return project.config_seeds(loader) if project is not None else None

    def project_effects(self, qualname: Optional[str], name: str = "", site: Optional[CallSite] = None):
        """What calling ``qualname`` (at ``site``) does, when the project defines it (``project.Effects``)."""
        if not qualname or not (self._asks_project or "seed" in name.lower()):
            return None
        if site is not None and self._asks_project and "seed" not in name.lower() and not self.reaches(site.fn):
            return None  # code no run reaches: what it calls matters to no run (and costs)
        project = self._project()
        if project is None:
            return None
        return project.call_effects(qualname, call_signature(site.node) if site is not None else None)

    def _project_misses(self, qualname: str) -> bool:
        """The project (if any) defines no ``qualname``: the name is the library's."""
        project = self._project()
        return project is None or project.target(qualname) is None

    def builds_seeding_trainer(self, site: CallSite) -> bool:
        """``Trainer(...)``/``SFTTrainer(...)`` or a class defined here deriving from one."""
        qualname = self.qualname(site)
        if qualname is not None:
            return T.seeds_when_built(qualname)
        return self._builds_seeding_trainer(site)

    def _builds_seeding_trainer(self, site: CallSite) -> bool:
        func = site.node.func
        if not isinstance(func, cst.Name) or not self.index.classes:
            return False
        binding = lookup(site.scope, func.value, site.order)
        if binding is None or binding.kind != "class":
            return False
        return any(
            T.seeds_when_built(self.resolver.resolve(base.value, scope, order) or "")
            for node, scope, order in self.index.local_ancestry(binding.node)
            for base in node.bases
        )

    def _named_as_seed_function(self, qualname: str) -> bool:
        """``--determinism-seed-functions`` entries match the qualified name or its tail."""
        dotted = "." + qualname.lstrip(".")
        return any(qualname == n or dotted.endswith("." + n) for n in self.settings.seed_functions)

    def _close_over_local_functions(self) -> None:
        direct: Dict[int, Set[str]] = {}
        callees: Dict[int, Set[int]] = {}
        for site in self.index.calls:
            if site.fn is None:
                continue
            key = id(site.fn.node)
            seeds = self.direct_seeds.get(id(site.node))
            if seeds:
                direct.setdefault(key, set()).update(seeds)
            callee = self.local_callee.get(id(site.node))
            if callee is not None:
                callees.setdefault(key, set()).add(id(callee.node))
        for assignment, switches in self.assignment_effects:
            if assignment.fn is not None:
                direct.setdefault(id(assignment.fn.node), set()).update(switches)
        result = {k: set(v) for k, v in direct.items()}
        changed = True
        while changed:
            changed = False
            for fn_key, targets in callees.items():
                mine = result.setdefault(fn_key, set())
                before = len(mine)
                for target in targets:
                    mine |= result.get(target, set())
                changed = changed or len(mine) != before
        self._seeds_of_function = {k: frozenset(v) for k, v in result.items()}

    def function_seeds(self, fn: FunctionInfo) -> FrozenSet[str]:
        """Frameworks (and switches) a function defined here seeds when it runs."""
        return self._seeds_of_function.get(id(fn.node), _EMPTY)

    def call_seeds(self, site: CallSite) -> FrozenSet[str]:
        """Frameworks seeded by running this call."""
        callee = self.local_callee.get(id(site.node))
        if callee is not None:
            return self._seeds_of_function.get(id(callee.node), _EMPTY)
        return self.direct_seeds.get(id(site.node), _EMPTY)

    def _collect_events(self) -> None:
        # framework -> function key (None: module level) -> orders of seeding calls
        # (switches count as "frameworks" here: turning one on is an event like seeding)
        self.events: Dict[str, Dict[Optional[int], List[int]]] = {
            fw: {} for fw in T.ALL_FRAMEWORKS | D.SWITCHES | {T.EXPLICIT_SEED}
        }
        effects = [(site, self.call_seeds(site)) for site in self.index.calls] + self.assignment_effects
        effects += self._import_effects()
        effects.sort(key=lambda pair: pair[0].order)
        for where, seeds in effects:
            key = id(where.fn.node) if where.fn is not None else None
            for fw in seeds:
                self.events[fw].setdefault(key, []).append(where.order)

    def _import_effects(self) -> List[tuple]:
        """Project modules that seed when imported: a seeding event at the import statement."""
        project = self._project() if self._asks_project else None
        if project is None:
            return []
        found = []
        for dotted, scope, fn, order in self.index.imports:
            seeds = project.import_seeds(dotted)
            if seeds:
                found.append((_ImportSite(scope, fn, order), seeds))
        return found

    def _is_entry_function(self, fn: FunctionInfo) -> bool:
        """Run from outside this module (never called here, but reachable)."""
        if id(fn.node) in self.callers:
            return False
        return fn.name == "<lambda>" or fn.decorated or fn.is_method or self.index.name_is_used(fn.name)

    @property
    def spawned(self) -> Set[int]:
        """ids of the functions ``torch.multiprocessing.spawn`` starts, each in a new interpreter
        (the *spawn* start method): the parent's seeds do not reach them."""
        if self._spawned is None:
            self._spawned = set()
            for site in self.index.calls:
                if site.method_name in SPAWN_METHODS and self.qualname(site) in SPAWNING and site.node.args:
                    callee = self.resolver.local_function(
                        site.node.args[0].value, site.scope, site.order, self.index.functions)
                    if callee is not None:
                        self._spawned.add(id(callee.node))
        return self._spawned

    def spawned_root(self, fn: Optional[FunctionInfo]) -> Optional[FunctionInfo]:
        """The spawned function whose process runs ``fn`` (itself, or the only kind of caller
        it has), else None."""
        if fn is None or not self.spawned:
            return None
        seen, todo, roots = set(), [fn], []
        while todo:
            current = todo.pop()
            if id(current.node) in seen:
                continue
            seen.add(id(current.node))
            if id(current.node) in self.spawned:
                roots.append(current)
                continue
            callers = self.callers.get(id(current.node))
            if not callers or any(c.fn is None for c in callers):
                return None  # also run by the parent
            todo.extend(c.fn for c in callers)
        return roots[0] if roots else None

    def _seeded_globally(self, fw: str) -> bool:
        for key in self.events[fw]:
            if key is None:
                return True
            fn = self.index.functions.get(key)
            if fn is not None and self._is_entry_function(fn):
                return True
        return False

    def seeded_at(self, fw: str, site: CallSite) -> bool:
        """Is the global RNG of ``fw`` seeded when ``site`` runs?"""
        return self._seeded_before(fw, site.fn, site.order)

    def seeded_later_in_body(self, fw: str, site: CallSite) -> bool:
        """Is ``fw`` seeded after ``site`` in the same body?  (A DataLoader draws its
        order when it is iterated, which is usually after a later ``set_seed``.)"""
        key = id(site.fn.node) if site.fn is not None else None
        return any(order > site.order for order in self.events[fw].get(key, ()))

    def _seeded_before(self, fw: str, fn: Optional[FunctionInfo], order: int) -> bool:
        key = id(fn.node) if fn is not None else None
        orders = self.events[fw].get(key)
        if orders and orders[0] < order:
            return True
        if fn is None:
            return False
        return self._seeded_on_entry(fw, fn)

    def _seeded_on_entry(self, fw: str, fn: FunctionInfo) -> bool:
        memo_key = (fw, id(fn.node))
        if memo_key in self._entry_memo:
            return self._entry_memo[memo_key]
        self._entry_memo[memo_key] = False  # recursion guard
        callers = self.callers.get(id(fn.node))
        if id(fn.node) in self.spawned:
            result = False  # a fresh interpreter: what its parent seeded does not reach it
        elif callers:
            result = any(self._seeded_before(fw, c.fn, c.order) for c in callers)
        else:
            result = self._seeded_globally(fw)
        self._entry_memo[memo_key] = result
        return result

    def seeds_anything(self) -> bool:
        """Any reachable seeding at all (a project function that seeds an object counts), or an
        explicit ``random_state=``/``seed=`` somewhere."""
        for framework in T.ALL_FRAMEWORKS | {T.EXPLICIT_SEED}:
            for key in self.events[framework]:
                if key is None:
                    return True
                fn = self.index.functions.get(key)
                if fn is not None and (id(fn.node) in self.callers or self._is_entry_function(fn)):
                    return True
        for site in self.index.calls:
            for arg in site.node.args:
                if arg.keyword is not None and arg.keyword.value in T.EXPLICIT_SEED_KEYWORDS:
                    if not is_none(arg.value):
                        return True
        return False

    def turns_on(self, switch: str) -> bool:
        """Does the module turn ``switch`` on anywhere (tables/determinism.py)?"""
        return bool(self.events[switch])

    # -- entry / training ------------------------------------------------------
    @property
    def is_entry(self) -> bool:
        """An entry module (docs/contract.md "Entry module (tightened)"): its ``__main__`` block or
        module-level code runs.  In default mode that code must also be seen to do work (``does_work``):
        where it is not, default mode is quiet and strict mode judges the module as an entry."""
        if not (self.index.main_guards or self.index.module_work):
            return False
        if self._works is None:
            # ``if __name__ == "__main__": pass`` starts nothing: no calls, no entry.
            starts = self.index.module_work or bool(self.main_calls)
            self._works = starts and (self.settings.strict or self.does_work())
        return self._works

    def does_work(self) -> bool:
        """The code the module runs when started trains, evaluates, generates or writes a result
        (``calls.does_work``), here or in the project code it calls."""
        reached = [site for site in self.index.calls if self.reaches(site.fn)]
        for site in reached:
            if calls.may_work(site.method_name) and calls.does_work(self.call(site), self.index.imported_roots):
                return True
            if self.qualname(site) is None and self._builds_seeding_trainer(site):
                return True  # ``MyTrainer(...)``, a subclass of a library Trainer defined here
        for site in reached:
            if site.method_name and id(site.node) not in self.local_callee:
                effects = self.project_effects(self.qualname(site), site.method_name, site)
                if effects is not None and (effects.works or effects.trains):
                    return True
        return False

    def reaches(self, fn: Optional[FunctionInfo]) -> bool:
        """Does module-level code (the ``__main__`` block included) reach code in ``fn``?"""
        if fn is None:
            return True
        if self._reachable is None:
            self._reachable = reachable_functions(self.index)
        return id(fn.node) in self._reachable

    def in_entry_code(self, site) -> bool:
        """Import-time code, or entry code of an entry module (docs/contract.md scope policy).
        A self-test (``analysis/demos.py``) has none: its ``__main__`` block is test code."""
        if not self.settings.strict and self.is_benchmark:
            return False  # nobody reruns it for its numbers: quiet by default
        if site.fn is None:
            return not (self.is_self_test and id(site.node) in self.main_calls)
        return self.is_entry and not self.is_self_test and self.reaches(site.fn)

    @property
    def is_benchmark(self) -> bool:
        """A timing benchmark (``analysis/demos.py``): no run the default mode judges."""
        if self._benchmark is None:
            self._benchmark = is_benchmark(self, self.filename)
        return self._benchmark

    @property
    def main_calls(self) -> Set[int]:
        """Ids of the calls in the module's ``__main__`` blocks."""
        if self._main_calls is None:
            self._main_calls = main_block_calls(self.index)
        return self._main_calls

    @property
    def is_self_test(self) -> bool:
        """The ``__main__`` block tries the module's own code on random inputs (``analysis/demos.py``)."""
        if self._self_test is None:
            self._self_test = is_self_test(self, self.main_calls) or (
                not self.settings.strict and is_library_demo(self, self.path))
        return self._self_test

    @property
    def is_training_entry(self) -> bool:
        return self.is_entry and not self.is_self_test and self.trains()

    def trains(self, backward_counts: bool = True) -> bool:
        """Entry code trains (``calls.trains``): ``.backward()``, ``.fit(``, an optimizer step, a
        Trainer or Runner.  A self-test may run one ``.backward()`` on random inputs:
        ``backward_counts=False``."""
        for site in self.index.calls:
            if not self.reaches(site.fn):
                continue
            if not backward_counts and site.method_name == "backward":
                continue
            if calls.trains(self.call(site)) or (self.qualname(site) is None and self._builds_seeding_trainer(site)):
                return True
        return False

    def call(self, site: CallSite) -> calls.Call:
        """``site`` as plain values, for the questions of ``analysis/calls.py``."""
        found = self._calls.get(id(site.node))
        if found is None:
            found = self._calls[id(site.node)] = call_of(
                site, self.qualname(site), lambda expr: self.resolver.resolve(expr, site.scope, site.order))
        return found
