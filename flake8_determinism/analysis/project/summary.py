"""A project module summarized from its ``ast``: what a run needs to know of it, as plain data.

The summary is settings-independent and made of tuples, dicts and strings only, so the
cache can store it with ``marshal``.  Every body (the import-time code, the ``__main__``
block, each function and method) becomes a list of *events* in evaluation order:

- ``("S", line, col, frameworks)``: seeds those global RNGs (a seeding call or helper);
- ``("U", line, col, framework, what, deferred)``: uses a global RNG (a draw, a layer that
  initialises weights, dropout, a random transform, a shuffling DataLoader); ``deferred``:
  it draws when applied, later (a layer or transform object);
- ``("C", line, col, ref)``: calls something the project may define; ``("P", ...)`` passes it
  on (``Process(target=f)``); ``("I", line, col, ref)``: imports a module (its import-time code
  runs).  ``ref`` is a qualified name as the module spells it (``utils.set_seed``,
  ``.data.Images``, ``models.Net().forward``); ``#f``/``#C.m`` name this module's own
  definitions; ``#C^.m`` looks ``m`` up in ``C``'s bases (``super().m()``); ``?name`` is a
  call on an object we cannot see, kept only when its name says ``seed``.

The project model (``model.py``) resolves the references and composes the effects.
"""

import ast
from typing import Dict, List, Optional, Tuple

from ...tables import data_order as D
from ...tables import determinism as DM
from ...tables import resume as R
from ...tables import seeding as T
from ...tables.aliases import KNOWN_ROOTS
from ...tables.rng_draws import MINDSPORE_DRAWS, NUMPY_LEGACY, PYTHON_RANDOM, TENSOR_METHODS, TF_DRAWS, TORCH_GLOBAL
from ...tables.rng_draws import DRAW_FRAMEWORK, TORCH_IGNORES_GENERATOR
from ...tables.run_uses import INIT_PREFIX, INITIALIZES, LIBRARY_DRAWS, MASKS_DROPOUT, PRETRAINED_KEYWORDS
from ...tables.run_uses import TORCH_MODEL_BUILDER_PREFIXES
from ...tables.run_uses import EVAL_METHODS, PARAMETER_CLASSES, TORCH_MODEL_BUILDERS, TRAIN_MODE_METHODS
from ...tables.run_uses import GPU_KEYWORDS, GPU_PICKING, WEIGHT_LAYERS, loads_weights, names_gpu
from ...tables.stochastic import DROPOUT, RANDOM_TRANSFORMS
from ..ast_names import dotted
from ..scopes import canonical

VERSION = 26
IMPORT_TIME, MAIN = "<module>", "<main>"
SEED, USE, CALL, PASS, IMPORT, TRAIN, LOAD, EVAL, GPU = "S", "U", "C", "P", "I", "T", "L", "E", "G"
# A deterministic-mode switch turned on by an assignment (``cudnn.deterministic = True``): in
# the events it is a SEED of that switch, as the linted module's facts count switches.
SWITCH = "W"
_RUNNERS = frozenset({"mmengine.runner.Runner", "mmengine.runner.Runner.from_cfg"})

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DRAW_TABLES = (
    (PYTHON_RANDOM, T.RANDOM), (NUMPY_LEGACY, T.NUMPY), (frozenset(TF_DRAWS), T.TF),
    (frozenset(MINDSPORE_DRAWS), T.MS),
)
# What a class's data-loading methods draw (DET201): see rules/common/dataloader.py.
NOTHING, RESEEDED, UNSEEN, COPIED = 0, 1, 2, 3


class _Scope:
    __slots__ = ("kind", "parent", "key", "names", "klass")

    def __init__(self, kind: str, parent: Optional["_Scope"], key: str, klass: Optional[str] = None) -> None:
        self.kind = kind  # module | function | class
        self.parent = parent
        self.key = key  # the body's key: "<module>", "f", "C.m", "f.g"
        self.names: Dict[str, tuple] = {}  # name -> ("import", qualname) | ("def", ref) | ("assign", expr, scope)
        self.klass = klass  # for a method's scope: its class's key

    def bind(self, name: str, binding: tuple) -> None:
        old = self.names.get(name)
        if old is not None and old[0] == "import" and binding[0] == "assign" and _is_none(binding[1]):
            return  # ``except ImportError: np = None`` keeps the import
        self.names[name] = binding


def _is_none(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _keyword(call: ast.Call, name: str):
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def _has_double_star(call: ast.Call) -> bool:
    return any(keyword.arg is None for keyword in call.keywords)


def _argument(call: ast.Call, name: str, position: Optional[int]):
    found = _keyword(call, name)
    if found is None and position is not None and len(call.args) > position:
        found = call.args[position]
        if isinstance(found, ast.Starred):
            return None
    return found


# Attributes whose assignment can turn a deterministic mode on.
_SWITCH_ATTRIBUTES = frozenset({DM.CUDNN_DETERMINISTIC.rsplit(".", 1)[-1]})


def _enabled(call: ast.Call, enabler) -> frozenset:
    """The switches an ``ENABLERS`` call turns on (``analysis/switches.py`` for libcst)."""
    if enabler.keyword is None and enabler.position is None:
        state = True
    else:
        found = _argument(call, enabler.keyword, enabler.position)
        known, constant = _literal(found) if found is not None else (True, False)
        if not known:
            return frozenset({DM.DETERMINISM_UNREAD})
        if constant in enabler.warn:
            return (enabler.switches - {DM.ALGORITHMS}) | {DM.ALGORITHMS_WARN_ONLY}
        state = constant in enabler.on if enabler.on != (True,) else bool(constant)
    if not state:
        return frozenset()
    if enabler.warn_keyword is not None:
        warn = _keyword(call, enabler.warn_keyword)
        if warn is not None:
            known, constant = _literal(warn)
            if not known:
                return frozenset({DM.DETERMINISM_UNREAD})
            if constant:
                return (enabler.switches - {DM.ALGORITHMS}) | {DM.ALGORITHMS_WARN_ONLY}
    return enabler.switches


def _literal(node) -> Tuple[bool, object]:
    if isinstance(node, ast.Constant):
        return True, node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant) and isinstance(node.op, ast.USub):
        return True, -node.operand.value if isinstance(node.operand.value, (int, float)) else None
    return False, None


