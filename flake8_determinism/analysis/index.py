"""One traversal of the libcst tree that collects everything the rules need.

The walk records scopes and name bindings (imports, defs, assignments,
parameters, loop/with/except targets), every call with the scope and function it
runs in and its source order, and the module-level shape (``__main__`` guard,
work done at import time).  Rules never walk the tree again; they query this
index.  The walk is iterative (deeply nested code cannot overflow the stack) and
visits only fields that can hold code, skipping whitespace and punctuation.
"""

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from ..tables.entry import is_declarative_call
from .nodes import callee_name, code_children, dotted_name, named_parameters
from .scopes import Binding, FunctionInfo, Scope, lookup

class CallSite:
    """A call expression and where it runs."""

    __slots__ = ("node", "scope", "fn", "order", "qualname", "resolved")

    def __init__(self, node: cst.Call, scope: Scope, fn: Optional[FunctionInfo], order: int) -> None:
        self.node = node
        self.scope = scope
        self.fn = fn  # innermost function whose body contains the call; None: import time
        self.order = order
        self.qualname: Optional[str] = None
        self.resolved = False

    @property
    def method_name(self) -> str:
        return callee_name(self.node)


class Assignment:
    """``target = value`` where the target is an attribute or subscript (``cudnn.benchmark = True``)."""

    __slots__ = ("target", "value", "scope", "fn", "order")

    def __init__(self, target, value, scope, fn, order) -> None:
        self.target, self.value, self.scope, self.fn, self.order = target, value, scope, fn, order


class ModuleIndex:
    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.module_scope = Scope("module", None, module)
        self.calls: List[CallSite] = []
        self.functions: Dict[int, FunctionInfo] = {}  # id(def node) -> info
        self.classes: List[Tuple[cst.ClassDef, Scope, int]] = []  # (node, body scope, order)
        self.assignments: List[Assignment] = []
        self.main_guards: List[cst.If] = []
        # ``if`` statements whose test reads a name with "seed" in it (``if args.seed is not None:``).
        self.seed_guards: List[Tuple[cst.If, Scope, Optional[FunctionInfo], int]] = []
        # A module-level call statement (also inside module-level if/for/with
        # blocks) other than configuration or table building: the module runs
        # something when executed, like a script.
        self.module_work = False
        # Names read in each body: id(function node) -> names; None: module level (class bodies
        # count for the body they run in).  Feeds reachability and "used as a value".
        self.names_by_body: Dict[Optional[int], Set[str]] = {None: set()}
        self.imported_roots = set()  # top-level packages imported anywhere in the module
        # Every import statement's modules, where it runs: (dotted name, scope, function, order).
        self.imports: List[Tuple[str, Scope, Optional[FunctionInfo], int]] = []
        self.import_nodes: Dict[int, cst.CSTNode] = {}  # order of an import -> its statement
        # Parent of the nodes whose use context the data-order rules inspect.
        self.parents: Dict[int, cst.CSTNode] = {}
        self.set_displays: List[CallSite] = []  # ``{a, b}`` and set comprehensions, as pseudo-sites
        self.loops: List[Tuple[cst.CSTNode, Scope, Optional[FunctionInfo], int]] = []  # For / CompFor
        # Every attribute (``x.name``) and every plain string literal, with the function it is in
        # (and a string's parent, an argument's being the call): what a module does with the
        # attributes it makes (DET307, ``rules/common/buffers.py``).
        self.attributes: List[Tuple[cst.Attribute, Optional[FunctionInfo]]] = []
        self.strings: List[Tuple[cst.SimpleString, Optional[FunctionInfo], Optional[cst.CSTNode]]] = []
        self._class_places: Optional[Dict[int, tuple]] = None  # local_ancestry's map, built on first use

    def local_ancestry(self, klass) -> List[Tuple[cst.ClassDef, Scope, int]]:
        """``klass`` and the classes defined here that it derives from by name, transitively:
        (class node, the scope its bases are read in, order)."""
        if self._class_places is None:
            self._class_places = {id(node): (node, body.parent, order) for node, body, order in self.classes}
        where = self._class_places
        found: List[Tuple[cst.ClassDef, Scope, int]] = []
        todo, seen = [klass], set()
        while todo:
            node = todo.pop()
            if id(node) in seen or id(node) not in where:
                continue
            seen.add(id(node))
            found.append(where[id(node)])
            _, scope, order = where[id(node)]
            for base in node.bases:
                if isinstance(base.value, cst.Name):
                    binding = lookup(scope, base.value.value, order)
                    if binding is not None and binding.kind == "class":
                        todo.append(binding.node)
        return found

    def name_is_used(self, name: str) -> bool:
        """Is ``name`` read anywhere in the module (called, passed on, stored)?"""
        return any(name in names for names in self.names_by_body.values())


