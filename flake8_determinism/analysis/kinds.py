"""What kind of value an expression holds, as ``hash()`` sees it: a ``str`` (salted per process),
a tuple holding one, a number (hashed to itself), an object (hashed by identity or its own
``__hash__``), or a value that may be a ``str``.  Judged from literals, calls, annotations, names
and where a value comes from in the same module (DET105: a seed; DET209: a result)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from .._lazy import cst
from ..tables import data_order as T
from .args import literal
from .body import scope_body
from .nodes import code_children, dotted_name, named_parameters, self_attribute
from .options import option_type
from .scopes import enclosing_class, lookup

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from .context import FileContext

TEXT = "a str"
TEXT_TUPLE = "a tuple holding a str"
MAYBE_TEXT = "a value that may be a str"
NUMBER = "number"  # hashed to itself: the same in every process
OBJECT = "object"  # hashed by identity or its own __hash__
SALTED = frozenset({TEXT, TEXT_TUPLE, MAYBE_TEXT})  # its hash may change from process to process

FOLLOW_DEPTH = 3  # how far a value is followed through variables, parameters and attributes
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 and not word.endswith("ss") else word


def name_words(name: str) -> set:
    return {w.lower() for w in _WORDS.findall(name)}


def _kind_of_name(name: str) -> Optional[str]:
    words = {singular(w) for w in name_words(name)}
    if not words:
        return None
    last = singular(_WORDS.findall(name)[-1].lower())
    if last in T.NUMBER_WORDS or (len(words) == 1 and words & T.NUMBER_WORDS):
        return NUMBER
    if last in T.OBJECT_WORDS:
        return OBJECT
    return None


def argument_kind(ctx: FileContext, expr, scope, order: int, depth: int = 0) -> str:
    """TEXT / TEXT_TUPLE / MAYBE_TEXT / NUMBER / OBJECT for an expression given to ``hash()``."""
    if depth > 2 * FOLLOW_DEPTH + 4:
        return MAYBE_TEXT  # a long chain of operations: stop looking
    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return TEXT
    if isinstance(expr, (cst.Integer, cst.Float, cst.Imaginary)):
        return NUMBER
    if isinstance(expr, (cst.Tuple, cst.List, cst.Set)):
        kinds = [argument_kind(ctx, e.value, scope, order, depth + 1) for e in expr.elements]
        return _tuple_kind(kinds)
    if isinstance(expr, cst.UnaryOperation):
        return NUMBER  # ``-x``, ``not x``
    if isinstance(expr, cst.BinaryOperation):
        left = argument_kind(ctx, expr.left, scope, order, depth + 1)
        right = argument_kind(ctx, expr.right, scope, order, depth + 1)
        if TEXT in (left, right) or (isinstance(expr.operator, cst.Modulo) and is_string(expr.left)):
            return TEXT
        if left == right == NUMBER:
            return NUMBER
        return MAYBE_TEXT
    if isinstance(expr, cst.Comparison) or isinstance(expr, cst.BooleanOperation):
        return NUMBER if isinstance(expr, cst.Comparison) else MAYBE_TEXT
    if isinstance(expr, cst.Call):
        return _call_kind(ctx, expr, scope, order, depth)
    if isinstance(expr, cst.Subscript):
        return _subscript_kind(ctx, expr, scope, order, depth)
    if isinstance(expr, cst.Name):
        return _name_kind(ctx, expr.value, scope, order, depth)
    if isinstance(expr, cst.Attribute):
        return _attribute_kind(ctx, expr, scope, order, depth)
    if isinstance(expr, (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp, cst.Dict)):
        return OBJECT  # hashed by identity (or unhashable)
    return MAYBE_TEXT


def _tuple_kind(kinds) -> str:
    if any(k in (TEXT, TEXT_TUPLE) for k in kinds):
        return TEXT_TUPLE
    if all(k == NUMBER for k in kinds):
        return NUMBER  # also ``()``
    if all(k in (NUMBER, OBJECT) for k in kinds):
        return OBJECT
    return MAYBE_TEXT


def is_string(expr) -> bool:
    return isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))


def _call_kind(ctx: FileContext, call, scope, order: int, depth: int) -> str:
    func = call.func
    if isinstance(func, cst.Name) and lookup(scope, func.value, order) is None:
        name = func.value
        if name in T.TEXT_BUILTINS:
            return TEXT
        if name in T.NUMBER_BUILTINS:
            return NUMBER
        if name in ("tuple", "frozenset") and call.args:
            return _tuple_kind([element_kind(ctx, call.args[0].value, scope, order, depth + 1)])
        return MAYBE_TEXT
    qualname = ctx.resolver.resolve(func, scope, order)
    if qualname in T.TEXT_CALLS:
        return TEXT
    if isinstance(func, cst.Attribute):
        method = func.attr.value
        if method in T.TEXT_METHODS:
            return TEXT
        if method in T.NUMBER_METHODS:
            return NUMBER
    if isinstance(func, cst.Name):
        binding = lookup(scope, func.value, order)
        if binding is not None and binding.kind == "class":
            return OBJECT  # an instance of a class defined here
    return MAYBE_TEXT


def _subscript_kind(ctx: FileContext, expr, scope, order: int, depth: int) -> str:
    """``row['conversation_id']``: the key's name says; ``x.shape[0]``: a number."""
    value = expr.value
    if isinstance(value, cst.Attribute) and value.attr.value in ("shape", "stride"):
        return NUMBER
    if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
        index = expr.slice[0].slice.value
        ok, key = literal(index)
        if ok and isinstance(key, str):
            return _kind_of_name(key) or MAYBE_TEXT
        if isinstance(index, cst.Slice):
            return MAYBE_TEXT
    container = argument_kind(ctx, value, scope, order, depth + 1) if depth < FOLLOW_DEPTH else MAYBE_TEXT
    return TEXT if container == TEXT else MAYBE_TEXT