class _Summarizer:
    def __init__(self, tree: ast.Module, imports_torch: bool) -> None:
        self.tree = tree
        self.imports_torch = imports_torch
        self.module = _Scope("module", None, IMPORT_TIME)
        self.bodies: Dict[str, List[tuple]] = {IMPORT_TIME: [], MAIN: []}
        self.calls: Dict[str, List[tuple]] = {IMPORT_TIME: [], MAIN: []}  # key -> [(node, scope, kind)]
        self.classes: Dict[str, dict] = {}
        self.self_attributes: Dict[str, Dict[str, list]] = {}  # class key -> attribute -> [(value, scope)]
        self.returns: Dict[str, List[Tuple[ast.expr, _Scope]]] = {}
        self.syspath: List[str] = []
        self.stars: List[str] = []
        self.has_main = False
        self.in_parameters: set = set()  # ids of the calls inside a ``Parameter(...)``: they initialize weights
        self.params: Dict[str, tuple] = {}  # body key -> its parameters, in order
        self.takes_keywords: List[str] = []  # body keys of functions with ``**kwargs``
        self.text_defaults: Dict[str, dict] = {}  # body key -> {parameter: its string default}
        # id(node) -> [(parameter, values, runs when equal), ...]: ``if strategy == "random":``
        self.valued: Dict[int, list] = {}
        # id(call) -> the parameter whose value guards it: ``if seed is not None: np.random.seed(seed)``
        self.guarded: Dict[int, str] = {}

    # -- pass 1: scopes, bindings, the calls of each body --------------------------------
    def collect(self) -> None:
        stack = [(stmt, self.module, IMPORT_TIME) for stmt in reversed(self.tree.body)]
        handlers = _HANDLERS
        while stack:
            node, scope, body = stack.pop()
            kind = type(node)
            if kind in _LEAVES:
                continue
            handler = handlers.get(kind)
            if handler is not None:
                children = handler(self, node, scope, body)
                if children:
                    stack.extend(reversed(children))
                continue
            if kind is ast.Call:
                self.calls[body].append((node, scope, CALL, None))
                if _called_name(node) in PARAMETER_CLASSES:
                    self.in_parameters.update(id(n) for n in ast.walk(node) if type(n) is ast.Call and n is not node)
            stack.extend((child, scope, body) for child in reversed(_children(node)))

    def _lambda(self, node, scope: _Scope, body: str):
        # Runs where the body that holds it runs (``map(lambda x: random.random(), xs)``).
        return [(node.body, scope, body)] + [(d, scope, body) for d in node.args.defaults]

    def _if(self, node, scope: _Scope, body: str):
        if scope is self.module and body == IMPORT_TIME and _is_main_guard(node.test):
            self.has_main = True
            return [(s, scope, MAIN) for s in node.body] + [(s, scope, body) for s in node.orelse]
        guard = _guarding_name(node.test)
        if guard is not None and scope.kind == "function" and scope.names.get(guard, ("",))[0] == "param":
            for statement in node.body:
                for inner in ast.walk(statement):
                    if type(inner) in (ast.Call, ast.Assign):
                        self.guarded.setdefault(id(inner), guard)
        valued = _value_test(node.test)
        if valued is not None and scope.kind == "function" and scope.names.get(valued[0], ("",))[0] == "param":
            param, values, equal = valued
            branches = [(node.body, equal)]
            if node.orelse and not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)):
                branches.append((node.orelse, not equal))  # a plain ``else:``, not an ``elif`` chain
            for statements, runs_when_equal in branches:
                for statement in statements:
                    for inner in ast.walk(statement):
                        if type(inner) is ast.Call:
                            self.valued.setdefault(id(inner), []).append((param, values, runs_when_equal))
        return [(child, scope, body) for child in _children(node)]

    def _import(self, node, scope: _Scope, body: str):
        for alias in node.names:
            if alias.asname:
                scope.bind(alias.asname, ("import", alias.name))
            else:
                top = alias.name.split(".")[0]
                scope.bind(top, ("import", top))
            self.calls[body].append((node, scope, IMPORT, alias.name))

    def _import_from(self, node, scope: _Scope, body: str):
        module = "." * node.level + (node.module or "")
        prefix = module if module.endswith(".") else module + "."
        for alias in node.names:
            if alias.name == "*":
                if scope is self.module:
                    self.stars.append(module)
                continue
            scope.bind(alias.asname or alias.name, ("import", prefix + alias.name))
        self.calls[body].append((node, scope, IMPORT, module))

    def _assign(self, node, scope: _Scope, body: str):
        targets = node.targets if type(node) is ast.Assign else [node.target]
        for target in targets:
            self._bind_target(target, node.value, scope)
            if isinstance(target, ast.Attribute) and target.attr in _SWITCH_ATTRIBUTES and node.value is not None:
                self.calls[body].append((node, scope, SWITCH, target))
        return [(child, scope, body) for child in _children(node)]

    def _loop(self, node, scope: _Scope, body: str):
        self._bind_target(node.target, None, scope)
        return [(child, scope, body) for child in _children(node)]

    def _with(self, node, scope: _Scope, body: str):
        for item in node.items:
            if item.optional_vars is not None:
                self._bind_target(item.optional_vars, None, scope)
        return [(child, scope, body) for child in _children(node)]

    def _named(self, node, scope: _Scope, body: str):
        self._bind_target(node.target, node.value, scope)
        return [(node.value, scope, body)]

    def _return(self, node, scope: _Scope, body: str):
        if node.value is not None:
            self.returns.setdefault(body, []).append((node.value, scope))
            return [(node.value, scope, body)]
        return None

    def _bind_target(self, target, value, scope: _Scope) -> None:
        if isinstance(target, ast.Name):
            scope.bind(target.id, ("assign", value, scope))
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._bind_target(element.value if isinstance(element, ast.Starred) else element, None, scope)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            if scope.klass is not None and value is not None:
                attributes = self.self_attributes.setdefault(scope.klass, {})
                attributes.setdefault(target.attr, []).append((value, scope))

    def _function(self, node, scope: _Scope, body: str):
        key = node.name if scope.kind == "module" else scope.key + "." + node.name
        if key in self.bodies:
            key = "%s@%d" % (key, node.lineno)  # redefined: keep both, the name binds the last
        scope.bind(node.name, ("def", "#" + key))
        inner = _Scope("function", scope, key, klass=scope.key if scope.kind == "class" else scope.klass)
        self.bodies[key] = []
        self.calls[key] = []
        for arg in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
            inner.bind(arg.arg, ("param", arg.annotation))
        self.params[key] = tuple(arg.arg for arg in node.args.posonlyargs + node.args.args + node.args.kwonlyargs)
        for extra in (node.args.vararg, node.args.kwarg):
            if extra is not None:
                inner.bind(extra.arg, ("param", None))
        if node.args.kwarg is not None:
            self.takes_keywords.append(key)
        texts = _text_defaults(node.args)
        if texts:
            self.text_defaults[key] = texts
        self._early_exits(node.body, inner)
        if scope.kind == "class":
            self.classes[scope.key]["methods"].append(node.name)
        outer = [(d, scope, body) for d in node.decorator_list]
        outer += [(d, scope, body) for d in node.args.defaults + [k for k in node.args.kw_defaults if k]]
        return outer + [(stmt, inner, key) for stmt in node.body]

    def _early_exits(self, statements, scope: _Scope) -> None:
        """``if mode != "train": return x`` at the top of a function: what follows runs only
        for the other values."""
        for index, statement in enumerate(statements):
            if not (isinstance(statement, ast.If) and not statement.orelse and statement.body
                    and isinstance(statement.body[-1], (ast.Return, ast.Raise))):
                continue
            valued = _value_test(statement.test)
            if valued is None or scope.names.get(valued[0], ("",))[0] != "param":
                continue
            param, values, equal = valued
            for later in statements[index + 1:]:
                for inner in ast.walk(later):
                    if type(inner) is ast.Call:
                        self.valued.setdefault(id(inner), []).append((param, values, not equal))

    def _class(self, node: ast.ClassDef, scope: _Scope, body: str):
        key = node.name if scope.kind == "module" else scope.key + "." + node.name
        scope.bind(node.name, ("def", "#" + key))
        inner = _Scope("class", scope, key)
        self.classes[key] = {"node": node, "scope": scope, "methods": []}
        children = [(d, scope, body) for d in node.decorator_list]
        children += [(b, scope, body) for b in node.bases] + [(k.value, scope, body) for k in node.keywords]
        # The class body runs where the class statement does; its methods are bodies of their own.
        return children + [(stmt, inner, body) for stmt in node.body]

    # -- name resolution -------------------------------------------------------------
    def lookup(self, name: str, scope: _Scope):
        current, left_function = scope, False
        while current is not None:
            if not (left_function and current.kind == "class"):
                binding = current.names.get(name)
                if binding is not None:
                    return binding
            left_function = left_function or current.kind == "function"
            current = current.parent
        return None

    def resolve(self, expr, scope: _Scope, depth: int = 0) -> Optional[str]:
        raw = self._resolve(expr, scope, depth)
        return canonical(raw) if raw and not raw.startswith("#") else raw

    def _resolve(self, expr, scope: _Scope, depth: int) -> Optional[str]:
        if depth > 6:
            return None
        parts = []
        while isinstance(expr, ast.Attribute):
            parts.append(expr.attr)
            expr = expr.value
        base = None
        if isinstance(expr, ast.Name):
            if expr.id == "self" and parts and scope.klass is not None:
                base, parts = self._self_attribute(scope.klass, parts.pop(), depth), parts
            else:
                base = self._resolve_name(expr.id, scope, depth)
        elif isinstance(expr, ast.Call):
            if isinstance(expr.func, ast.Name) and expr.func.id == "super" and parts and scope.klass is not None:
                base = "#%s^" % scope.klass
            else:
                inner = self._resolve(expr.func, scope, depth + 1)
                base = inner + "()" if inner else None
        if base is None:
            return None
        return base + "." + ".".join(reversed(parts)) if parts else base

    def _resolve_name(self, name: str, scope: _Scope, depth: int) -> Optional[str]:
        binding = self.lookup(name, scope)
        if binding is None:
            return None
        kind = binding[0]
        if kind == "import":
            return binding[1]
        if kind == "def":
            return binding[1]
        if kind == "assign" and binding[1] is not None:
            value = binding[1]
            if isinstance(value, ast.Name) and value.id == name:
                return None
            if isinstance(value, (ast.Call, ast.Attribute, ast.Name)):
                return self._resolve(value, binding[2], depth + 1)
        return None

    def _self_attribute(self, klass: str, attribute: str, depth: int) -> Optional[str]:
        """``self.x``: what every ``self.x = ...`` of the class resolves to; else the class's own
        attribute (a method: ``#C.m``)."""
        assigned = self.self_attributes.get(klass, {}).get(attribute)
        if assigned:
            found = {self._resolve(value, scope, depth + 1) for value, scope in assigned}
            return found.pop() if len(found) == 1 else None
        return "#%s.%s" % (klass, attribute)

    # -- pass 2: events ------------------------------------------------------------------
    def events(self) -> Dict[str, tuple]:
        bodies = {}
        for key, calls in self.calls.items():
            events = []
            for node, scope, kind, extra in calls:
                if kind == IMPORT:
                    events.append(((node.lineno, node.col_offset), (IMPORT, node.lineno, node.col_offset, extra)))
                    continue
                if kind == SWITCH:
                    switches = self._assigned_switches(extra, node.value, scope)
                    if switches:
                        event = (SEED, node.lineno, node.col_offset, switches)
                        if id(node) in self.guarded:
                            event = event + (self.guarded[id(node)],)
                        events.append(((node.end_lineno, node.end_col_offset), event))
                    continue
                for event in self._call_events(node, scope):
                    if event[0] == USE and event[4].startswith("draws") and (
                            id(node) in self.in_parameters
                            or str(self.resolve(node.func, scope)).startswith(INIT_PREFIX)):
                        event = event[:4] + (INITIALIZES + event[4][len("draws"):],) + event[5:]
                    elif event[0] == SEED and id(node) in self.guarded:
                        event = event + (self.guarded[id(node)],)  # seeds only when given that argument
                    elif event[0] == CALL:
                        event = event + signature(node)
                    events.append(((node.end_lineno, node.end_col_offset), event))
            events.sort(key=lambda pair: pair[0])
            bodies[key] = tuple(event for _, event in events)
        return bodies

    def _call_events(self, call: ast.Call, scope: _Scope):
        func = call.func
        line, col = call.lineno, call.col_offset
        name = self.resolve(func, scope)
        method = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")
        if _trains(func, method, name, call):
            yield (TRAIN, line, col)
        if loads_weights(method):
            yield (LOAD, line, col)
        elif _to_evaluation_mode(call, method):
            yield (EVAL, line, col)
        if _mentions_gpu(call, method, name):
            yield (GPU, line, col)
        if name is None:
            if isinstance(func, ast.Attribute) and method in T.SEEDING_METHODS:
                yield (SEED, line, col, tuple(sorted(T.SEEDING_METHODS[method])))
            elif "seed" in method.lower():
                yield (CALL, line, col, "?" + method)
            elif self.imports_torch and method in TENSOR_METHODS and _keyword(call, "generator") is None:
                yield (USE, line, col, T.TORCH, "draws (%s())" % (dotted(func) or method), False)
            yield from self._passed(call, scope)
            return
        if name in ("sys.path.insert", "sys.path.append"):
            self._syspath(call)
            return
        spelled = dotted(func) or method
        event = self._library_event(name, call, spelled, line, col)
        if event is not None:
            yield event
        elif name.startswith("#") or name.split(".", 1)[0].lstrip(".") not in KNOWN_ROOTS or name.startswith("."):
            yield (CALL, line, col, name)
        yield from self._passed(call, scope)

    def _assigned_switches(self, target: ast.Attribute, value, scope: _Scope) -> tuple:
        """``torch.backends.cudnn.deterministic = True``: the switch it turns on; () otherwise."""
        if self.resolve(target, scope) != DM.CUDNN_DETERMINISTIC:
            return ()
        known, constant = _literal(value)
        if not known:
            return (DM.DETERMINISM_UNREAD,)
        return (DM.CUDNN_DETERMINISTIC,) if constant is True else ()

    def _library_event(self, name: str, call: ast.Call, spelled: str, line: int, col: int):
        bare = name.replace("()", "")
        if name in DM.ENABLERS:
            switches = _enabled(call, DM.ENABLERS[name]) | T.SEEDERS.get(name, frozenset())
            return (SEED, line, col, tuple(sorted(switches))) if switches else None
        if name in T.SEEDERS:
            return (SEED, line, col, tuple(sorted(T.SEEDERS[name])))
        if name in T.SEEDING_KEYWORDS:
            keyword, seeds = T.SEEDING_KEYWORDS[name]
            given = _keyword(call, keyword)
            bool_or_none = isinstance(given, ast.Constant) and (given.value is None or isinstance(given.value, bool))
            return (SEED, line, col, tuple(sorted(seeds))) if given is not None and not bool_or_none else None
        if T.is_estimator_config(name):
            given = _keyword(call, T.ESTIMATOR_SEED_KEYWORD)
            return (SEED, line, col, (T.TF,)) if given is not None and not _is_none(given) else None
        if T.seeds_when_built(name):
            return (SEED, line, col, tuple(sorted(T.TRAINER_SEEDS)))
        for table, framework in _DRAW_TABLES:
            if name in table:
                return (USE, line, col, framework, "draws (%s())" % spelled, False)
        if name in TORCH_GLOBAL and (name in TORCH_IGNORES_GENERATOR or _keyword(call, "generator") is None):
            return (USE, line, col, T.TORCH, "draws (%s())" % spelled, False)
        if name in WEIGHT_LAYERS:
            return (USE, line, col, WEIGHT_LAYERS[name], "%s (%s)" % (INITIALIZES, spelled), False)
        builder = name.startswith(TORCH_MODEL_BUILDER_PREFIXES) and bare.rsplit(".", 1)[-1][:1].islower()
        pretrained = any(_truthy(_keyword(call, k)) for k in PRETRAINED_KEYWORDS)
        if (builder or name in TORCH_MODEL_BUILDERS) and not pretrained:
            return (USE, line, col, T.TORCH, "%s (%s())" % (INITIALIZES, spelled), False)
        for table, what in ((DROPOUT, MASKS_DROPOUT), (RANDOM_TRANSFORMS, "augments data")):
            op = table.get(name)
            if op is not None:
                if _inert(call, op) or (op.seed is not None and _argument(call, *op.seed) is not None):
                    return None
                deferred = name.rsplit(".", 1)[-1][:1].isupper()
                return (USE, line, col, op.framework, "%s (%s)" % (what, spelled), deferred)
        if name in LIBRARY_DRAWS:
            framework, what = LIBRARY_DRAWS[name]
            return (USE, line, col, framework, "%s (%s())" % (what, spelled), False)
        if name == D.DATALOADER:
            return _dataloader_use(call, spelled, line, col)
        if name in D.MINDSPORE_SHUFFLING_DATASETS and _mindspore_shuffles(call):
            return (USE, line, col, T.MS_DATASET, "shuffles the data (%s)" % spelled, True)
        method = name.rsplit(".", 1)[-1]
        if name.startswith("tensorflow.data.") and method in D.TF_DATASET_SHUFFLES:
            if _argument(call, "seed", D.TF_DATASET_SHUFFLES[method]) is None:
                return (USE, line, col, T.TF, "shuffles the data (%s)" % spelled, True)
        if name in D.RANDOM_SAMPLERS and _argument(call, "generator", D.RANDOM_SAMPLERS[name]) is None:
            if not _has_double_star(call):
                return (USE, line, col, T.TORCH, "samples the data (%s())" % spelled, name.endswith("Sampler"))
        return None

    def _passed(self, call: ast.Call, scope: _Scope):
        """Functions passed on by name (``fire.Fire(main)``, ``Process(target=worker)``)."""
        for arg in list(call.args) + [k.value for k in call.keywords]:
            if isinstance(arg, ast.Name):
                binding = self.lookup(arg.id, scope)
                if binding is not None and binding[0] in ("def", "import"):
                    ref = binding[1]
                    if ref.startswith("#") or ref.split(".", 1)[0] not in KNOWN_ROOTS:
                        yield (PASS, arg.lineno, arg.col_offset, ref)

    def _syspath(self, call: ast.Call) -> None:
        value = call.args[-1] if call.args else None
        path = literal_path(value)
        if path is not None and path not in self.syspath:
            self.syspath.append(path)

    # -- per class and body facts ---------------------------------------------------------
    def class_facts(self) -> Dict[str, tuple]:
        facts = {}
        for key, info in self.classes.items():
            node, scope = info["node"], info["scope"]
            bases = tuple(self.resolve(base, scope) or "" for base in node.bases)
            facts[key] = (bases, tuple(info["methods"]), self._dataset_randomness(key, info["methods"]))
        return facts

    def _dataset_randomness(self, key: str, methods) -> tuple:
        """(level, phrase, draws from NumPy's global RNG): what the class's methods draw, as
        ``rules/common/dataloader.py`` grades a dataset visible in the same module."""
        for attribute, assigned in self.self_attributes.get(key, {}).items():
            for value, scope in assigned:
                if isinstance(value, ast.Call) and self.resolve(value.func, scope) in D.RNG_OBJECTS:
                    return (COPIED, "holds an RNG object (self.%s)" % attribute, False)
        worst, phrase, numpy = NOTHING, "", False
        for method in methods:
            for node, scope, kind, _ in self.calls.get(key + "." + method, ()):
                if kind != CALL:
                    continue
                name = self.resolve(node.func, scope) or ""
                root = name.split(".", 1)[0]
                if root in D.OTHER_RNG_ROOTS or name in TF_DRAWS or name in MINDSPORE_DRAWS:
                    return (COPIED, "draws from the %s RNG" % root, numpy)
                numpy = numpy or name in NUMPY_LEGACY
                method_name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
                if name in PYTHON_RANDOM or name in NUMPY_LEGACY or name in TORCH_GLOBAL or name in RANDOM_TRANSFORMS:
                    worst = max(worst, RESEEDED)
                elif name in DROPOUT or (not name and method_name in TENSOR_METHODS):
                    worst = max(worst, RESEEDED)
                elif not name and any(w in (method_name or dotted(node.func)).lower() for w in D.TRANSFORM_WORDS):
                    worst, phrase = max(worst, UNSEEN), phrase or "calls a transform handed in"
        return (worst, phrase, numpy)

    def value_guards(self) -> Dict[str, dict]:
        """body key -> {(line, col) of a call: ((parameter, values, runs when equal), ...)} for the
        calls that run only for some string values of parameters (``if strategy == "random":``)."""
        found: Dict[str, dict] = {}
        for key, calls in self.calls.items():
            for node, _, kind, _ in calls:
                guards = self.valued.get(id(node))
                if guards and kind not in (IMPORT, SWITCH):
                    found.setdefault(key, {})[(node.lineno, node.col_offset)] = tuple(guards)
        return found

    def guard_bodies(self) -> Dict[str, bool]:
        guarded = set(self.guarded)
        return {
            key: True for key, calls in self.calls.items()
            if any(kind == CALL and id(node) in guarded for node, _, kind, _ in calls)
        }

    def return_kinds(self) -> Dict[str, tuple]:
        """Bodies that return a set of strings or unknown elements: ``key -> ("set", line)``; its
        order is the caller's problem (DET207)."""
        kinds = {}
        for key, values in self.returns.items():
            for value, _ in values:
                if _is_set_expression(value) and not _numeric_set(value):
                    kinds[key] = ("set", value.lineno)
                    break
        return kinds

    def checkpoint_facts(self) -> Dict[str, str]:
        """What each body does with checkpoints (DET110), one letter each: ``R`` restores an
        optimizer's state (``optimizer.load_state_dict(...)``), ``L`` restores the state of
        something else or of whatever it is given, ``S`` saves one (``torch.save``), ``G``
        saves or restores an RNG state."""
        found: Dict[str, set] = {}
        local: Dict[str, set] = {}  # body -> this module's functions it calls (``save_on_master``)
        for key, calls in self.calls.items():
            letters, callees = found.setdefault(key, set()), local.setdefault(key, set())
            for node, scope, kind, _ in calls:
                if kind != CALL:
                    continue
                method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
                if method == R.RESTORE_METHOD:
                    # ``L``: a generic restore (``for key, value in kwargs.items():
                    # value.load_state_dict(ckpt[key])``): an optimizer when the caller passes one
                    letters.add("R" if _restores_optimizer(node) else "L")
                elif method in R.RNG_STATE_METHODS:
                    letters.add("G")
                else:
                    name = self.resolve(node.func, scope) or ""
                    if name in R.CHECKPOINT_SAVERS:
                        letters.add("S")
                    elif name in R.RNG_STATE_CALLS:
                        letters.add("G")
                    elif name.startswith("#"):
                        callees.add(name[1:])
        changed = True
        while changed:  # through this module's own helpers (``save_model`` -> ``save_on_master``)
            changed = False
            for key, callees in local.items():
                for callee in callees:
                    extra = found.get(callee, set()) - found[key]
                    if extra:
                        found[key] |= extra
                        changed = True
        return {key: "".join(sorted(letters)) for key, letters in found.items() if letters}

    def returned_draws(self) -> Dict[str, tuple]:
        """Functions that return a value no run can repeat (DET105, when the caller seeds with it):
        ``key -> (line, framework, spelled)``, framework ``""`` for the clock, ``os.urandom`` and
        the like, else the global RNG it draws from (repeatable once that RNG is seeded).  A
        returned name counts through its assignment unless the function takes a seed: ``def
        pick(seed=None): if seed is None: seed = random.randint(...)`` draws only as a fallback."""
        draws = {}
        for key, values in self.returns.items():
            for value, scope in values:
                takes_seed = any("seed" in name.lower() for name in self.params.get(key, ()))
                if isinstance(value, ast.Name) and not takes_seed:
                    binding = scope.names.get(value.id)
                    if binding is not None and binding[0] == "assign" and binding[1] is not None:
                        value = binding[1]
                found = self._draw_in(value, scope)
                if found is not None:
                    draws[key] = (value.lineno,) + found
                    break
        return draws

    def _draw_in(self, value, scope: _Scope) -> Optional[Tuple[str, str]]:
        for node in ast.walk(value):
            if type(node) is not ast.Call:
                continue
            name = self.resolve(node.func, scope)
            if not name or name.startswith("#"):
                continue
            if name.startswith(T.ENTROPY_PREFIXES) or name in T.ENTROPY_CALLS:
                return "", dotted(node.func) or name
            framework = DRAW_FRAMEWORK.get(name)
            if framework is not None:
                return framework, dotted(node.func) or name
        return None


