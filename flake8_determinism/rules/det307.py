from __future__ import annotations

import builtins
import re
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterator, List, Optional, Set

from .._lazy import cst
from ..analysis.args import literal
from ..analysis.nodes import self_attribute
from ..tables import memory as M
from ..tables.aliases import KNOWN_ROOTS
from .common.base import Report, Rule
from .common.buffers import (
    Creation, creation_of, empty_calls, inherited_initializes, initializing_name, plain_module, self_method,
)

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


# How one occurrence of ``<receiver>.<name>`` uses the tensor.
WRITE = "write"  # an initializer writes it (``nn.init.zeros_(w)``, ``w.data.uniform_()``, ``w[...] = x``)
ASSIGN = "assign"  # ``x.name = value``: the whole attribute replaced
PASS = "pass"  # handed to a function we cannot see (``glorot(self.weight)``): may initialize it
ALIAS = "alias"  # put in a list, a loop or a local name: initialized when that body initializes
READ = "read"  # its values are used
META = "meta"  # only its shape, device, dtype, ...

_FORWARD = "forward"
_BY_NAME = frozenset({"_parameters", "_buffers", "__dict__"})
_BUILTINS = frozenset(dir(builtins))
_INIT_WORD = re.compile(r"(?:^|_)init", re.IGNORECASE)