def _name_kind(ctx: FileContext, name: str, scope, order: int, depth: int) -> str:
    if name in ("True", "False", "None"):
        return NUMBER
    binding = lookup(scope, name, order)
    if binding is not None and depth < FOLLOW_DEPTH:
        if binding.kind in ("def", "class", "import"):
            return OBJECT
        if binding.kind == "assign" and binding.value is not None:
            found = argument_kind(ctx, binding.value, binding.scope, binding.order, depth + 1)
            if found != MAYBE_TEXT:
                return found
        elif binding.kind == "assign":
            found = _loop_variable_kind(ctx, binding, depth)
            if found is not None:
                return found
        elif binding.kind == "param":
            found = _parameter_kind(ctx, binding, depth)
            if found is not None:
                return found
    return _kind_of_name(name) or MAYBE_TEXT


def _annotation_kind(annotation) -> Optional[str]:
    names = {n.value for n in _names(annotation)}
    if names & T.TEXT_ANNOTATIONS:
        return TEXT_TUPLE if names & {"Tuple", "tuple", "List", "list", "FrozenSet", "frozenset"} else TEXT
    if names and names <= T.NUMBER_ANNOTATIONS | {"Optional", "Tuple", "tuple", "None"}:
        return NUMBER
    return None


def _names(node):
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            yield current
        elif isinstance(current, cst.Attribute):
            yield current.attr
        else:
            stack.extend(code_children(current))


def _parameter_kind(ctx: FileContext, binding, depth: int) -> Optional[str]:
    """An annotated parameter, one with a literal default, a lambda's ``key=`` parameter."""
    if binding.value is not None:
        found = _annotation_kind(binding.value.annotation)
        if found is not None:
            return found
    fn = binding.scope.function
    if fn is None:
        return None
    for param in named_parameters(fn.node.params):
        if param.name.value == binding.name and param.default is not None:
            ok, value = literal(param.default)
            if ok and isinstance(value, (str, bytes)):
                return TEXT
            if ok and isinstance(value, (int, float)) and not isinstance(value, bool):
                return NUMBER
    if isinstance(fn.node, cst.Lambda):
        # ``sorted(names, key=lambda s: hash(s))``: an element of what is sorted.
        parent = ctx.index.parents.get(id(fn.node)) or scope_body(ctx, Place.outside(fn)).parents.get(id(fn.node))
        if isinstance(parent, cst.Call) and callee_is_sorting(parent):
            items = sorted_items(parent)
            if items is not None:
                return element_kind(ctx, items, fn.parent_scope, 1 << 30, depth + 1)
    return None


def callee_is_sorting(call) -> bool:
    func = call.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return name in T.SORTING_BY_KEY


def _loop_variable_kind(ctx: FileContext, binding, depth: int) -> Optional[str]:
    """``for name in os.listdir(root):`` -- an element of what the loop goes over."""
    for loop, scope, _, order in ctx.index.loops:
        target = loop.target
        if target is binding.node:
            return element_kind(ctx, loop.iter, scope, order, depth + 1)
        if isinstance(target, cst.Tuple) and any(e.value is binding.node for e in target.elements):
            iterable = loop.iter
            if isinstance(iterable, cst.Call) and dotted_name(iterable.func) == "enumerate":
                if target.elements[0].value is binding.node:
                    return NUMBER
                if iterable.args:
                    return element_kind(ctx, iterable.args[0].value, scope, order, depth + 1)
            return None
    return None


