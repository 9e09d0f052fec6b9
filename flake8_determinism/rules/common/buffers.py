"""The parameters and buffers a module makes with ``torch.empty`` (DET307), and what its classes'
bases may initialize.

``empty_calls``/``creation``: ``torch.empty(...)``, ``torch.empty_like(...)`` or ``x.new_empty(...)``
in a method, made into a parameter (``self.w = nn.Parameter(...)``, ``register_parameter``) or a
buffer (``register_buffer``, ``nn.Buffer``).  ``plain_module``: a class whose bases are
``nn.Module``-like, which initialize nothing it adds.  ``inherited_initializes``: may a method it
inherits from a base defined elsewhere initialize an attribute (a project base's method is read)?
"""

from __future__ import annotations

import ast as _ast
from typing import TYPE_CHECKING, Iterator, NamedTuple, Optional

from ..._lazy import cst
from ...analysis.args import MISSING, UNKNOWN, find_arg, literal
from ...analysis.nodes import self_attribute
from ...analysis.scopes import canonical, lookup
from ...tables import memory as M
from ...tables.aliases import KNOWN_ROOTS

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite


class Creation(NamedTuple):
    node: object  # the ``torch.empty(...)`` call
    klass: object  # the class whose method makes it
    fn: object  # that method (FunctionInfo)
    name: str  # the attribute: ``weight`` for ``self.weight`` / ``self.register_buffer("weight", ...)``
    kind: str  # "parameter" | "buffer"
    holder: object  # the statement's call or assignment that makes it a parameter or buffer
    subject: str  # as the message names it: ``self.weight``, ``self.rel[...]``


# -- where uninitialized tensors become parameters and buffers ------------------------------------


def empty_calls(ctx: FileContext) -> Iterator[CallSite]:
    """The ``torch.empty``-like calls in methods."""
    for site in ctx.index.calls:
        if site.fn is None or not site.fn.is_method:
            continue
        func = site.node.func
        if isinstance(func, cst.Attribute) and func.attr.value in M.EMPTY_METHODS:
            yield site
        elif ctx.qualname(site) in M.EMPTY_CONSTRUCTORS:
            yield site


def creation_of(ctx: FileContext, site: CallSite) -> Optional[Creation]:
    """The parameter or buffer the tensor of an ``empty_calls`` site becomes (None: none, or
    one with no elements)."""
    call = site.node
    if has_no_elements(call):
        return None
    parents = ctx.index.parents
    node = call
    while True:  # ``torch.empty(n).to(device)`` gives the same values; ``.uniform_()`` writes them
        parent = parents.get(id(node))
        if not (isinstance(parent, cst.Attribute) and parent.value is node):
            break
        outer = parents.get(id(parent))
        if not (isinstance(outer, cst.Call) and outer.func is parent and parent.attr.value in M.PASSING_ON):
            return None
        node = outer
    wrapper = parents.get(id(node))  # the index records an argument's parent as the call itself
    if not isinstance(wrapper, cst.Call) or not any(arg.value is node for arg in wrapper.args):
        return None
    klass = site.fn.parent_scope.node
    name = ctx.resolver.resolve(wrapper.func, site.scope, site.order)
    if name in M.PARAMETER_CLASSES or name in M.BUFFER_CLASSES:
        if find_arg(wrapper, "data", 0) is not node:
            return None
        kind = "parameter" if name in M.PARAMETER_CLASSES else "buffer"
        held = held_as(ctx, wrapper)
        if held is None:
            return None
        return Creation(call, klass, site.fn, held[0], kind, held[1], held[2])
    if self_method(wrapper) == "register_buffer" and find_arg(wrapper, "tensor", 1) is node:
        attribute = literal_name(wrapper)
        return Creation(call, klass, site.fn, attribute, "buffer", wrapper, "self." + attribute) if attribute else None
    return None


def held_as(ctx: FileContext, wrapper) -> Optional[tuple]:
    """(attribute, holder) for ``self.w = Parameter(...)`` (also ``... if c else None``, ``self.w[k] =``)
    and ``self.register_parameter("w", Parameter(...))``."""
    parents = ctx.index.parents
    holder = parents.get(id(wrapper))
    if isinstance(holder, cst.IfExp):
        holder = parents.get(id(holder))
    if isinstance(holder, cst.Assign):
        for target in holder.targets:
            expr, entry = target.target, ""
            if isinstance(expr, cst.Subscript):  # a ParameterDict/ParameterList entry
                expr, entry = expr.value, "[...]"
            attribute = self_attribute(expr)
            if attribute:
                return attribute, holder, "self." + attribute + entry
        return None
    if isinstance(holder, cst.Call) and self_method(holder) == "register_parameter":
        if find_arg(holder, "param", 1) is wrapper:
            attribute = literal_name(holder)
            return (attribute, holder, "self." + attribute) if attribute else None
    return None