class UninitializedMemory(Rule):
    """DET307: a parameter or buffer made with ``torch.empty`` that nothing initializes.

    What it does: reports ``torch.empty(...)``, ``torch.empty_like(...)`` and
    ``x.new_empty(...)`` made into a parameter (``self.w = nn.Parameter(torch.empty(n, m))``,
    ``register_parameter``) or a buffer (``self.register_buffer("b", torch.empty(n))``,
    ``nn.Buffer``) in a method of an ``nn.Module`` (or ``LightningModule``) subclass, when the
    class reads it (in ``forward`` or elsewhere) and nothing in the module writes it: no
    ``nn.init.*`` call, no in-place write (``.uniform_()``, ``.normal_()``, ``.zero_()``,
    ``.fill_()``, ``.copy_()``, also through ``.data``), no ``w[...] = ...`` or ``w.data = ...``,
    no function it is handed to that the linter cannot see (``glorot(self.weight)``), no loop
    over ``self.parameters()`` that initializes, no ``self.apply(...)``, no attribute reached by a
    computed name (``getattr(self, name)``), no method called from ``__init__`` that the class
    inherits from a base it cannot see (a project base's method is read: one that initializes
    nothing the class adds does not count), and no ``load_state_dict`` anywhere in the module.
    Writes through another receiver count anywhere in the module (``module.pos_embed.data.normal_()``
    in another class's ``_init_weights``).  Quiet as well: a class with any other base than
    ``nn.Module`` (``nn.Linear``'s ``__init__`` calls ``reset_parameters()``, which a subclass
    overrides), every module of a file that defines a Hugging Face ``PreTrainedModel`` or calls
    ``post_init()`` (which initializes them), a tensor with no elements (``torch.empty(0)``),
    ``torch.empty(n).uniform_()`` chains, and a parameter whose values the class never reads
    (only its ``.device`` or ``.size()``).  Plain local ``torch.empty`` tensors (output buffers,
    ``out=`` scratch) are not judged: whether every element is written before it is read is
    beyond what the linter can see.  In default mode only where the omission shows: a class with
    an initializing method of its own (``reset_parameters``, ``_init_weights``) that leaves this
    one out, or an entry module; a building block without one is usually initialized by the model
    holding it, in a module the linter does not read (``for p in self.parameters():
    nn.init.uniform_(p)``), so it is reported in strict mode only.

    Why it matters: ``torch.empty`` returns whatever the allocator's memory held, so the
    initial weights, and every result computed from them, differ from run to run and machine
    to machine; a seed does not help.  With ``torch.use_deterministic_algorithms(True)`` (and
    ``torch.utils.deterministic.fill_uninitialized_memory``, on by default) torch fills such
    memory with NaN instead: reproducible, but the model then computes NaN.

    Example: ``self.bias = nn.Parameter(torch.empty(out_features))`` that ``reset_parameters``
    leaves out.

    Fix: initialize it where it is made (``nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))``
    in a ``reset_parameters`` that ``__init__`` calls) or make it with ``torch.zeros``/``torch.ones``.
    """

    code = "DET307"
    triggers = frozenset({"empty", "empty_like", "new_empty"})
    invalid = (
        "import torch\nfrom torch import nn\n\n\nclass Scale(nn.Module):\n    def __init__(self, n):\n"
        "        super().__init__()\n        self.weight = nn.Parameter(torch.empty(n))\n"
        "        self.bias = nn.Parameter(torch.empty(n))\n        self.reset_parameters()\n\n"
        "    def reset_parameters(self):\n        nn.init.ones_(self.weight)\n\n"
        "    def forward(self, x):\n        return x * self.weight + self.bias\n",
    )
    valid = (
        "import torch\nfrom torch import nn\n\n\nclass Scale(nn.Module):\n    def __init__(self, n):\n"
        "        super().__init__()\n        self.weight = nn.Parameter(torch.empty(n))\n"
        "        self.reset_parameters()\n\n    def reset_parameters(self):\n"
        "        nn.init.ones_(self.weight)\n\n    def forward(self, x):\n        return x * self.weight\n",
        "import torch\nfrom torch import nn\n\n\nclass Noise(nn.Module):\n    def __init__(self, n):\n"
        "        super().__init__()\n        self.register_buffer('scale', torch.empty(n).uniform_(0, 1))\n\n"
        "    def forward(self, x):\n        return x * self.scale\n",
    )
    sources = (
        (
            "``torch.empty`` returns a tensor filled with uninitialized data (likewise ``empty_like`` and "
            "``Tensor.new_empty``).",
            "https://pytorch.org/docs/stable/generated/torch.empty.html",
        ),
        (
            "With ``torch.use_deterministic_algorithms(True)`` and "
            "``torch.utils.deterministic.fill_uninitialized_memory`` (default ``True``) ``torch.empty``, "
            "``empty_like`` and ``empty_strided`` fill floating-point memory with NaN and integer memory "
            "with the maximum value; observed on torch 2.13: ``torch.empty(3)`` gives "
            "``tensor([nan, nan, nan])``, and so does ``nn.Parameter(torch.empty(2))``.",
            "https://pytorch.org/docs/stable/deterministic.html (torch 2.13 torch/utils/deterministic.py, "
            "torch/_torch_docs.py)",
        ),
        (
            "The NaN/max-int filling of ``torch.empty*`` under deterministic algorithms was added in 2023.",
            "https://github.com/pytorch/pytorch/pull/101849",
        ),
        (
            "Built-in layers allocate with ``torch.empty`` and then call ``self.reset_parameters()`` in "
            "``__init__``, which writes every parameter with ``nn.init`` (``init.kaiming_uniform_(self.weight, "
            "a=math.sqrt(5))`` in ``nn.Linear``).",
            "torch 2.13 torch/nn/modules/linear.py (Linear.__init__, Linear.reset_parameters)",
        ),
        (
            "Hugging Face models initialize the weights of every submodule in ``post_init()`` "
            "(``_init_weights``) or load them from a checkpoint.",
            "https://huggingface.co/docs/transformers/main_classes/model#transformers.PreTrainedModel.post_init",
        ),
    )
    fix_description = (
        "Which values a parameter should start from is the model's design, so nothing is changed: "
        "initialize it in ``reset_parameters`` (called from ``__init__``) with an ``nn.init`` function, "
        "or make it with ``torch.zeros``/``torch.ones`` when a constant is meant."
    )
    scope_note = (
        "Default mode: classes with an initializing method of their own (``reset_parameters``, "
        "``_init_weights``...) and entry modules; strict mode: every module (a building block is "
        "usually initialized by the model that holds it, elsewhere)."
    )
    fixed = (
        "import torch\nfrom torch import nn\n\n\nclass Scale(nn.Module):\n"
        "    def __init__(self, n):\n        super().__init__()\n        self.weight = nn.Parameter(torch.empty(n))\n"
        "        self.bias = nn.Parameter(torch.empty(n))\n        self.reset_parameters()\n\n"
        "    def reset_parameters(self):\n        nn.init.ones_(self.weight)\n        nn.init.zeros_(self.bias)\n\n"
        "    def forward(self, x):\n        return x * self.weight + self.bias\n"
    )

    def might_fire(self, text, settings) -> bool:
        # ``empty`` is a common word (``queue.empty()``, ``df.empty``): a parameter or buffer is spelled too.
        return super().might_fire(text, settings) and text.has_any(M.HOLDER_WORDS)

    def might_fire_in(self, shape, settings) -> bool:
        # An ``empty`` call given to a parameter or buffer maker, as the rule's creations are.
        return super().might_fire_in(shape, settings) and _empty_held(
            shape.code.text, frozenset(self.triggers), M.HOLDER_WORDS)

    def check(self, ctx: FileContext) -> Iterator[Report]:
        creations = [found for site in empty_calls(ctx) for found in [creation_of(ctx, site)] if found]
        if not creations:
            return
        module = _ModuleUses(ctx, {c.name for c in creations})
        if module.pretrained or module.blanket or module.loads:
            return
        judged: Dict[int, bool] = {}
        for creation in creations:
            klass = creation.klass
            if id(klass) not in judged:
                judged[id(klass)] = plain_module(ctx, klass)
            if not judged[id(klass)]:
                continue
            family = module.family(klass)
            if module.class_initializes(klass, family, creation):
                continue
            if module.initialized(family, creation.name) or module.named_in(family, creation.name):
                continue
            if not module.read_in(family, creation.name):
                continue
            if not (ctx.settings.strict or ctx.facts.is_entry or _initializes_its_own(family)):
                # A building block with no initializer of its own is initialized by the model
                # that holds it, in a module we do not see (``for p in self.parameters():
                # nn.init.uniform_(p)``): strict mode only.
                continue
            yield Report(creation.node, _message(creation))