def element_kind(ctx: FileContext, items, scope, order: int, depth: int = 0) -> str:
    """What the elements of ``items`` are."""
    if isinstance(items, (cst.List, cst.Tuple, cst.Set)):
        kinds = [argument_kind(ctx, e.value, scope, order, depth + 1) for e in items.elements]
        if kinds and all(k == NUMBER for k in kinds):
            return NUMBER
        if any(k in (TEXT, TEXT_TUPLE) for k in kinds):
            return TEXT
        return MAYBE_TEXT
    if isinstance(items, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
        found = argument_kind(ctx, items.elt, scope, order, depth + 1)
        return TEXT if found in (TEXT, TEXT_TUPLE) else found
    if isinstance(items, cst.Call):
        func = items.func
        if isinstance(func, cst.Name) and lookup(scope, func.value, order) is None:
            if func.value == "range":
                return NUMBER
            if func.value in ("sorted", "list", "set", "tuple", "reversed", "frozenset") and items.args:
                return element_kind(ctx, items.args[0].value, scope, order, depth + 1)
        qualname = ctx.resolver.resolve(func, scope, order) or ""
        if qualname in T.LISTINGS:
            return TEXT
        if isinstance(func, cst.Attribute) and func.attr.value in ("split", "splitlines", "readlines", "keys",
                                                                   "glob", "rglob", "iterdir"):
            return TEXT
        if isinstance(func, cst.Attribute) and func.attr.value == "tolist":
            return NUMBER
    if isinstance(items, cst.Name) and depth < FOLLOW_DEPTH:
        binding = lookup(scope, items.value, order)
        if binding is not None and binding.kind == "assign" and binding.value is not None:
            return element_kind(ctx, binding.value, binding.scope, binding.order, depth + 1)
        if binding is not None and binding.kind == "param" and binding.value is not None:
            found = _annotation_kind(binding.value.annotation)  # ``texts: List[str]``
            if found is not None:
                return TEXT if found in (TEXT, TEXT_TUPLE) else found
        found = _kind_of_name(items.value)
        if found is not None:
            return found
    return MAYBE_TEXT


def _attribute_kind(ctx: FileContext, expr, scope, order: int, depth: int) -> str:
    """``self.name``: what the class assigns it (``self._hash_key = hash_key``), else its name."""
    attribute = expr.attr.value
    if attribute in ("shape",):
        return NUMBER
    if self_attribute(expr) and depth < FOLLOW_DEPTH:
        klass = enclosing_class(scope)
        kinds = []
        for assignment in ctx.index.assignments:
            if self_attribute(assignment.target) != attribute or assignment.value is None:
                continue
            if enclosing_class(assignment.scope) is not klass:
                continue
            kinds.append(argument_kind(ctx, assignment.value, assignment.scope, assignment.order, depth + 1))
        if kinds and all(k == kinds[0] for k in kinds) and kinds[0] != MAYBE_TEXT:
            return kinds[0]
    declared = option_type(ctx, expr)  # ``args.x`` of ``add_argument("--x", type=int)``
    if declared is not None:
        return TEXT if declared == "str" else NUMBER if declared in ("int", "float", "bool") else MAYBE_TEXT
    return _kind_of_name(attribute) or MAYBE_TEXT


def sorted_items(call) -> Optional[cst.CSTNode]:
    """What ``sorted(items, key=hash)`` / ``items.sort(key=hash)`` orders."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "sort":
        return call.func.value
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    return positional[0] if positional else None


class Place:
    """A body the value is followed in: the function (or module) and its scope, placed as
    ``scope_body`` and ``lookup`` expect a site."""

    __slots__ = ("fn", "scope", "order")

    def __init__(self, fn, scope, order: int) -> None:
        self.fn, self.scope, self.order = fn, scope, order

    @classmethod
    def of(cls, site) -> "Place":
        return cls(site.fn, site.scope, site.order)

    @classmethod
    def outside(cls, fn) -> "Place":
        """The body a function (or lambda) is defined in."""
        scope = fn.parent_scope
        while scope.kind in ("comprehension", "class") and scope.parent is not None:
            scope = scope.parent
        return cls(scope.function if scope.kind == "function" else None, scope, 1 << 30)