def _is_declarative_call(call: cst.Call) -> bool:
    func = call.func
    while isinstance(func, cst.Call):  # ``tf_export("x")(f)``: judged by the factory
        func = func.func
    method = func.attr.value if isinstance(func, cst.Attribute) else ""
    return is_declarative_call(dotted_name(func), method)


def is_main_guard(test: cst.BaseExpression) -> bool:
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return False
    sides = (test.left, target.comparator)
    names = [s for s in sides if isinstance(s, cst.Name) and s.value == "__name__"]
    strings = [s for s in sides if isinstance(s, cst.SimpleString) and s.evaluated_value == "__main__"]
    return len(names) == 1 and len(strings) == 1


def _tests_a_seed(test: cst.BaseExpression) -> bool:
    stack = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Comparison):
            stack.append(node.left)
        elif isinstance(node, cst.BooleanOperation):
            stack += [node.left, node.right]
        elif isinstance(node, cst.UnaryOperation):
            stack.append(node.expression)
        elif isinstance(node, cst.Attribute):
            if "seed" in node.attr.value.lower():
                return True
        elif isinstance(node, cst.Name) and "seed" in node.value.lower():
            return True
    return False


def _target_names(target: cst.BaseExpression):
    """Names bound by an assignment/loop target."""
    stack = [target]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            yield node
        elif isinstance(node, (cst.Tuple, cst.List)):
            stack.extend(e.value for e in node.elements)
        elif isinstance(node, cst.StarredElement):
            stack.append(node.value)