def _message(creation: Creation) -> str:
    what = "parameter" if creation.kind == "parameter" else "buffer"
    return (
        "%s is a %s made with torch.empty that nothing in this module initializes: it holds whatever was "
        "in memory, so the model and its results differ run to run (NaN under "
        "torch.use_deterministic_algorithms(True)) — initialize it, e.g. nn.init.kaiming_uniform_(%s, "
        "a=math.sqrt(5)) in a reset_parameters() that __init__ calls, or make it with torch.zeros"
        % (creation.subject, what, creation.subject)
    )


# -- what the module does with the attributes ----------------------------------------------------


class _ModuleUses:
    """What the module does with the attributes made with ``torch.empty``, from the index's one
    walk: every ``<receiver>.<name>`` of them, classified (WRITE, ASSIGN, PASS, ALIAS, READ, META),
    and what each function does that initializes."""

    def __init__(self, ctx: FileContext, names: Set[str]) -> None:
        self.ctx = ctx
        index = ctx.index
        # The index's parents: an argument's is the call, an assignment target's the statement.
        self.parents: Dict[int, object] = index.parents
        self.occurrences: List[tuple] = []  # (attribute node, def node)
        self.dynamic: Set[int] = set()  # bodies that reach attributes by computed name
        for node, fn in index.attributes:
            if node.attr.value in names:
                self.occurrences.append((node, self._home(node, fn)))
            elif node.attr.value in _BY_NAME and self_attribute(node):
                self.dynamic.add(_key(self._home(node, fn)))  # ``self._parameters[name]``
        self.strings: List[tuple] = []  # (value, def node, node, parent)
        for node, fn, parent in index.strings:
            ok, value = literal(node)
            if ok and value in names:
                self.strings.append((value, self._home(node, fn, parent), node, parent))
        self.calls = [(site.node, self._home(site.node, site.fn)) for site in index.calls]  # (call, def node)
        self.pretrained = any(_spelled(base.value).endswith(M.PRETRAINED_SUFFIX)
                              for klass, _, _ in index.classes for base in klass.bases)
        self.writes_in: Dict[int, bool] = {}  # id(def node) -> the body initializes something
        self.iterates_self: Set[int] = set()  # bodies looping over self.parameters() and the like
        self.blanket = False  # a module-level function initializes every parameter it is given
        self.loads = False
        self.self_calls: Dict[int, List[tuple]] = {}  # id(def) -> [(method name, via super())]
        self.applies: Set[int] = set()  # bodies that call self.apply(...) or load weights
        self._calls_facts()
        self.kinds = [(node, fn, self._classify(node, fn)) for node, fn in self.occurrences]

    def _home(self, node, fn, parent=None):
        """The def ``node`` counts for.  The index gives a def's decorators and default values to
        the function around it; here they count for the def itself, as far as the index's parents
        lead up to it (a decorator's or a default's call, attributes and arguments)."""
        parent = parent if parent is not None else self.parents.get(id(node))
        while parent is not None:
            if isinstance(parent, (cst.FunctionDef, cst.Lambda)):
                return parent
            parent = self.parents.get(id(parent))
        return fn.node if fn is not None else None

    def _local(self, call):
        """The function or method of this module a call runs, if any (FunctionInfo)."""
        site = self.ctx.site_of(call)
        if site is None:
            return None
        return self.ctx.resolver.local_function(call.func, site.scope, site.order, self.ctx.index.functions)

    def qualname(self, call) -> Optional[str]:
        site = self.ctx.site_of(call)
        return self.ctx.qualname(site) if site is not None else None

    # -- what each body does
    def _calls_facts(self) -> None:
        loops_over: Dict[int, str] = {}  # id(def) -> "self" | "other"
        for call, fn in self.calls:
            key = _key(fn)
            func = call.func
            name = self.qualname(call)
            method = func.attr.value if isinstance(func, cst.Attribute) else ""
            if name and name.startswith(M.INITIALIZER_PREFIX):
                self.writes_in[key] = True
            elif method.endswith("_") and not method.startswith("_") and method not in M.NOT_WRITING_INPLACE:
                self.writes_in[key] = True
            elif isinstance(func, cst.Name) and func.value not in _BUILTINS and call.args and (
                    not name or not name.startswith("torch")) and _function_name(fn) != _FORWARD and (
                    self._local(call) is None):
                self.writes_in[key] = True  # ``glorot(w)``: an initializer we cannot see (ours: read below)
            if _spelled(func) == M.PRETRAINED_INIT:
                self.pretrained = True
            receiver = func.value if isinstance(func, cst.Attribute) else None
            on_self = isinstance(receiver, cst.Name) and receiver.value == "self"
            if method in M.ALL_TENSORS_METHODS and self._looped_over(call):
                loops_over[key] = "self" if on_self and loops_over.get(key) != "other" else "other"
            if method in M.LOADING_CALLS or method == "apply" and on_self:
                self.applies.add(key)
            if method in M.LOADING_CALLS:
                self.loads = True  # the module loads weights: its models may always come from checkpoints
            if on_self:
                self.self_calls.setdefault(key, []).append((method, False))
            elif isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name) and (
                    receiver.func.value == "super"):
                self.self_calls.setdefault(key, []).append((method, True))
            if isinstance(func, cst.Name) and func.value in ("getattr", "setattr", "delattr") and call.args:
                first = call.args[0].value
                if isinstance(first, cst.Name) and first.value == "self":
                    if len(call.args) < 2 or not literal(call.args[1].value)[0]:
                        self.dynamic.add(key)
        self._writes_through_calls()
        for key, receiver in loops_over.items():
            if self.writes_in.get(key):
                if receiver == "self":
                    self.iterates_self.add(key)
                else:
                    self.blanket = True  # ``for p in m.parameters(): nn.init.normal_(p)``

    def _writes_through_calls(self) -> None:
        """A body that calls a function or method of this module whose body initializes initializes too."""
        calls = []
        for call, fn in self.calls:
            local = self._local(call)
            if local is not None and call.args:
                calls.append((_key(fn), id(local.node)))
        changed = True
        while changed:
            changed = False
            for caller, callee in calls:
                if self.writes_in.get(callee) and not self.writes_in.get(caller):
                    self.writes_in[caller] = changed = True

    def _looped_over(self, call) -> bool:
        """``for p in self.parameters()`` (also through ``enumerate``/``zip``/``list``, in a comprehension)."""
        node = call
        for _ in range(4):
            parent = self.parents.get(id(node))
            if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node:
                return True
            if not (isinstance(parent, cst.Call) and parent.func is not node):
                return False
            node = parent  # an argument (the index skips the ``Arg``)
        return False

    # -- one occurrence
    def _classify(self, node, fn) -> str:
        parents = self.parents
        current = node
        while True:  # ``w.data``, ``w[i]``, ``w.view(...)`` are the same memory
            parent = parents.get(id(current))
            if isinstance(parent, cst.Attribute) and parent.value is current:
                outer = parents.get(id(parent))
                if parent.attr.value in M.VIEW_ATTRIBUTES:
                    current = parent
                elif (parent.attr.value in M.VIEW_METHODS and isinstance(outer, cst.Call)
                        and outer.func is parent):
                    current = outer
                else:
                    break
            elif isinstance(parent, cst.Subscript) and parent.value is current:
                current = parent
            else:
                break
        parent = parents.get(id(current))
        if isinstance(parent, cst.Attribute) and parent.value is current:
            method = parent.attr.value
            outer = parents.get(id(parent))
            if isinstance(outer, cst.Call) and outer.func is parent:
                if method.endswith("_") and not method.startswith("_") and method not in M.NOT_WRITING_INPLACE:
                    return WRITE
                if method in M.METADATA_METHODS:
                    return META
                if method in M.CONTAINER_METHODS:
                    return ALIAS
                return READ
            return META if method in M.METADATA_ATTRIBUTES else READ
        if isinstance(parent, cst.Assign) and parent.value is not current:  # a target (the index skips
            if not any(target.target is current for target in parent.targets):  # ``AssignTarget``)
                return WRITE  # ``self.a, self.b = ...``
            if _makes_or_clears(self, parent.value):
                return META  # making (``self.w = nn.Parameter(...)``, ``self.w = None``) writes no values
            return ASSIGN if current is node else WRITE
        if isinstance(parent, cst.AnnAssign) and parent.target is current:
            if _makes_or_clears(self, parent.value):
                return META
            return ASSIGN if current is node else WRITE
        if isinstance(parent, cst.AugAssign) and parent.target is current:
            return READ
        if isinstance(parent, (cst.Element, cst.StarredElement, cst.Set, cst.DictElement, cst.For, cst.Assign)):
            # In a display (a set's elements are the ``Set``'s children in the index), a loop's
            # iterable, a value assigned.
            return ALIAS if self.writes_in.get(_key(fn)) else READ
        if isinstance(parent, cst.Call) and parent.func is not current:  # an argument
            arg = next((arg for arg in parent.args if arg.value is current), None)
            if arg is not None and arg.keyword is not None and arg.keyword.value == "out":
                return WRITE
            return self._handed_to(parent, fn)
        return READ

    def _handed_to(self, call, fn) -> str:
        name = self.qualname(call)
        if name and name.startswith(M.INITIALIZER_PREFIX):
            return WRITE
        func = call.func
        called = func.attr.value if isinstance(func, cst.Attribute) else (
            func.value if isinstance(func, cst.Name) else "")
        on_self = isinstance(func, cst.Attribute) and (_is_self(func.value) or _is_super(func.value))
        if isinstance(func, cst.Attribute) and not on_self and (name is None or "()" in name):
            return READ  # a method of a tensor (``x.matmul(self.weight)``, ``out.add_(self.bias)``)
        if _initializer_name(called):
            return WRITE  # ``trunc_normal_(self.pos_embed)`` (timm), ``constant_init(self.w, 0)`` (mmcv)
        in_forward = _function_name(fn) == _FORWARD
        local = self._local(call)
        if local is not None:  # a function or method we can read: does its body initialize anything?
            return PASS if self.writes_in.get(id(local.node)) and not in_forward else READ
        if name:
            root = name.split(".", 1)[0]
            if root in KNOWN_ROOTS or root in ("math", "builtins", "functools", "itertools", "operator"):
                return READ  # a library op reads it
            return READ if in_forward else PASS  # a project or library function we cannot see
        if isinstance(func, cst.Name):
            if func.value in _BUILTINS:
                return META if func.value in ("isinstance", "hasattr", "id", "type", "len") else READ
            return READ if in_forward else PASS  # a local function, ``init_fn`` given as a parameter
        if on_self:
            return READ if in_forward else PASS  # ``self._init(self.weight)``
        return READ

    # -- questions
    def family(self, klass) -> List[object]:
        """``klass``, the classes defined here it derives from, and those deriving from it."""
        index = self.ctx.index
        found = [node for node, _, _ in index.local_ancestry(klass)]
        for node, _, _ in index.classes:
            if node is not klass and any(a[0] is klass for a in index.local_ancestry(node)):
                found.append(node)
        return found

    def methods(self, family) -> List[object]:
        ids = {id(k) for k in family}
        return [
            info for info in self.ctx.index.functions.values()
            if info.is_method and id(info.parent_scope.node) in ids
        ]

    def class_initializes(self, klass, family, creation: Creation) -> bool:
        """The class initializes everything (or may): ``self.apply``, a loop over
        ``self.parameters()`` that writes, ``load_state_dict``, attributes reached by computed names,
        or a method called while the object is built that the linter cannot see (one inherited
        from a project base is read: ``super().reset_parameters()`` that only resets a submodule
        initializes nothing the class adds)."""
        methods = self.methods(family)
        keys = {id(info.node) for info in methods}
        if keys & (self.applies | self.iterates_self | self.dynamic):
            return True
        defined = {info.name: info for info in methods}
        todo = [info for info in methods if info.name == "__init__"] + [creation.fn]
        seen = set()
        while todo:
            info = todo.pop()
            if id(info.node) in seen:
                continue
            seen.add(id(info.node))
            for method, via_super in self.self_calls.get(id(info.node), ()):
                if method in M.MODULE_METHODS_NOT_INITIALIZING or (via_super and method == "__init__"):
                    continue
                if not via_super and method in defined:
                    todo.append(defined[method])
                elif inherited_initializes(self.ctx, klass, method, creation.name):
                    return True  # a method of a base that initializes, or that we cannot see
        for key in keys:
            for method, _ in self.self_calls.get(key, ()):
                if method not in defined and initializing_name(method) and inherited_initializes(
                        self.ctx, klass, method, creation.name):
                    return True
        return False

    def initialized(self, family, name: str) -> bool:
        """Written through ``self`` in the class, or on any other receiver anywhere in the module
        (``module.weight.data.normal_()`` in another class's ``_init_weights``)."""
        keys = {id(info.node) for info in self.methods(family)}
        for node, fn, kind in self.kinds:
            if node.attr.value != name or kind not in (WRITE, ASSIGN, PASS, ALIAS):
                continue
            on_self = isinstance(node.value, cst.Name) and node.value.value == "self"
            if not on_self or (fn is not None and id(fn) in keys):
                return True
        return False

    def named_in(self, family, name: str) -> bool:
        """The attribute's name as a string in the class (``getattr(self, "w")``), other than
        where a parameter or buffer of that name is registered."""
        keys = {id(info.node) for info in self.methods(family)}
        for value, fn, node, parent in self.strings:
            if value != name or fn is None or id(fn) not in keys:
                continue
            if isinstance(parent, cst.Call) and parent.func is not node and self_method(parent) in (
                    "register_buffer", "register_parameter"):
                continue  # an argument of the registering call
            return True
        return False

    def read_in(self, family, name: str) -> bool:
        """Are its values read through ``self`` in a method of the class (not only its size or device)?"""
        keys = {id(info.node) for info in self.methods(family)}
        for node, fn, kind in self.kinds:
            if kind != READ or node.attr.value != name or fn is None or id(fn) not in keys:
                continue
            if isinstance(node.value, cst.Name) and node.value.value == "self":
                return True
        return False


