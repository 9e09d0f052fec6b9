"""A project module summarized from its ``ast``: what a run needs to know of it, as plain data.

The summary is settings-independent and made of tuples, dicts and strings only, so the
cache can store it with ``marshal``.  Every body (the import-time code, the ``__main__``
block, each function and method) becomes a list of *events* in evaluation order
(``events.py``: a seeding, a use of a global RNG, a call the project may define, a function
passed on, an import, training, a checkpoint loaded, evaluation mode, the GPU).  What a call
does is asked of ``analysis/calls.py`` (the questions the linted file asks too) and, for a
library function, of ``library_events.py``; the facts beyond events are ``body_facts.py``'s.

The project model (``model.py``) resolves the references and composes the effects.
"""

import ast
import functools
import re
from typing import Dict, List, Optional, Tuple

from ...tables import determinism as DM
from ...tables import seeding as T
from ...tables.aliases import KNOWN_ROOTS
from ...tables.rng_draws import TENSOR_METHODS
from ...tables.run_uses import INIT_PREFIX, INITIALIZES, PARAMETER_CLASSES, loads_weights
from .. import calls as C
from .. import kernels as K
from ...tables.entry import WRAPS_WITHOUT_CALLING, times_work, writes_result
from ..ast_names import dotted
from ..scopes import canonical
from . import body_facts as F
from . import events as E
from .ast_values import arg_of, call_of, fallback_seed_assignment, integer_receiver, is_none, keyword_value
from .ast_values import literal_path, signature
from .ast_values import split_of_hf_dataset, text_defaults
from .branch_tests import guarding_name, value_test
from .library_events import library_event
from .summary_kinds import CALL, IMPORT, SWITCH

IMPORT_TIME, MAIN = "<module>", "<main>"

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_XPU_DEVICE = re.compile(r"xpu(?::|$)")


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
        if old is not None and old[0] == "import" and binding[0] == "assign" and is_none(binding[1]):
            return  # ``except ImportError: np = None`` keeps the import
        self.names[name] = binding


# Attributes whose assignment can turn a deterministic mode on.
_SWITCH_ATTRIBUTES = frozenset({DM.CUDNN_DETERMINISTIC.rsplit(".", 1)[-1]})


