"""The project model: the project's modules, summarized on demand, and what a run does with them.

A rule asks about a name the linted file uses (``utils.set_seed``, ``models.Net().forward``):
``FileView.target`` resolves it to a project function, class, instance or module, and
``FileView.call_effects`` says what calling it does to the global RNGs -- which it seeds, which
it uses before seeding them, and which it uses later (a model's ``forward``, a dataset's
``__getitem__``) -- transitively through the project, composed from the module summaries
(``summary.py``).  Only the modules a question reaches are read, each once per process
(and once per change, with the cache): one file's lint never parses the whole project.
Anything we cannot read or resolve is unknown, and unknown is judged as before the project
model: a library.
"""

import ast
import os
import tokenize
from typing import Dict, FrozenSet, Iterable, List, NamedTuple, Optional, Tuple

from ...tables import seeding as T
from .. import kernels as K
from ...tables.run_uses import DATA_METHODS, DEFERRED_METHODS, MODEL_METHODS, SEEDED_BY
from . import events as E
from . import summary as S
from .layout import Finder
from .call_arguments import given_parameters, given_values, not_run, turns_training_off
from .store import Store, stamp
from .witness import saw_module

MAX_USES = 3  # uses kept per RNG: the messages name up to three
MAX_MODULE_BYTES = 2_000_000  # larger modules are generated tables, not code a run calls into
MAX_EXPANSIONS = 5000  # bodies composed for one question, at most
MAX_FILE_EXPANSIONS = 20000  # ... and for all the questions one linted file asks
IMPORT_DEPTH = 2  # import-time code followed this many imports deep (a package's __init__ chain)


class Use(NamedTuple):
    path: str
    line: int
    column: int
    what: str  # "initializes weights (nn.Linear)"
    forward: bool = False  # made in a model's forward pass (a run that never calls the model makes none)
    item: bool = False  # made in a dataset's __getitem__/__iter__ (in a DataLoader's worker processes)


class Effects(NamedTuple):
    seeds: FrozenSet[str] = frozenset()
    # framework -> uses made before the body seeds it (at most MAX_USES)
    unseeded: Tuple[Tuple[str, Tuple[Use, ...]], ...] = ()
    # framework -> uses made later, whenever the built object is applied (forward, __getitem__)
    deferred: Tuple[Tuple[str, Tuple[Use, ...]], ...] = ()
    trains: bool = False  # it trains: ``.backward()``, an optimizer step, a Trainer (``calls.trains``)
    loads: bool = False  # it loads weights from a checkpoint (``load_state_dict``)
    evaluates: bool = False  # it puts a model in evaluation mode (``model.eval()``)
    gpu: bool = False  # it can use CUDA (``.cuda()``, ``torch.device("cuda")``)
    roots: FrozenSet[str] = frozenset()  # the libraries imported by the modules whose code it runs
    training_mode: bool = False  # it puts a model in training mode (``model.train()``)
    tensorflow_trains: bool = False  # a TensorFlow training step among its training (DET306)
    works: bool = False  # it evaluates, generates or writes a result (``calls.does_work``)
    # The first op it calls with a nondeterministic CUDA kernel (DET303), its own or a model's it
    # builds (``forward``); ``what`` is the op as written (``index_add_()``).
    kernel: Optional[Use] = None
    loads_if: bool = False  # it loads weights under an ``if`` only (a resume path)
    times: bool = False  # it times its work (a benchmark's clock: ``demos.is_benchmark``)
    writes: bool = False  # it writes a result (``tables.entry.writes_result``)


EMPTY = Effects()


class Target(NamedTuple):
    kind: str  # module | function | class | instance
    module: "Module"
    key: str  # body or class key; "" for a module