class _Walker:
    def __init__(self, module: cst.Module) -> None:
        self.index = ModuleIndex(module)
        self.order = 0
        self.quiet_statements = set()  # ids of expression statements in module-level ``except`` blocks

    def run(self) -> ModuleIndex:
        index = self.index
        stack: List[tuple] = [(child, index.module_scope, None, None) for child in reversed(index.module.body)]
        parents = index.parents
        keep_parent = _PARENT_KEPT
        handlers = _HANDLERS
        names_by_body = index.names_by_body
        attributes, strings = index.attributes, index.strings
        name_type, attribute_type, string_type = cst.Name, cst.Attribute, cst.SimpleString
        while stack:
            node, scope, fn, parent = stack.pop()
            self.order += 1
            node_type = type(node)
            if node_type in keep_parent:
                parents[id(node)] = parent
                if node_type is attribute_type:
                    attributes.append((node, fn))
            if node_type is name_type:
                names_by_body[id(fn.node) if fn is not None else None].add(node.value)
                continue
            if node_type is string_type:  # holds no code (f-strings take the generic path)
                strings.append((node, fn, parent))
                continue
            handler = handlers.get(node_type)
            if handler is None:
                children = [(c, scope, fn) for c in code_children(node)]
            else:
                children = handler(self, node, scope, fn)
            if children:
                stack.extend((c, s, f, node) for c, s, f in reversed(children))
        return index

    # -- helpers ---------------------------------------------------------------
    def bind(self, scope: Scope, name: str, kind: str, node=None, value=None) -> None:
        if name in scope.globals:
            scope = self.index.module_scope
        scope.add(Binding(name, kind, self.order, node=node, value=value, scope=scope))

    def bind_target(self, scope: Scope, target, kind: str, value=None) -> None:
        for name in _target_names(target):
            self.bind(scope, name.value, kind, node=name, value=value)

    def params(self, params: cst.Parameters, outer: Scope, outer_fn, inner: Scope):
        """Bind parameters in ``inner``; return the defaults, which run in ``outer``."""
        children = []
        every = list(named_parameters(params))
        for extra in (params.star_arg, params.star_kwarg):
            if isinstance(extra, cst.Param):
                every.append(extra)
        for param in every:
            # The annotation tells what the argument is (``root: Path``).
            self.bind(inner, param.name.value, "param", node=param.name, value=param.annotation)
            if param.default is not None:
                children.append((param.default, outer, outer_fn))
        return children

    # -- handlers --------------------------------------------------------------
    def function_def(self, node: cst.FunctionDef, scope: Scope, fn):
        self.bind(scope, node.name.value, "def", node=node)
        inner = Scope("function", scope, node)
        info = FunctionInfo(node, node.name.value, inner, scope, bool(node.decorators))
        inner.function = info
        self.index.functions[id(node)] = info
        self.index.names_by_body[id(node)] = set()
        children = [(d.decorator, scope, fn) for d in node.decorators]
        children += self.params(node.params, scope, fn, inner)
        children.append((node.body, inner, info))
        return children

    def lambda_(self, node: cst.Lambda, scope: Scope, fn):
        inner = Scope("function", scope, node)
        info = FunctionInfo(node, "<lambda>", inner, scope, False)
        inner.function = info
        self.index.functions[id(node)] = info
        self.index.names_by_body[id(node)] = set()
        children = self.params(node.params, scope, fn, inner)
        children.append((node.body, inner, info))
        return children

    def class_def(self, node: cst.ClassDef, scope: Scope, fn):
        self.bind(scope, node.name.value, "class", node=node)
        inner = Scope("class", scope, node)
        self.index.classes.append((node, inner, self.order))
        children = [(d.decorator, scope, fn) for d in node.decorators]
        children += [(a.value, scope, fn) for a in list(node.bases) + list(node.keywords)]
        children.append((node.body, inner, fn))
        return children

    def comprehension(self, node, scope: Scope, fn):
        if type(node) is cst.SetComp:
            self.index.set_displays.append(CallSite(node, scope, fn, self.order))
        inner = Scope("comprehension", scope, node)
        return [(c, inner, fn) for c in code_children(node)]

    def comp_for(self, node: cst.CompFor, scope: Scope, fn):
        self.index.loops.append((node, scope, fn, self.order))
        self.bind_target(scope, node.target, "assign")
        children = [(node.iter, scope, fn)] + [(i.test, scope, fn) for i in node.ifs]
        if node.inner_for_in is not None:
            children.append((node.inner_for_in, scope, fn))
        return children

    def import_(self, node: cst.Import, scope: Scope, fn):
        for alias in node.names:
            full = dotted_name(alias.name)
            self.index.imported_roots.add(full.split(".")[0])
            self.index.imports.append((full, scope, fn, self.order))
            self.index.import_nodes[self.order] = node
            if alias.asname is not None:
                self.bind_target(scope, alias.asname.name, "import", value=full)
            else:
                top = full.split(".")[0]
                self.bind(scope, top, "import", node=alias, value=top)
        return None

    def import_from(self, node: cst.ImportFrom, scope: Scope, fn):
        module = "." * len(node.relative) + dotted_name(node.module)
        self.index.imported_roots.add(module.split(".")[0])
        self.index.imports.append((module, scope, fn, self.order))
        self.index.import_nodes[self.order] = node
        if isinstance(node.names, cst.ImportStar):
            self.index.module_scope.star_imports.append(module)
            return None
        prefix = module if module.endswith(".") else module + "."
        for alias in node.names:
            name = dotted_name(alias.name)
            bound = alias.asname.name if alias.asname is not None else alias.name
            self.bind_target(scope, bound, "import", value=prefix + name)
            # ``from configs import exp``: a submodule, when the project has it (the project
            # model finds nothing for a plain name).
            self.index.imports.append((prefix + name, scope, fn, self.order))
        return None

    def assign(self, node: cst.Assign, scope: Scope, fn):
        children = [(node.value, scope, fn)]
        for target in node.targets:
            self.assign_target(target.target, node.value, scope, fn, children)
        return children

    def ann_assign(self, node: cst.AnnAssign, scope: Scope, fn):
        children = []
        if node.value is not None:
            children.append((node.value, scope, fn))
            self.assign_target(node.target, node.value, scope, fn, children)
        return children

    def aug_assign(self, node: cst.AugAssign, scope: Scope, fn):
        children = [(node.value, scope, fn)]
        self.assign_target(node.target, None, scope, fn, children)
        return children

    def assign_target(self, target, value, scope, fn, children) -> None:
        if isinstance(target, (cst.Attribute, cst.Subscript)):
            self.index.assignments.append(Assignment(target, value, scope, fn, self.order))
            children.append((target, scope, fn))
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            # ``cudnn.benchmark, cudnn.deterministic = (False, True) if seed == 0 else (True, False)``
            for position, element in enumerate(target.elements):
                if isinstance(element.value, (cst.Attribute, cst.Subscript)):
                    part = _element_value(value, position, len(target.elements))
                    self.index.assignments.append(Assignment(element.value, part, scope, fn, self.order))
                    children.append((element.value, scope, fn))
        self.bind_target(scope, target, "assign", value=value)

    def named_expr(self, node: cst.NamedExpr, scope: Scope, fn):
        owner = scope
        while owner.kind == "comprehension":
            owner = owner.parent
        self.bind_target(owner, node.target, "assign", value=node.value)
        return [(node.value, scope, fn)]

    def for_(self, node, scope: Scope, fn):
        self.index.loops.append((node, scope, fn, self.order))
        self.bind_target(scope, node.target, "assign")
        children = [(node.iter, scope, fn), (node.body, scope, fn)]
        if node.orelse is not None:
            children.append((node.orelse, scope, fn))
        return children

    def with_(self, node: cst.With, scope: Scope, fn):
        children = []
        for item in node.items:
            children.append((item.item, scope, fn))
            if item.asname is not None:
                self.bind_target(scope, item.asname.name, "assign")
        children.append((node.body, scope, fn))
        return children

    def except_handler(self, node, scope: Scope, fn):
        if fn is None and scope.kind == "module":
            # ``except ImportError: print("install apex")``: not work a script does.
            self.quiet_statements.update(_statements_in(node.body))
        if node.name is not None:
            self.bind_target(scope, node.name.name, "assign")
        children = [(node.body, scope, fn)]
        if node.type is not None:
            children.insert(0, (node.type, scope, fn))
        return children

    def global_(self, node, scope: Scope, fn):
        for item in node.names:
            scope.globals.add(item.name.value)
        return None

    def call(self, node: cst.Call, scope: Scope, fn):
        self.index.calls.append(CallSite(node, scope, fn, self.order))
        children = [(node.func, scope, fn)]
        children += [(a.value, scope, fn) for a in node.args]
        return children

    def if_(self, node: cst.If, scope: Scope, fn):
        if fn is None and scope.kind == "module" and is_main_guard(node.test):
            self.index.main_guards.append(node)
        elif _tests_a_seed(node.test):
            self.index.seed_guards.append((node, scope, fn, self.order))
        return [(c, scope, fn) for c in code_children(node)]

    def expr(self, node: cst.Expr, scope: Scope, fn):
        value = node.value
        if fn is None and scope.kind == "module" and isinstance(value, (cst.Call, cst.Await)) and (
            id(node) not in self.quiet_statements
        ):
            call = value if isinstance(value, cst.Call) else value.expression
            if not isinstance(call, cst.Call) or not _is_declarative_call(call):
                self.index.module_work = True
        return [(value, scope, fn)]