class _Summarizer:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.roots: set = set()  # the packages the module imports, anywhere in it (the first pass)
        self._xpu: Optional[bool] = None
        self.discarded: set = set()  # ids of the calls that are statements of their own
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
        self.functions: Dict[str, tuple] = {}  # body key -> (its FunctionDef, the scope it is defined in)
        self.conditional: set = set()  # ids of the calls under an ``if`` (a load on a resume path)
        # ids of the calls in a parameter's default (``def f(model=PointNet())``): the object is used
        # only by calls that leave the argument out, so its draws are not the body's uses.
        self.in_defaults: set = set()
        # id(call) -> the parameter whose value guards it: ``if seed is not None: np.random.seed(seed)``
        self.guarded: Dict[int, str] = {}
        self.tests: Dict[int, ast.expr] = {}  # id(statement) -> the test of the ``if`` whose body holds it
        self.seed_fallbacks: set = set()  # ids of the draws of a seed drawn when none is given

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

    def _expression(self, node, scope: _Scope, body: str):
        if type(node.value) is ast.Call:
            self.discarded.add(id(node.value))  # ``ds.shuffle(64)`` alone: its result is dropped
        return [(node.value, scope, body)]

    def _lambda(self, node, scope: _Scope, body: str):
        # Runs where the body that holds it runs (``map(lambda x: random.random(), xs)``).
        return [(node.body, scope, body)] + [(d, scope, body) for d in node.args.defaults]

    def _if(self, node, scope: _Scope, body: str):
        if scope is self.module and body == IMPORT_TIME and _is_main_guard(node.test):
            self.has_main = True
            return [(s, scope, MAIN) for s in node.body] + [(s, scope, body) for s in node.orelse]
        for statement in node.body + node.orelse:
            for inner in ast.walk(statement):
                if type(inner) is ast.Call:
                    self.conditional.add(id(inner))
        for statement in node.body:
            self.tests[id(statement)] = node.test  # ``if seed is None: seed = draw()`` (``calls.fallback_seed``)
        guard = guarding_name(node.test)
        if guard is not None and scope.kind == "function" and scope.names.get(guard, ("",))[0] == "param":
            for statement in node.body:
                for inner in ast.walk(statement):
                    if type(inner) in (ast.Call, ast.Assign):
                        self.guarded.setdefault(id(inner), guard)
        valued = value_test(node.test)
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
            self.roots.add(alias.name.split(".")[0])

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
        for alias in node.names:  # ``from configs import exp``: a submodule, when the project has it
            if alias.name != "*":
                self.calls[body].append((node, scope, IMPORT, prefix + alias.name))
        if node.module and not node.level:
            self.roots.add(node.module.split(".")[0])

    def _assign(self, node, scope: _Scope, body: str):
        targets = node.targets if type(node) is ast.Assign else [node.target]
        if len(targets) == 1 and node.value is not None \
                and fallback_seed_assignment(targets[0], node.value, self.tests.get(id(node))):
            self.seed_fallbacks.update(id(n) for n in ast.walk(node.value) if type(n) is ast.Call)
        for target in targets:
            self._bind_target(target, node.value, scope)
            if node.value is None:
                continue
            if (isinstance(target, ast.Attribute) and target.attr in _SWITCH_ATTRIBUTES) or (
                    isinstance(target, ast.Subscript) and dotted(target.value).endswith("environ")):
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
        self.functions[key] = (node, scope)
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
        texts = text_defaults(node.args)
        if texts:
            self.text_defaults[key] = texts
        self._early_exits(node.body, inner)
        if scope.kind == "class":
            self.classes[scope.key]["methods"].append(node.name)
        outer = [(d, scope, body) for d in node.decorator_list]
        defaults = node.args.defaults + [k for k in node.args.kw_defaults if k]
        self.in_defaults.update(id(n) for d in defaults for n in ast.walk(d) if type(n) is ast.Call)
        outer += [(d, scope, body) for d in defaults]
        return outer + [(stmt, inner, key) for stmt in node.body]

    def _early_exits(self, statements, scope: _Scope) -> None:
        """``if mode != "train": return x`` at the top of a function: what follows runs only
        for the other values."""
        for index, statement in enumerate(statements):
            if not (isinstance(statement, ast.If) and not statement.orelse and statement.body
                    and isinstance(statement.body[-1], (ast.Return, ast.Raise))):
                continue
            valued = value_test(statement.test)
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

    def names_xpu(self) -> bool:
        """The module names an XPU device (``f"xpu:{rank}"``): its device ids are not CUDA's."""
        if self._xpu is None:
            self._xpu = any(isinstance(node, ast.Constant) and isinstance(node.value, str)
                            and _XPU_DEVICE.match(node.value) is not None for node in ast.walk(self.tree))
        return self._xpu

    # -- pass 2: events ------------------------------------------------------------------
    def events(self) -> Dict[str, tuple]:
        bodies = {}
        for key, calls in self.calls.items():
            events = []
            for node, scope, kind, extra in calls:
                if kind == IMPORT:
                    events.append(((node.lineno, node.col_offset), E.Import(node.lineno, node.col_offset, extra)))
                    continue
                if kind == SWITCH:
                    switches = self._assigned_switches(extra, node.value, scope)
                    if switches:
                        event = E.Seed(node.lineno, node.col_offset, switches, self.guarded.get(id(node)))
                        events.append(((node.end_lineno, node.end_col_offset), event))
                    continue
                for event in self._call_events(node, scope):
                    if id(node) in self.in_defaults and isinstance(event, (E.Use, E.Call)):
                        continue  # a default argument's object: used, if ever, by the function
                    if isinstance(event, E.Use) and event.what.startswith("draws") and (
                            id(node) in self.in_parameters
                            or str(self.resolve(node.func, scope)).startswith(INIT_PREFIX)
                            or (type(node.func) is ast.Attribute and C.initializes_weights(dotted(node.func.value)))):
                        event = event._replace(what=INITIALIZES + event.what[len("draws"):])
                    elif isinstance(event, E.Seed) and id(node) in self.guarded:
                        event = event._replace(guard=self.guarded[id(node)])  # seeds only when given that argument
                    elif isinstance(event, E.Call):
                        event = event._replace(**signature(node))
                    events.append(((node.end_lineno, node.end_col_offset), event))
            events.sort(key=lambda pair: pair[0])
            bodies[key] = tuple(E.pack(event) for _, event in events)
        return bodies

    def _call_events(self, call: ast.Call, scope: _Scope):
        func = call.func
        line, col = call.lineno, call.col_offset
        resolve = functools.partial(self.resolve, scope=scope)
        name = resolve(func) or split_of_hf_dataset(func, resolve)
        method = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")
        view = call_of(call, name, resolve)
        in_constructor = scope.klass is not None and scope.key.endswith(".__init__")
        tensorflow = C.trains_tensorflow(view, self.roots)
        if C.trains(view) or tensorflow:
            yield E.Trains(line, col, tensorflow)
        elif C.sets_training_mode(view, in_constructor):
            yield E.TrainingMode(line, col)
        if C.may_work(method) and C.does_work(view, self.roots):
            yield E.Works(line, col)
        if loads_weights(method):
            yield E.Loads(line, col, id(call) in self.conditional)
        elif C.to_evaluation_mode(view):
            yield E.Evaluates(line, col)
        if times_work(name or ""):
            yield E.Times(line, col)
        elif writes_result(method):
            yield E.Writes(line, col)
        if C.uses_gpu(view, self.names_xpu):
            yield E.UsesGpu(line, col)
        imported = C.dynamic_import(name or "", view)
        if imported:
            yield E.Import(line, col, imported)
        if "torch" in self.roots:
            ops = K.ops_any_version(view, integer_receiver(call, resolve), self._in_model_forward(scope.key))
            if ops:
                yield E.Kernel(line, col, "%s()" % (dotted(func) or method), ops)
        if any(k.arg in T.EXPLICIT_SEED_KEYWORDS and not is_none(k.value) for k in call.keywords):
            yield E.Seed(line, col, (T.EXPLICIT_SEED,))  # an object seeded: the run seeds something
        if name is None:
            if isinstance(func, ast.Attribute) and method in T.SEEDING_METHODS:
                yield E.Seed(line, col, tuple(sorted(T.SEEDING_METHODS[method])))
            elif T.named_like_seeding(method):
                yield E.Call(line, col, "?" + method)
            elif "torch" in self.roots and method in TENSOR_METHODS and keyword_value(call, "generator") is None:
                yield E.Use(line, col, T.TORCH, "draws (%s())" % (dotted(func) or method), False)
            yield from self._passed(call, scope)
            return
        if name in ("sys.path.insert", "sys.path.append"):
            self._syspath(call)
            return
        spelled = dotted(func) or method
        switches = C.switches(view)
        if switches and name not in DM.ENABLERS:  # an environment variable, a Runner's randomness=
            yield E.Seed(line, col, tuple(sorted(switches)))
        shuffled = C.unseeded_shuffle(view, id(call) in self.discarded)
        event = library_event(name, call, switches, C.global_draw(view), shuffled, spelled, line, col)
        if event is not None:
            if not (type(event) is E.Use and id(call) in self.seed_fallbacks):
                yield event  # (a seed drawn when none is given is DET105's cause, not a use of the RNG)
        elif (name.startswith("#") or name.split(".", 1)[0].lstrip(".") not in KNOWN_ROOTS or name.startswith(".")) \
                and id(call) not in self.seed_fallbacks:  # ``seed = seed or utils.random_seed()``: DET105's
            yield E.Call(line, col, name)
        yield from self._passed(call, scope)

    def _in_model_forward(self, key: str) -> bool:
        """``kernels.in_model_forward`` for the function whose body ``key`` is (decorators resolved
        where they are written, in pass 2, once every name is bound)."""
        found = self.functions.get(key)
        if found is None:
            return False
        node, scope = found
        decorators = (self.resolve(d.func if isinstance(d, ast.Call) else d, scope) for d in node.decorator_list)
        return K.in_model_forward(node.name, scope.kind == "class" or scope.klass is not None, decorators)

    def _assigned_switches(self, target, value, scope: _Scope) -> tuple:
        """``torch.backends.cudnn.deterministic = True``, ``os.environ["CUBLAS_WORKSPACE_CONFIG"] =
        ":4096:8"``: the switches it turns on; () otherwise."""
        if isinstance(target, ast.Subscript):
            name, key = (self.resolve(target.value, scope) or "") + "[]", arg_of(target.slice)
        else:
            name, key = self.resolve(target, scope) or "", None
        return tuple(sorted(C.assigned_switches(name, key, arg_of(value))))

    def _passed(self, call: ast.Call, scope: _Scope):
        """Functions passed on by name (``fire.Fire(main)``, ``Process(target=worker)``).  Not
        into ``functools.partial``: it makes a callable and calls nothing (who calls that one,
        and whether, is not seen)."""
        if (self.resolve(call.func, scope) or "") in WRAPS_WITHOUT_CALLING:
            return
        for arg in list(call.args) + [k.value for k in call.keywords]:
            if isinstance(arg, ast.Name):
                binding = self.lookup(arg.id, scope)
                if binding is not None and binding[0] in ("def", "import"):
                    ref = binding[1]
                    if ref.startswith("#") or ref.split(".", 1)[0] not in KNOWN_ROOTS:
                        yield E.Passed(arg.lineno, arg.col_offset, ref)

    def _syspath(self, call: ast.Call) -> None:
        value = call.args[-1] if call.args else None
        path = literal_path(value)
        if path is not None and path not in self.syspath:
            self.syspath.append(path)


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")


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