class Module:
    __slots__ = ("path", "summary", "stamp", "_events")

    def __init__(self, path: str, summary: Optional[dict], at=None) -> None:
        self.path = path
        self.summary = summary or {}
        self.stamp = at  # (size, mtime) it was summarized at
        self._events: Dict[str, tuple] = {}  # body key -> its events as records, rebuilt when asked

    def events(self, key: str) -> tuple:
        """The events of one body (``events.py``), as records."""
        found = self._events.get(key)
        if found is None:
            found = self._events[key] = tuple(E.unpack(stored) for stored in self.bodies.get(key, ()))
        return found

    @property
    def bodies(self) -> dict:
        return self.summary.get("bodies", {})

    @property
    def classes(self) -> dict:
        return self.summary.get("classes", {})

    @property
    def names(self) -> dict:
        return self.summary.get("names", {})

    @property
    def roots(self) -> FrozenSet[str]:
        return frozenset(self.summary.get("roots", ()))


def seeded(framework: str, seeds) -> bool:
    return any(fw in seeds for fw in SEEDED_BY.get(framework, (framework,)))


def seeds_by_name(name: str, settings, on_object: bool = False) -> FrozenSet[str]:
    """Today's assumption for a function we cannot see into: one named like a seeding helper
    (``set_seed``, ``init_seeds``) seeds every framework; ``--determinism-seed-functions`` too."""
    if name in T.SEEDING_LIBRARY_CLASSES:
        return T.SEEDING_LIBRARY_CLASSES[name]  # asked only when the project does not define it
    last = name.rsplit(".", 1)[-1].replace("()", "")
    dotted = "." + name.lstrip(".?").replace("()", "")
    if any(name == n or dotted.endswith("." + n) for n in settings.seed_functions):
        return T.ALL_FRAMEWORKS
    if not T.named_like_seeding(last, settings.strict):
        return frozenset()
    if on_object and last in T.OBJECT_SEED_METHODS:
        return frozenset()  # ``g.manual_seed(0)``: that generator only
    return T.ALL_FRAMEWORKS


class _Uses:
    """Collects uses per framework, keeping the first MAX_USES of each."""

    def __init__(self) -> None:
        self.by_framework: Dict[str, List[Use]] = {}

    def add(self, framework: str, use: Use) -> None:
        kept = self.by_framework.setdefault(framework, [])
        if len(kept) < MAX_USES and use not in kept:
            kept.append(use)

    def frozen(self) -> tuple:
        return tuple((fw, tuple(uses)) for fw, uses in self.by_framework.items())