def _restores_optimizer(call: ast.Call) -> bool:
    """``optimizer.load_state_dict(ckpt["optimizer"])``: the receiver or a key read names an
    optimizer (``rules/det110.py`` for libcst)."""
    receiver = dotted(call.func.value) if isinstance(call.func, ast.Attribute) else ""
    keys = [n.value for a in call.args for n in ast.walk(a) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return any(word in name.lower() for name in [receiver.rsplit(".", 1)[-1], *keys] for word in R.OPTIMIZER_WORDS)


def signature(call: ast.Call) -> tuple:
    """(how many positional arguments, which keywords, which of them are a literal ``False``,
    ``None`` or ``0``: keyword names, ``"#i"`` for the i-th positional, the string literals it
    passes: (name, value) pairs) a call passes; ``-1``/``("**",)``: unknown."""
    positional = -1 if any(isinstance(a, ast.Starred) for a in call.args) else len(call.args)
    keywords = tuple("**" if k.arg is None else k.arg for k in call.keywords)
    off = tuple("#%d" % i for i, a in enumerate(call.args) if _off(a))
    off += tuple(k.arg for k in call.keywords if k.arg is not None and _off(k.value))
    return positional, keywords, off, _texts(call)


def _texts(call: ast.Call) -> tuple:
    """The string literals a call passes: ((keyword or ``"#i"``, value), ...)."""
    found = tuple(("#%d" % i, a.value) for i, a in enumerate(call.args)
                  if isinstance(a, ast.Constant) and isinstance(a.value, str))
    return found + tuple((k.arg, k.value.value) for k in call.keywords
                         if k.arg is not None and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str))