def _is_main_guard(test) -> bool:
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = (test.left, test.comparators[0])
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    strings = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(strings) == 1


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
    ast.Expr: _Summarizer._expression,
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
    summarizer = _Summarizer(tree)
    summarizer.collect()
    module = summarizer.module
    names = {}
    for name, binding in module.names.items():
        if binding[0] in ("import", "def"):
            names[name] = binding[1]
    return {
        "bodies": summarizer.events(),
        "roots": tuple(sorted(summarizer.roots)),
        "classes": F.class_facts(summarizer),
        "names": names,  # module namespace: name -> qualified name or ``#def``
        "assigned": tuple(n for n, b in module.names.items() if b[0] == "assign"),
        "stars": tuple(summarizer.stars),
        "syspath": tuple(summarizer.syspath),
        "main": summarizer.has_main,
        "returns": F.return_kinds(summarizer),
        "draws": F.returned_draws(summarizer),
        "checkpoints": F.checkpoint_facts(summarizer),
        "params": summarizer.params,
        "takes_keywords": tuple(summarizer.takes_keywords),
        # body key -> True when a seeding in it depends on an argument (``if seed is not None:``)
        "guards": F.guard_bodies(summarizer),
        "text_defaults": summarizer.text_defaults,
        "valued": F.value_guards(summarizer),
    }