class Project:
    """One project root: its modules and their effects, shared by every file linted in a process."""

    def __init__(self, root: str, settings, use_cache: bool = True) -> None:
        self.root = root
        self.settings = settings
        self.finder = Finder(root)
        self.store = Store(root) if use_cache else None
        self._modules: Dict[str, Optional[Module]] = {}
        self._found: Dict[Tuple[str, str], Optional[str]] = {}  # (importer, module name) -> file
        self._resolved: Dict[Tuple[str, str], Optional[Target]] = {}  # (importer, name) -> target
        self._methods: Dict[Tuple[str, str, str], Optional[Target]] = {}
        self._effects: Dict[tuple, Effects] = {}
        self._busy: set = set()
        self._expansions = 0

    # -- modules ------------------------------------------------------------------------
    def module(self, path: str) -> Optional[Module]:
        if path in self._modules:
            found = self._modules[path]
            saw_module(path, found.stamp if found is not None else stamp(path))
            return found
        module = None
        if not path.endswith(".py"):
            module = Module(path, None)  # a namespace package: a directory of modules
        else:
            at = stamp(path)
            if at is not None:
                found = self.store.load(path, at) if self.store is not None else None
                if found is None:
                    found = _summarize_file(path, at[0])
                    if found is not None and self.store is not None:
                        self.store.save(path, at, found)
                if found is not None:
                    module = Module(path, found, at)
            saw_module(path, at)
        self._modules[path] = module
        return module

    def find(self, importer: Module, dotted: str) -> Optional[Module]:
        key = (importer.path, dotted)
        if key not in self._found:
            extra = self.finder.syspath_additions(importer.path, importer.summary.get("syspath", ()))
            self._found[key] = self.finder.find(importer.path, dotted, extra)
        path = self._found[key]
        return self.module(path) if path is not None else None

    # -- names ----------------------------------------------------------------------------
    def resolve(self, importer: Module, ref: str, depth: int = 0) -> Optional[Target]:
        """What a qualified name used in ``importer`` refers to in the project, if anything."""
        if depth > 8 or not ref or ref.startswith("?"):
            return None
        key = (importer.path, ref)
        if key in self._resolved:
            return self._resolved[key]
        self._resolved[key] = None  # a cycle of re-exports resolves to nothing
        found = self._resolve(importer, ref, depth)
        self._resolved[key] = found
        return found

    def _resolve(self, importer: Module, ref: str, depth: int) -> Optional[Target]:
        if ref.startswith("#"):
            return self._resolve_local(importer, ref[1:], depth)
        level = len(ref) - len(ref.lstrip("."))
        segments = ref[level:].split(".") if ref[level:] else []
        for cut in range(len(segments), 0, -1):
            prefix = segments[:cut]
            if any(s.endswith("()") for s in prefix):
                continue
            module = self.find(importer, "." * level + ".".join(prefix))
            if module is not None:
                return self._walk(Target("module", module, ""), segments[cut:], depth)
        if level and not segments:
            module = self.find(importer, "." * level)
            return Target("module", module, "") if module is not None else None
        return None

    def _resolve_local(self, module: Module, path: str, depth: int) -> Optional[Target]:
        head, caret, tail = path.partition("^")
        if caret:  # ``super().m``: ``m`` from the bases of class ``head``
            name = tail.lstrip(".").split(".", 1)[0].replace("()", "")
            if head not in module.classes or not name:
                return None
            for base in module.classes[head][0]:
                found = self._base_class(module, base, depth)
                if found is not None:
                    method = self.method(found, name, depth + 1)
                    if method is not None:
                        return method
            return None
        segments = path.split(".")
        for cut in range(len(segments), 0, -1):
            key = ".".join(s.replace("()", "") for s in segments[:cut])
            if any(s.endswith("()") for s in segments[: cut - 1]):
                continue
            if key in module.classes:
                target = Target("class", module, key)
            elif key in module.bodies:
                target = Target("function", module, key)
            else:
                continue
            if segments[cut - 1].endswith("()"):
                target = _called(target)
                if target is None:
                    return None
            return self._walk(target, segments[cut:], depth)
        return None

    def _walk(self, target: Optional[Target], rest: List[str], depth: int) -> Optional[Target]:
        for segment in rest:
            if target is None:
                return None
            name, call = (segment[:-2], True) if segment.endswith("()") else (segment, False)
            if target.kind == "module":
                target = self._member(target.module, name, depth)
            elif target.kind in ("class", "instance"):
                target = self.method(target, name, depth)
            else:
                return None  # an attribute of what a function returns: unknown
            if call and target is not None:
                target = _called(target)
        return target

    def _member(self, module: Module, name: str, depth: int) -> Optional[Target]:
        if name in module.classes:
            return Target("class", module, name)
        if name in module.bodies and name not in (S.IMPORT_TIME, S.MAIN):
            return Target("function", module, name)
        ref = module.names.get(name)
        if ref is not None and not ref.startswith("#"):
            return self.resolve(module, ref, depth + 1)  # re-exported: ``from .seed import set_seed``
        for star in module.summary.get("stars", ()):
            found = self.resolve(module, star + "." + name, depth + 1)
            if found is not None:
                return found
        path = self.finder.submodule(module.path, name)
        if path is not None:
            found = self.module(path)
            return Target("module", found, "") if found is not None else None
        return None

    def _base_class(self, module: Module, ref: str, depth: int) -> Optional[Target]:
        found = self.resolve(module, ref, depth + 1) if ref else None
        return found if found is not None and found.kind == "class" else None

    def method(self, klass: Target, name: str, depth: int = 0) -> Optional[Target]:
        """``name`` looked up on a project class (or instance) and its project bases, in order."""
        if depth > 8:
            return None
        key = (klass.module.path, klass.key, name)
        if key not in self._methods:
            self._methods[key] = None  # a cycle of bases finds nothing
            self._methods[key] = self._method(klass, name, depth)
        return self._methods[key]

    def _method(self, klass: Target, name: str, depth: int) -> Optional[Target]:
        entry = klass.module.classes.get(klass.key)
        if entry is None:
            return None
        bases, methods = entry[0], entry[1]
        if name in methods:
            return Target("function", klass.module, klass.key + "." + name)
        nested = klass.key + "." + name
        if nested in klass.module.classes:
            return Target("class", klass.module, nested)
        for base in bases:
            found = self._base_class(klass.module, base, depth)
            if found is not None:
                method = self.method(found, name, depth + 1)
                if method is not None:
                    return method
        return None

    def init_takes(self, klass: Target, keyword: str) -> bool:
        """Does building this project class accept ``keyword=`` for its library base?  Its own
        (or a project base's) ``__init__`` takes it or ``**kwargs``; without one, the library's
        ``__init__`` is the one called."""
        init = self.method(klass, "__init__")
        if init is None:
            return True
        if init.kind != "function":
            return False
        summary = init.module.summary
        return keyword in (summary.get("params", {}).get(init.key) or ()) or init.key in summary.get(
            "takes_keywords", ())

    def library_bases(self, klass: Target, depth: int = 0) -> FrozenSet[str]:
        """The qualified names of the library classes a project class derives from."""
        found = set()
        entry = klass.module.classes.get(klass.key)
        if entry is None or depth > 8:
            return frozenset()
        for base in entry[0]:
            project = self._base_class(klass.module, base, depth)
            if project is not None:
                found |= self.library_bases(project, depth + 1)
            elif base and not base.startswith("#"):
                found.add(base)
        return frozenset(found)

    def class_randomness(self, klass: Target, depth: int = 0) -> List[tuple]:
        """(level, phrase, draws from NumPy) of a project class and of each of its project bases."""
        entry = klass.module.classes.get(klass.key)
        if entry is None or depth > 8:
            return []
        found = [tuple(entry[2])]
        for base in entry[0]:
            project = self._base_class(klass.module, base, depth)
            if project is not None:
                found += self.class_randomness(project, depth + 1)
        return found

    # -- effects --------------------------------------------------------------------------
    def call_effects(self, importer: Module, ref: str, passed: bool = False, signature=None) -> Effects:
        """What a call of ``ref`` from ``importer`` does to the global RNGs.  ``passed``: the
        reference is passed on, not called here; ``signature``: (positional count, keywords)."""
        on_object = ref.startswith("?")
        target = None if on_object else self.resolve(importer, ref)
        if target is None:
            seeds = seeds_by_name(ref, self.settings, on_object)
            return Effects(seeds=seeds) if seeds else EMPTY
        return self.target_effects(target, passed, signature)

    def target_effects(self, target: Target, passed: bool = False, signature=None) -> Effects:
        if target.kind == "function":
            bound = "." in target.key and target.key.rsplit(".", 1)[0] in target.module.classes
            effects = self.body_effects(target.module, target.key, arguments=given_parameters(target, signature, bound),
                                        values=given_values(target, signature, bound))
            return _switched_off(effects) if turns_training_off(target, signature, bound) else effects
        if target.kind == "class" and not passed:
            init = self.method(target, "__init__")
            effects = self._build_effects(target, signature)
            return _switched_off(effects) if init is not None and turns_training_off(init, signature, True) else effects
        if target.kind == "instance":
            call = self.method(target, "__call__") or self.method(target, "forward")
            return self.body_effects(call.module, call.key) if call is not None else EMPTY
        return EMPTY

    def body_effects(self, module: Module, key: str, import_depth: int = 0,
                     arguments: Optional[FrozenSet[str]] = None, values: Optional[dict] = None) -> Effects:
        """``arguments``: the parameters the call gives (None: unknown, as if all): a seeding
        guarded by one it does not give (``if seed is not None:``) does not run.  ``values``: the
        string values of parameters the call gives or leaves at their default: a call under
        ``if strategy == "random":`` does not run when ``strategy`` is ``"top"``."""
        if arguments is not None and not module.summary.get("guards", {}).get(key):
            arguments = None  # nothing in the body depends on them: one memo entry
        skipped = not_run(module.summary.get("valued", {}).get(key), values)
        memo = (module.path, key, import_depth if key == S.IMPORT_TIME else 0, arguments, skipped)
        found = self._effects.get(memo)
        if found is not None:
            return found
        if memo in self._busy or self._expansions >= MAX_EXPANSIONS:
            return EMPTY  # a cycle, or more than one question should cost: unknown
        self._busy.add(memo)
        self._expansions += 1
        try:
            events = module.events(key)
            if skipped:
                events = [e for e in events if not (isinstance(e, E.SKIPPABLE) and (e.line, e.column) in skipped)]
            effects = self._compose(module, events, import_depth, arguments)
        finally:
            self._busy.discard(memo)
        self._effects[memo] = effects
        return effects

    def _compose(self, module: Module, events: Iterable[tuple], import_depth: int,
                 arguments: Optional[FrozenSet[str]] = None) -> Effects:
        seeds = set()
        unseeded, deferred = _Uses(), _Uses()
        trains = loads = evaluates = gpu = training_mode = tensorflow_trains = works = False
        kernel = None
        loads_if = times = writes = False
        roots = set(module.roots)
        for event in events:
            kind = type(event)
            if kind is E.Trains:
                trains = True
                tensorflow_trains = tensorflow_trains or event.tensorflow
            elif kind is E.TrainingMode:
                training_mode = True
            elif kind is E.UsesGpu:
                gpu = True
            elif kind is E.Loads:
                if event.conditional:
                    loads_if = True  # a load on a resume path: a fresh training run draws its weights
                else:
                    loads = True
            elif kind is E.Evaluates:
                evaluates = True
            elif kind is E.Works:
                works = True
            elif kind is E.Times:
                times = True
            elif kind is E.Writes:
                writes = True
            elif kind is E.Kernel:
                if kernel is None and K.in_version(event.ops, self.settings.torch_version) is not None:
                    kernel = Use(module.path, event.line, event.column, event.spelled)
            elif kind is E.Seed:
                if arguments is None or event.guard is None or event.guard in arguments:
                    seeds.update(event.frameworks)
            elif kind is E.Use:
                framework, use = event.framework, Use(module.path, event.line, event.column, event.what)
                if event.deferred:
                    deferred.add(framework, use)
                elif not seeded(framework, seeds):
                    unseeded.add(framework, use)
            elif kind is E.Call or kind is E.Passed:
                signature = event.signature if kind is E.Call else None
                called = self.call_effects(module, event.ref, kind is E.Passed, signature)
                trains, loads = trains or called.trains, loads or called.loads
                evaluates, gpu = evaluates or called.evaluates, gpu or called.gpu
                training_mode = training_mode or called.training_mode
                tensorflow_trains = tensorflow_trains or called.tensorflow_trains
                works = works or called.works
                kernel = kernel or called.kernel
                loads_if = loads_if or called.loads_if
                times, writes = times or called.times, writes or called.writes
                roots.update(called.roots)
                _merge(called, seeds, unseeded, deferred)
            elif kind is E.Import and import_depth < IMPORT_DEPTH:
                # What a module seeds and draws when it is imported happens here, in this run (a
                # config module that builds the model at import time, before the run seeds); an
                # object it builds then draws only if the run applies it: unknown, left out.
                imported = self.find(module, event.module)
                if imported is not None and imported is not module:
                    _merge(_at_import(self.body_effects(imported, S.IMPORT_TIME, import_depth + 1)),
                           seeds, unseeded, deferred)
        return Effects(frozenset(seeds), unseeded.frozen(), deferred.frozen(), trains, loads, evaluates, gpu,
                       frozenset(roots), training_mode, tensorflow_trains, works, kernel, loads_if, times, writes)

    def _build_effects(self, klass: Target, signature=None) -> Effects:
        """Building a project class runs its ``__init__``; what its ``forward``/``__getitem__``
        (the methods a framework calls) draw, it draws later."""
        init = self.method(klass, "__init__")
        built = (self.body_effects(init.module, init.key, arguments=given_parameters(init, signature, True),
                                   values=given_values(init, signature, True))
                 if init is not None else EMPTY)
        deferred, kernel = _Uses(), built.kernel
        for framework, uses in built.deferred:
            for use in uses:
                deferred.add(framework, use)
        for name in sorted(DEFERRED_METHODS):
            method = self.method(klass, name)
            if method is None:
                continue
            later = self.body_effects(method.module, method.key)
            kernel = kernel or later.kernel
            marks = {"forward": True} if name in MODEL_METHODS else {"item": True} if name in DATA_METHODS else {}
            for framework, uses in later.unseeded + later.deferred:
                for use in uses:
                    deferred.add(framework, use._replace(**marks))
        return built._replace(deferred=deferred.frozen(), kernel=kernel)

    def import_effects(self, importer: Module, dotted: str) -> Effects:
        """What importing module ``dotted`` does (its import-time code; ``_at_import``)."""
        module = self.find(importer, dotted)
        if module is None or module is importer:
            return EMPTY
        return _at_import(self.body_effects(module, S.IMPORT_TIME, 1))

    def import_seeds(self, importer: Module, dotted: str) -> FrozenSet[str]:
        """What importing module ``dotted`` seeds (its import-time code)."""
        return self.import_effects(importer, dotted).seeds

    def begin_question(self) -> None:
        self._expansions = 0

    def relative(self, path: str) -> str:
        try:
            relative = os.path.relpath(path, self.root)
        except ValueError:
            return path
        return relative.replace(os.sep, "/")