def _text_defaults(args: ast.arguments) -> dict:
    """{parameter: default} for the parameters whose default is a string literal."""
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults) if default is not None]
    return {arg.arg: default.value for arg, default in pairs
            if isinstance(default, ast.Constant) and isinstance(default.value, str)}


def _value_test(test) -> Optional[tuple]:
    """``strategy == "random"``, ``"random" == strategy``, ``mode in ("a", "b")``, ``!=``/``not in``:
    (parameter, values, True when the body runs for those values)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, (ast.Eq, ast.NotEq)):
        if isinstance(right, ast.Name):
            left, right = right, left
        if isinstance(left, ast.Name) and isinstance(right, ast.Constant) and isinstance(right.value, str):
            return left.id, (right.value,), isinstance(op, ast.Eq)
        return None
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(left, ast.Name) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        values = tuple(e.value for e in right.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
        if values and len(values) == len(right.elts):
            return left.id, values, isinstance(op, ast.In)
    return None


def _off(node) -> bool:
    return isinstance(node, ast.Constant) and node.value in (False, None, 0) and not isinstance(node.value, str)


def _guarding_name(test) -> Optional[str]:
    """``if seed is not None:``, ``if seed:``, ``if seed != None:``, ``if seed and ...:`` -> ``seed``."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        test = test.values[0]  # the body runs only when the first operand holds
    if isinstance(test, ast.Name):
        return test.id
    if (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.IsNot, ast.NotEq))
        and isinstance(test.left, ast.Name) and _is_none(test.comparators[0])
    ):
        return test.left.id
    return None