def _statements_in(block):
    """Ids of the expression statements in ``block``, outside nested functions and classes."""
    stack = [block]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Expr):
            yield id(node)
        elif not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.BaseExpression)):
            stack.extend(code_children(node))


def _set_display(self, node: cst.Set, scope: Scope, fn):
    self.index.set_displays.append(CallSite(node, scope, fn, self.order))
    return [(e.value, scope, fn) for e in node.elements]


def _element_value(value, position: int, count: int):
    """The value a tuple target's element at ``position`` gets: the matching element of a tuple
    display, or of both branches of ``a if test else b`` (as a new ``IfExp``); else None."""
    if isinstance(value, (cst.Tuple, cst.List)):
        if len(value.elements) == count and not any(isinstance(e, cst.StarredElement) for e in value.elements):
            return value.elements[position].value
        return None
    if isinstance(value, cst.IfExp):
        body, orelse = _element_value(value.body, position, count), _element_value(value.orelse, position, count)
        if body is not None and orelse is not None:
            return cst.IfExp(test=value.test, body=body, orelse=orelse)
    return None


_PARENT_KEPT = frozenset(
    {
        cst.Call, cst.Arg, cst.CompFor, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp,
        cst.Set, cst.ComparisonTarget, cst.Comparison, cst.Attribute, cst.Assign, cst.AssignTarget,
        cst.For, cst.Subscript, cst.SubscriptElement, cst.Index, cst.UnaryOperation, cst.BooleanOperation,
        cst.IfExp,
    }
)

_HANDLERS = {
    cst.FunctionDef: _Walker.function_def,
    cst.Lambda: _Walker.lambda_,
    cst.ClassDef: _Walker.class_def,
    cst.ListComp: _Walker.comprehension,
    cst.SetComp: _Walker.comprehension,
    cst.DictComp: _Walker.comprehension,
    cst.GeneratorExp: _Walker.comprehension,
    cst.CompFor: _Walker.comp_for,
    cst.Import: _Walker.import_,
    cst.ImportFrom: _Walker.import_from,
    cst.Assign: _Walker.assign,
    cst.AnnAssign: _Walker.ann_assign,
    cst.AugAssign: _Walker.aug_assign,
    cst.NamedExpr: _Walker.named_expr,
    cst.For: _Walker.for_,
    cst.With: _Walker.with_,
    cst.ExceptHandler: _Walker.except_handler,
    cst.ExceptStarHandler: _Walker.except_handler,
    cst.Global: _Walker.global_,
    cst.Nonlocal: _Walker.global_,
    cst.Call: _Walker.call,
    cst.If: _Walker.if_,
    cst.Set: _set_display,
    cst.Expr: _Walker.expr,
    cst.Integer: lambda self, node, scope, fn: None,
    cst.Float: lambda self, node, scope, fn: None,
}


def build_index(module: cst.Module) -> ModuleIndex:
    return _Walker(module).run()