def _at_import(effects: Effects) -> Effects:
    """What an import does for its importer: the draws and seeding of the module's import-time
    code, not the draws of the objects it builds then (a transform kept in a class attribute
    draws only where some run applies it)."""
    return effects._replace(deferred=())


def _switched_off(effects: Effects) -> Effects:
    return effects._replace(unseeded=(), deferred=())


def _called(target: Target) -> Optional[Target]:
    """What calling a target gives: a class gives an instance; anything else, unknown."""
    if target.kind == "class":
        return Target("instance", target.module, target.key)
    return None


def _merge(effects: Effects, seeds: set, unseeded: _Uses, deferred: _Uses) -> None:
    for framework, uses in effects.unseeded:
        if not seeded(framework, seeds):
            for use in uses:
                unseeded.add(framework, use)
    for framework, uses in effects.deferred:
        for use in uses:
            deferred.add(framework, use)
    seeds.update(effects.seeds)


def _summarize_file(path: str, size: int) -> Optional[dict]:
    """The summary of a module on disk; None when it cannot be read or parsed (unknown)."""
    tree = _parse_file(path, size)
    try:
        return S.summarize(tree) if tree is not None else None
    except (ValueError, RecursionError, MemoryError, TypeError):
        return None


def _parse_file(path: str, size: int) -> Optional[ast.Module]:
    """The ``ast`` of a module on disk; None when it cannot be read or parsed."""
    if size > MAX_MODULE_BYTES:
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        if b"\0" in data:
            return None
        try:
            encoding, _ = tokenize.detect_encoding(iter(data.splitlines(True)).__next__)
            text = data.decode(encoding)
        except (SyntaxError, LookupError, UnicodeDecodeError):
            text = data.decode("latin-1")
        return ast.parse(text, filename=path)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError, TypeError):
        return None


_TREES: Dict[str, tuple] = {}  # path -> (stamp, ast), the last few a rule asked to read whole


def function_tree(target: "Target") -> Optional[ast.AST]:
    """The ``ast`` of a project function (``Class.method``) for the rules that judge a body the
    summary does not describe (DET307: does an inherited method initialize an attribute?).  Read
    at the stamp its summary was made at, so the lint's cache witness covers it."""
    module = target.module
    at = module.stamp
    if at is None or not module.path.endswith(".py"):
        return None
    cached = _TREES.get(module.path)
    if cached is None or cached[0] != at:
        if len(_TREES) > 64:
            _TREES.clear()
        cached = _TREES[module.path] = (at, _parse_file(module.path, at[0]))
    nodes, found = cached[1].body if cached[1] is not None else [], None
    for part in target.key.split("@", 1)[0].split("."):
        found = next((n for n in nodes if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and n.name == part), None)
        if found is None:
            return None
        nodes = found.body
    return found if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