def _mentions_gpu(call: ast.Call, method: str, name: Optional[str]) -> bool:
    """``x.cuda()``, ``torch.cuda.is_available()``, ``torch.device("cuda")``, ``Trainer(accelerator="gpu")``:
    the run can use CUDA (DET303)."""
    if method == "cuda" or ((name or "").startswith("torch.cuda.") and name not in T.SEEDERS):
        return True
    if (name or "").startswith(GPU_PICKING) or any(k.arg in GPU_KEYWORDS for k in call.keywords):
        return True
    values = list(call.args) + [k.value for k in call.keywords]
    return any(
        isinstance(v, ast.Constant) and names_gpu(v.value) for v in values
    )


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")


def _to_evaluation_mode(call: ast.Call, method: str) -> bool:
    """``model.eval()``, ``model.train(False)``."""
    if not isinstance(call.func, ast.Attribute):
        return False
    if method in EVAL_METHODS:
        return not call.args and not call.keywords
    return method in TRAIN_MODE_METHODS and len(call.args) == 1 and _literal(call.args[0]) == (True, False)


def _trains(func, method: str, name: Optional[str], call: Optional[ast.Call] = None) -> bool:
    """``loss.backward()``, ``model.fit(...)``, ``optimizer.step()``, a Trainer or Runner built
    (``ModuleFacts.trains``, read from the ``ast``); MindSpore's ``Model(...).train(epochs, data)``."""
    if isinstance(func, ast.Attribute) and call is not None and method in TRAIN_MODE_METHODS:
        # ``Model(...).train(epochs, data)`` trains; ``net.set_train()`` in a constructor only
        # sets a mode (a ``TrainStepWrap`` built for an export never steps).
        if method != "train" or not call.args:
            return False
        if len(call.args) == 1 and not _literal(call.args[0])[0]:
            return False  # ``index.train(vectors)`` (FAISS), ``model.train(mode)``: not a training loop
        return _literal(call.args[0]) != (True, False)
    if isinstance(func, ast.Attribute):
        if method == "backward":
            return True
        if method == "fit" and not (name or "").startswith("sklearn."):
            return True
        if method == "step":
            receiver = (dotted(func.value).rsplit(".", 1)[-1] or "").lower()
            return "optim" in receiver or receiver in ("opt", "optimiser") or receiver.startswith("opt_")
    if name:
        last = name.rsplit(".", 1)[-1]
        return (name.split(".", 1)[0] in T.TRAINER_ROOTS and last.endswith("Trainer")) or name in _RUNNERS
    return False