def self_method(call) -> str:
    """``m`` for ``self.m(...)``, else ''."""
    func = call.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
        return func.attr.value
    return ""


def literal_name(call) -> str:
    """The attribute ``self.register_buffer("w", ...)`` names: a literal identifier, else ''."""
    value = find_arg(call, "name", 0)
    if value in (MISSING, UNKNOWN):
        return ""
    ok, name = literal(value)
    return name if ok and isinstance(name, str) and name.isidentifier() else ""


def has_no_elements(call) -> bool:
    """``torch.empty(0)``, ``x.new_empty((0, d))``: nothing to initialize."""
    sizes = []
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            value = arg.value
            if isinstance(value, (cst.Tuple, cst.List)):
                sizes.extend(element.value for element in value.elements)
            else:
                sizes.append(value)
        elif arg.keyword is not None and arg.keyword.value == "size":
            value = arg.value
            if isinstance(value, (cst.Tuple, cst.List)):
                sizes.extend(element.value for element in value.elements)
    return any(literal(size) == (True, 0) for size in sizes)


# -- the classes judged ---------------------------------------------------------------------------


def plain_module(ctx: FileContext, klass) -> bool:
    """Does ``klass`` derive only from ``nn.Module``-like bases, which initialize nothing it adds
    (directly, through classes defined here, or through project classes)?"""
    module_like = False
    for qualname in outside_bases(ctx, klass):
        if qualname in M.STATELESS_BASES:
            continue
        if qualname in M.PLAIN_MODULE_BASES:
            module_like = True
            continue
        bases = project_library_bases(ctx, qualname) - M.STATELESS_BASES
        if bases and bases <= M.PLAIN_MODULE_BASES:
            module_like = True
            continue
        return False  # a base we cannot see, or one that initializes
    return module_like


def outside_bases(ctx: FileContext, klass) -> Iterator[Optional[str]]:
    """The qualified names of the bases of ``klass`` and of its local ancestors that are not
    defined in this module (``Generic[T]`` read as ``Generic``; ``object`` left out)."""
    for node, scope, order in ctx.index.local_ancestry(klass):
        for base in node.bases:
            expr = base.value
            if isinstance(expr, cst.Name):
                binding = lookup(scope, expr.value, order)
                if binding is not None and binding.kind == "class":
                    continue  # in the ancestry already
                if binding is None and expr.value == "object":
                    continue
            if isinstance(expr, cst.Subscript):  # ``Generic[T]``
                expr = expr.value
            yield ctx.resolver.resolve(expr, scope, order)


def project_library_bases(ctx: FileContext, qualname: Optional[str]) -> frozenset:
    if not qualname or qualname.split(".", 1)[0] in KNOWN_ROOTS:
        return frozenset()
    project = ctx.project
    if project is None:
        return frozenset()
    klass = project.class_target(qualname)
    if klass is None:
        return frozenset()
    return frozenset(canonical(base) for base in project.project.library_bases(klass))


# -- what bases defined elsewhere initialize -------------------------------------------------------


def inherited_initializes(ctx: FileContext, klass, method: str, name: str) -> bool:
    """May ``method``, inherited from a base defined elsewhere, initialize ``self.<name>``?  Unknown
    (a library base, a method not found): yes.  A project base's method is read: it initializes
    when it names the attribute, loops over the parameters, calls ``apply`` or a method of ``self``
    (which may be the subclass's)."""
    project = ctx.project
    if project is None:
        return True
    for qualname in outside_bases(ctx, klass):
        if qualname in M.PLAIN_MODULE_BASES or qualname in M.STATELESS_BASES:
            continue
        target = project.class_target(qualname) if qualname else None
        if target is None:
            return True
        found = project.project.method(target, method)
        if found is None or found.kind != "function":
            continue
        from ...analysis.project.model import function_tree  # the project floor reads its files

        body = function_tree(found)
        if body is None or _ast_initializes(body, name):
            return True
        return False
    return True


def _ast_initializes(function, name: str) -> bool:
    for node in _ast.walk(function):
        if isinstance(node, _ast.Attribute) and node.attr == name:
            return True
        if isinstance(node, _ast.Call) and isinstance(node.func, _ast.Attribute):
            method = node.func.attr
            receiver = node.func.value
            if method in M.ALL_TENSORS_METHODS or method == "apply" or method in M.LOADING_CALLS:
                return True
            if isinstance(receiver, _ast.Name) and receiver.id == "self" and (
                    method not in M.MODULE_METHODS_NOT_INITIALIZING):
                return True
            if isinstance(receiver, _ast.Call) and isinstance(receiver.func, _ast.Name) and receiver.func.id == "super":
                return True
    return False



def initializing_name(method: str) -> bool:
    """Named like a method that initializes (``reset_parameters``, ``_init_weights``, ``load_...``)."""
    lowered = method.lower()
    return "init" in lowered or "reset" in lowered or "load" in lowered