def _makes_or_clears(uses: _ModuleUses, value) -> bool:
    """``self.w = None`` or ``self.w = nn.Parameter(...)``: another making, not a write."""
    if value is None:
        return True
    if isinstance(value, cst.Name) and value.value == "None":
        return True
    if isinstance(value, cst.IfExp):
        return _makes_or_clears(uses, value.body) and _makes_or_clears(uses, value.orelse)
    if isinstance(value, (cst.Dict, cst.List)) and not value.elements:
        return True
    if isinstance(value, cst.Call):
        name = uses.qualname(value)
        return name in M.PARAMETER_CLASSES or name in M.BUFFER_CLASSES or (
            name in M.PARAMETER_CONTAINERS and not value.args)
    return False


def _key(fn) -> int:
    return id(fn) if fn is not None else 0


def _spelled(expr) -> str:
    """``f`` for ``f`` and ``x.f``, else ''."""
    if isinstance(expr, cst.Attribute):
        return expr.attr.value
    return expr.value if isinstance(expr, cst.Name) else ""


def _is_self(node) -> bool:
    return isinstance(node, cst.Name) and node.value in ("self", "cls")


def _is_super(node) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super"


def _initializes_its_own(family) -> bool:
    """The class (or a local base) has an initializing method besides ``__init__``
    (``reset_parameters``, ``_init_weights``): it initializes its own parameters, so one it
    leaves out is forgotten (PyG ``RGATConv.l2``)."""
    for klass in family:
        body = klass.body.body if isinstance(klass.body, cst.IndentedBlock) else ()
        for statement in body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value != "__init__" \
                    and initializing_name(statement.name.value):
                return True
    return False


def _function_name(fn) -> str:
    return fn.name.value if isinstance(fn, cst.FunctionDef) else ""


def _initializer_name(called: str) -> bool:
    """Named like an initializer: in place (``trunc_normal_``, ``uniform_``) or ``init``/``initialize`` as
    a word (``constant_init``, ``init_weights``; not ``is_uninitialized_parameter``)."""
    return (called.endswith("_") and not called.startswith("_") and called not in M.NOT_WRITING_INPLACE) or (
        _INIT_WORD.search(called) is not None and not called.startswith("__"))


# -- pre-check (second stage: the text and the ``ast`` tree flake8 built) --
def _empty_held(text: str, empty: FrozenSet[str], holders: FrozenSet[str]) -> bool:
    """DET307: an ``empty`` call given to a parameter or buffer maker: the maker's call, then one
    of the empty calls within its first arguments (the rule's creations are its first argument,
    or ``register_buffer``'s second)."""
    makers = re.compile(r"\b(?:%s)\s*\(" % "|".join(sorted(holders)))
    calls = re.compile(r"\b(?:%s)\s*\(" % "|".join(sorted(empty)))
    return any(calls.search(text, match.end(), match.end() + 400) for match in makers.finditer(text))