# Nodes that hold no code: skipped without a look inside.
_LEAVES = frozenset({
    ast.Name, ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.alias,
    ast.Load, ast.Store, ast.Del,
})
# Fields that never hold code (contexts, operators, names as strings).
_NO_CODE = frozenset({"ctx", "op", "ops", "type_comment", "kind", "id", "attr", "arg", "name", "names", "module",
                      "level", "conversion", "is_async", "type_ignores"})
_CODE_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _children(node) -> list:
    """The child nodes of ``node`` that can hold code (``ast.iter_child_nodes`` without the
    contexts and operators, per type, about twice as fast)."""
    fields = _CODE_FIELDS.get(type(node))
    if fields is None:
        fields = _CODE_FIELDS[type(node)] = tuple(f for f in node._fields if f not in _NO_CODE)
    found = []
    for field in fields:
        value = getattr(node, field, None)
        if isinstance(value, list):
            found.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def _is_set_expression(node) -> bool:
    if isinstance(node, (ast.Set, ast.SetComp)):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("set", "frozenset")


def _numeric_set(node) -> bool:
    """``set(range(n))``, ``{1, 2}``: numbers hash by value, the same order in every process."""
    if isinstance(node, ast.Set):
        return all(isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) for e in node.elts)
    if isinstance(node, ast.Call) and node.args:
        source = node.args[0]
        return isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and source.func.id == "range"
    return False


def _truthy(node) -> bool:
    if node is None:
        return False
    known, value = _literal(node)
    return bool(value) if known else True


def _inert(call: ast.Call, op) -> bool:
    if op.rate is not None:
        rate = _argument(call, *op.rate)
        if rate is not None and _literal(rate) in ((True, 0), (True, 0.0)):
            return True
    if op.training is not None:
        keyword, position, default = op.training
        training = _argument(call, keyword, position)
        if training is None:
            return not default and not _has_double_star(call)
        if _literal(training) == (True, False):
            return True
    return False


def _mindspore_shuffles(call: ast.Call) -> bool:
    """A mappable MindSpore dataset shuffles unless ``shuffle=False`` or a sampler orders it."""
    if _has_double_star(call):
        return False
    shuffle, sampler = _keyword(call, "shuffle"), _keyword(call, "sampler")
    if shuffle is not None:
        return isinstance(shuffle, ast.Constant) and shuffle.value is not False
    return sampler is None or _is_none(sampler)


def _dataloader_use(call: ast.Call, spelled: str, line: int, col: int):
    """A DataLoader that shuffles without ``generator=`` draws its order from torch's RNG."""
    if _has_double_star(call) or _argument(call, *D.GENERATOR) is not None:
        return None
    for where in (D.SAMPLER, D.BATCH_SAMPLER):
        given = _argument(call, *where)
        if given is not None and not _is_none(given):
            return None
    shuffle = _argument(call, *D.SHUFFLE)
    if shuffle is None or _literal(shuffle) in ((True, False), (True, None)):
        return None
    return (USE, line, col, T.TORCH, "shuffles the data (%s)" % spelled, True)


def literal_path(node) -> Optional[str]:
    """``"../lib"``, or ``os.path.dirname(...(__file__))`` nested k times: ``"@k"`` (k-1
    levels above the module's own directory); ``os.path.join(<that>, "x")``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    depth = 0
    current = node
    while isinstance(current, ast.Call) and dotted(current.func) in (
        "os.path.dirname", "os.path.abspath", "os.path.realpath", "path.dirname", "osp.dirname", "osp.abspath",
    ) and current.args:
        if dotted(current.func).endswith("dirname"):
            depth += 1
        current = current.args[0]
    if isinstance(current, ast.Name) and current.id == "__file__" and depth:
        return "@%d" % depth
    if isinstance(node, ast.Call) and dotted(node.func) in ("os.path.join", "osp.join") and len(node.args) == 2:
        base, tail = literal_path(node.args[0]), node.args[1]
        if base and base.startswith("@") and isinstance(tail, ast.Constant) and isinstance(tail.value, str):
            return base + "/" + tail.value
    return None


def _is_main_guard(test) -> bool:
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = (test.left, test.comparators[0])
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    strings = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(strings) == 1


def _imports_torch(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "torch" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch" and not node.level:
            return True
    return False


def syspath_additions(tree: ast.Module) -> Tuple[str, ...]:
    """The literal directories a module adds to ``sys.path`` (``summary["syspath"]``)."""
    found: List[str] = []
    for node in _statement_calls(tree):
        if dotted(node.func) in ("sys.path.insert", "sys.path.append") and node.args:
            path = literal_path(node.args[-1])
            if path is not None and path not in found:
                found.append(path)
    return tuple(found)


_HANDLERS = {
    ast.FunctionDef: _Summarizer._function,
    ast.AsyncFunctionDef: _Summarizer._function,
    ast.ClassDef: _Summarizer._class,
    ast.Lambda: _Summarizer._lambda,
    ast.If: _Summarizer._if,
    ast.Import: _Summarizer._import,
    ast.ImportFrom: _Summarizer._import_from,
    ast.Assign: _Summarizer._assign,
    ast.AnnAssign: _Summarizer._assign,
    ast.For: _Summarizer._loop,
    ast.AsyncFor: _Summarizer._loop,
    ast.comprehension: _Summarizer._loop,
    ast.With: _Summarizer._with,
    ast.AsyncWith: _Summarizer._with,
    ast.NamedExpr: _Summarizer._named,
    ast.Return: _Summarizer._return,
}


def _statement_calls(tree: ast.Module):
    """Calls that are whole statements (``sys.path.insert(0, "..")``), at any depth of blocks."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            yield node.value
        for field in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(node, field, ()) or ())


def summarize(tree: ast.Module) -> dict:
    """The summary of a module (``model.Module`` reads it)."""
    summarizer = _Summarizer(tree, _imports_torch(tree))
    summarizer.collect()
    module = summarizer.module
    names = {}
    for name, binding in module.names.items():
        if binding[0] in ("import", "def"):
            names[name] = binding[1]
    return {
        "version": VERSION,
        "bodies": summarizer.events(),
        "classes": summarizer.class_facts(),
        "names": names,  # module namespace: name -> qualified name or ``#def``
        "assigned": tuple(n for n, b in module.names.items() if b[0] == "assign"),
        "stars": tuple(summarizer.stars),
        "syspath": tuple(summarizer.syspath),
        "main": summarizer.has_main,
        "returns": summarizer.return_kinds(),
        "draws": summarizer.returned_draws(),
        "checkpoints": summarizer.checkpoint_facts(),
        "params": summarizer.params,
        "takes_keywords": tuple(summarizer.takes_keywords),
        # body key -> True when a seeding in it depends on an argument (``if seed is not None:``)
        "guards": summarizer.guard_bodies(),
        "text_defaults": summarizer.text_defaults,
        "valued": summarizer.value_guards(),
    }
