from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, FrozenSet, Iterator, Optional, Tuple

from .._lazy import cst
from ..analysis.args import MISSING, find_arg, literal
from ..analysis.scopes import lookup
from ..analysis.nodes import calls_in, code_children, identifiers_in, named_parameters
from .common import edits
from ..tables.run_uses import GRADIENTS_OFF
from ..tables.seeding import TORCH
from ..tables.stochastic import ALWAYS_ON_IN_FORWARD, DROPOUT
from .common.base import Report, Rule, last_parts
from .common.stochastic import inert

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite

# Evaluation: functions named so, or calling one of these (gradients off).
EVALUATION_FUNCTION = re.compile(
    r"^_?(eval|evaluate|evaluation|validate|validation|valid|val|test|predict|infer|inference)(_|$)", re.IGNORECASE)
MOVES = frozenset({"to", "cuda", "cpu", "double", "float", "half"})  # ``Net().to(device)`` is still a Net
TORCH_DROPOUT = frozenset(name for name, op in DROPOUT.items() if op.framework == TORCH)

_FUNCTIONAL_WORDS = last_parts(ALWAYS_ON_IN_FORWARD)
_LAYER_WORDS = last_parts(TORCH_DROPOUT) - _FUNCTIONAL_WORDS
_FUNCTIONAL_CALL = re.compile(r"\bdropout[123]?d?\s*\(")

# Keras: ``model(x, training=True)`` outside training.  A call we cannot resolve is a model or
# layer object (``model``, ``self.encoder``); resolved, only a Keras/TensorFlow callee.
KERAS_ROOTS = frozenset({"tensorflow", "keras", "tf_keras"})
_KERAS_CALLEES = KERAS_ROOTS | {""}
GRADIENT_METHODS = frozenset({"gradient", "gradients", "apply_gradients", "minimize", "jacobian", "batch_jacobian"})
_TRAINING_TRUE = re.compile(r"\btraining\s*=\s*True\b")

# Dropout kept on at inference on purpose: Monte Carlo dropout, Bayesian approximations.
_ON_PURPOSE = re.compile(r"(^|_)mc(_|$)|mcdropout|monte|bayes|uncertain", re.IGNORECASE)


class DropoutAtEvaluation(Rule):
    """DET403: dropout that stays on when the model is evaluated.

    What it does: reports ``F.dropout(x, p)`` (also ``dropout1d``/``2d``/``3d``) called in a
    module's ``forward`` without a ``training`` argument: it defaults to ``True``, so
    ``model.eval()`` does not turn it off.  An explicit ``training=True`` is taken as meant
    (Tacotron 2's prenet keeps dropout at inference).  Quiet when the rate is a literal 0, when the
    call sits under a test of ``training`` (``if self.training:``), and in modules that keep
    dropout on at inference on purpose (Monte Carlo dropout: ``mc``, ``bayes``,
    ``uncertainty`` in the class's, the method's or its parameters' names).  And, in an entry
    module where nothing ever leaves training mode (no ``.eval()``, no ``.train(False)``), a
    model of a class defined here that holds dropout, called in an evaluation: a function named
    ``evaluate``/``validate``/``test``/``predict``/``infer``... or one that turns gradients off.
    And in TensorFlow/Keras code, a model or layer called with ``training=True`` in an evaluation
    function (``test_step``, ``evaluate``, ``predict``...), unless that function takes
    gradients (``tape.gradient``, ``apply_gradients``), the call repeats over a ``range`` (Monte Carlo sampling), or
    the names say Monte Carlo/Bayesian.

    Why it matters: every evaluation, validation score and prediction then draws fresh
    dropout masks: two evaluations of the same checkpoint disagree, and the scores are
    lower than the model's.

    Example: ``def forward(self, x): return self.fc(F.dropout(x, 0.5))``.
    Fix: pass ``training=self.training`` (Keras: ``training=False``).
    """

    code = "DET403"
    fixes = "unsafe"
    triggers = last_parts(ALWAYS_ON_IN_FORWARD) | last_parts(TORCH_DROPOUT)
    invalid = (
        "import torch.nn as nn\nimport torch.nn.functional as F\n\n\nclass Net(nn.Module):\n"
        "    def forward(self, x):\n        return F.dropout(x, 0.5)\n",
    )
    valid = (
        "import torch.nn as nn\nimport torch.nn.functional as F\n\n\nclass Net(nn.Module):\n"
        "    def forward(self, x):\n        return F.dropout(x, 0.5, training=self.training)\n",
        "import torch.nn as nn\nimport torch.nn.functional as F\n\n\nclass Net(nn.Module):\n"
        "    def forward(self, x):\n        if self.training:\n            x = F.dropout(x, 0.5)\n        return x\n",
    )
    sources = (
        (
            "Keras layers take ``training``: ``True`` runs them in training mode (dropout drops units, "
            "batch normalization normalizes with the batch's statistics) whatever the call site.",
            "https://keras.io/api/layers/base_layer/#call-method; "
            "https://www.tensorflow.org/guide/keras/writing_a_training_loop_from_scratch "
            "(``test_step`` calls the model with ``training=False``)",
        ),
        (
            "``torch.nn.functional.dropout``, ``dropout1d``, ``dropout2d`` and ``dropout3d`` take "
            "``training: bool = True``: called without it they drop units whatever the module's mode.",
            "pytorch/pytorch torch/nn/functional.py (torch 2.13), def dropout(input, p=0.5, training=True, "
            "inplace=False)",
        ),
        (
            "``Module.eval()`` only sets ``self.training = False`` on the module and its children; "
            "functional calls see it only when they are passed it.",
            "https://docs.pytorch.org/docs/stable/generated/torch.nn.Module.html#torch.nn.Module.eval",
        ),
    )
    fix_description = (
        "Passes ``training=self.training`` (Keras: ``training=False``). Unsafe: it turns "
        "the dropout off at evaluation, which changes evaluation results (the point) -- review it where "
        "a model keeps dropout on at inference on purpose."
    )

    def might_fire(self, text, settings) -> bool:
        # A functional dropout in a ``forward``; or any dropout, for the evaluation case; or a Keras
        # call with ``training=True``.
        if text.has_any(KERAS_ROOTS) and text.search(_TRAINING_TRUE):
            return True
        return super().might_fire(text, settings) and ("forward" in text or text.has_any(_LAYER_WORDS))

    def might_fire_in(self, shape, settings) -> bool:
        code = shape.code
        if code.has_any(KERAS_ROOTS) and code.search(_TRAINING_TRUE):
            return True
        if "forward" in code and code.has_any(_FUNCTIONAL_WORDS) and code.search(_FUNCTIONAL_CALL) \
                and _functional_in_forward(shape.tree, _FUNCTIONAL_WORDS):
            return True
        return shape.is_entry and code.has_any(self.triggers)  # the evaluation case: entry modules only

    def check(self, ctx: FileContext) -> Iterator[Report]:
        yield from self._functional_in_forward(ctx)
        yield from _evaluated_in_training_mode(ctx)
        yield from _keras_training_at_evaluation(ctx)

    @staticmethod
    def _functional_in_forward(ctx: FileContext) -> Iterator[Report]:
        tested: dict = {}  # id(forward) -> ids of its calls under a test of the mode
        for site in ctx.calls_to(ALWAYS_ON_IN_FORWARD):
            owner = _forward_owner(site)
            if owner is None or inert(site, DROPOUT[site.qualname]):
                continue
            keyword, position, _ = DROPOUT[site.qualname].training
            if find_arg(site.node, keyword, position) is not MISSING:
                continue  # passed: the mode, a flag, or ``training=True`` written on purpose (Tacotron's prenet)
            function = site.fn.node
            if id(function) not in tested:
                tested[id(function)] = _calls_under_mode_tests(function.body)
            if id(site.node) in tested[id(function)] or _on_purpose(site, owner):
                continue  # it runs in one mode only (``if self.training:``), or on purpose
            self_name = _self_name(site.fn.node)
            yield Report(site.node, _message(ctx.spelling(site)),
                         fix=_fix(site.node, self_name) if self_name else None)


def _evaluated_in_training_mode(ctx: FileContext) -> Iterator[Report]:
    """A model of a class defined here that holds dropout, called in an evaluation (a function
    named ``evaluate``/``test``/``predict``/..., or one that turns gradients off), in a module
    where nothing is ever put in evaluation mode.  One report per module, at the first call."""
    if not ctx.facts.is_entry or any(_leaves_training_mode(site) for site in ctx.index.calls):
        return
    holders = _dropout_classes(ctx)
    if not holders:
        return
    gradient_free = _calls_without_gradients(ctx)
    for site in ctx.index.calls:
        fn = site.fn
        if fn is None or not isinstance(site.node.func, cst.Name) or not ctx.facts.reaches(fn):
            continue
        if not (EVALUATION_FUNCTION.match(fn.name) or id(site.node) in gradient_free):
            continue
        klass = _model_class(ctx, site, site.node.func.value, holders)
        if klass is not None:
            yield Report(site.node, "%s(...) is evaluated in training mode: %s holds dropout and nothing here calls"
                         " .eval(), so every evaluation draws new dropout masks and its scores differ run to run"
                         " — call %s.eval() before evaluating (and .train() before training again)"
                         % (site.node.func.value, klass, site.node.func.value))
            return


def _keras_training_at_evaluation(ctx: FileContext) -> Iterator[Report]:
    """``model(x, training=True)`` in an evaluation (a function named ``evaluate``/``test_step``/
    ``predict``/...) of a TensorFlow/Keras module: dropout (and batch statistics) stay in training
    behaviour.  Not in a function that takes gradients (``tape.gradient``), not when repeated
    over a ``range`` (Monte Carlo sampling), not where the names say it is on purpose."""
    if not ctx.index.imported_roots & KERAS_ROOTS:
        return
    for site in ctx.index.calls:
        fn = site.fn
        if fn is None or literal(find_arg(site.node, "training")) != (True, True):
            continue
        name = ctx.qualname(site) or ""
        if name.split(".", 1)[0] not in _KERAS_CALLEES:
            continue  # a model or layer object (unresolved), or a Keras call; not torch's F.dropout
        outer = _evaluation_function(fn)
        if outer is None or _on_purpose_names(ctx, fn) or _records_gradients(ctx, outer) \
                or _repeated_over_range(ctx, site.node):
            continue
        yield Report(
            site.node,
            "%s(..., training=True) in %s(): dropout stays on (and batch normalization uses batch"
            " statistics) at evaluation, so its results differ run to run — pass training=False"
            % (ctx.spelling(site), outer.name),
            fix=edits.set_argument(site.node, "training", None, "False", "pass training=False", safe=False),
        )


def _evaluation_function(fn):
    """The innermost enclosing function named as an evaluation (``test_step``, ``evaluate``...)."""
    while fn is not None:
        if EVALUATION_FUNCTION.match(fn.name):
            return fn
        fn = _outer(fn)
    return None


def _outer(fn):
    """The function whose body defines ``fn`` (None for a module-level function or a method)."""
    scope = fn.parent_scope
    while scope is not None and scope.function is None:
        scope = scope.parent
    return scope.function if scope is not None else None


def _on_purpose_names(ctx: FileContext, fn) -> bool:
    """Monte Carlo dropout or a Bayesian approximation, by the names around the call."""
    names = [ctx.path or ""]
    while fn is not None:
        names.append(fn.name)
        if fn.is_method and isinstance(fn.parent_scope.node, cst.ClassDef):
            names.append(fn.parent_scope.node.name.value)
        fn = _outer(fn)
    return any(_ON_PURPOSE.search(name) for name in names)


def _records_gradients(ctx: FileContext, fn) -> bool:
    """The function takes gradients (``tape.gradient(...)``, ``optimizer.apply_gradients(...)``):
    a ``tf.GradientTape()`` block alone that nothing differentiates is still an evaluation."""
    return any(site.fn is fn and site.method_name in GRADIENT_METHODS for site in ctx.index.calls)


def _repeated_over_range(ctx: FileContext, call) -> bool:
    """``[model(x, training=True) for _ in range(n)]``: n samples of the dropout masks."""
    node = ctx.index.parents.get(id(call))
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Module)):
        loops = [node] if isinstance(node, cst.For) else list(_comprehension_loops(node))
        for loop in loops:
            if isinstance(loop.iter, cst.Call) and isinstance(loop.iter.func, cst.Name) \
                    and loop.iter.func.value in ("range", "trange"):
                return True
        node = ctx.index.parents.get(id(node))
    return False


def _comprehension_loops(node):
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        loop = node.for_in
        while loop is not None:
            yield loop
            loop = loop.inner_for_in


def _calls_without_gradients(ctx: FileContext) -> set:
    """Ids of the calls made with gradients off: in a ``with torch.no_grad():`` (or
    ``inference_mode()``) block, or in a function decorated with one."""
    found: set = set()
    for function in ctx.index.functions.values():
        node = function.node
        if not isinstance(node, cst.FunctionDef):
            continue  # a lambda holds no with-block
        if any(_turns_gradients_off(ctx, d.decorator, function) for d in node.decorators):
            found |= calls_in([node.body])
            continue
        stack = [node.body]
        while stack:
            current = stack.pop()
            if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            if isinstance(current, cst.With) and any(_turns_gradients_off(ctx, item.item, function)
                                                     for item in current.items):
                found |= calls_in([current.body])
                continue
            stack.extend(code_children(current))
    return found


def _turns_gradients_off(ctx: FileContext, expr, function) -> bool:
    call = expr if isinstance(expr, cst.Call) else None
    name = ctx.resolver.resolve(call.func if call is not None else expr, function.scope, 0) or ""
    return name in GRADIENTS_OFF


def _leaves_training_mode(site: CallSite) -> bool:
    """``x.eval()``, ``x.train(False)``, ``x.train(mode=flag)``: something may leave training mode."""
    if not isinstance(site.node.func, cst.Attribute):
        return False
    method = site.method_name
    if method == "eval" and not site.node.args:
        return True
    if method == "train":
        mode = find_arg(site.node, "mode", 0)
        return mode is not MISSING and literal(mode) != (True, True)  # False, or a flag: maybe off
    return False


def _dropout_classes(ctx: FileContext) -> dict:
    """Name -> name of classes defined here that build a torch dropout layer (or call a dropout
    functional), themselves or through a local base; and id of an ``nn.Sequential(...)`` call
    given a dropout layer -> how to name it."""
    direct = set()
    for site in ctx.calls_to(TORCH_DROPOUT):
        owner = site.fn.parent_scope.node if site.fn is not None and site.fn.is_method else None
        if isinstance(owner, cst.ClassDef) and not inert(site, DROPOUT[site.qualname]):
            direct.add(id(owner))
    found = {}
    for node, _, _ in ctx.index.classes:
        if any(id(ancestor) in direct for ancestor, _, _ in ctx.index.local_ancestry(node)):
            found[node.name.value] = node.name.value
    # ``nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), ...)``: the container holds dropout too
    # (keyed by the id of its call: ``_built_class``).
    for site in ctx.calls_to(_CONTAINERS):
        for arg in site.node.args:
            layer = ctx.site_of(arg.value) if isinstance(arg.value, cst.Call) else None
            if layer is not None and ctx.qualname(layer) in TORCH_DROPOUT \
                    and not inert(layer, DROPOUT[ctx.qualname(layer)]):
                found[id(site.node)] = "%s(...)" % ctx.spelling(site)
                break
    return found


# Containers whose layers are given as arguments.
_CONTAINERS = frozenset({"torch.nn.Sequential"})


def _model_class(ctx: FileContext, site: CallSite, name: str, holders: dict) -> Optional[str]:
    """The dropout class whose instance ``name`` holds at the call: assigned from ``Class(...)``, or
    a parameter every caller here passes such an instance (one level)."""
    binding = lookup(site.scope, name, site.order)
    if binding is None:
        return None
    if binding.kind == "assign":
        return _built_class(binding.value, holders)
    if binding.kind != "param" or site.fn is None:
        return None
    fn = site.fn
    position = next((i for i, p in enumerate(named_parameters(fn.node.params)) if p.name.value == name), None)
    classes = set()
    for caller in ctx.facts.callers.get(id(fn.node), ()):
        argument = find_arg(caller.node, name, position)
        if not isinstance(argument, cst.Name):
            return None
        bound = lookup(caller.scope, argument.value, caller.order)
        classes.add(_built_class(bound.value, holders) if bound is not None and bound.kind == "assign" else None)
    return classes.pop() if len(classes) == 1 else None


def _built_class(value, holders: dict) -> Optional[str]:
    """``Net(...)`` or ``Net(...).to(device)`` / ``.cuda()``: the class name when it holds dropout
    (``nn.Sequential(...)`` for a container built with a dropout layer)."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in MOVES:
        value = value.func.value
    if isinstance(value, cst.Call) and id(value) in holders:
        return holders[id(value)]  # a container built with a dropout layer
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
        return holders.get(value.func.value)
    return None


def _forward_owner(site: CallSite) -> Optional[cst.ClassDef]:
    """The class whose ``forward`` method makes the call, else None."""
    fn = site.fn
    if fn is None or fn.name != "forward" or not fn.is_method:
        return None
    owner = fn.parent_scope.node
    return owner if isinstance(owner, cst.ClassDef) else None


def _calls_under_mode_tests(body) -> set:
    """Calls that run only in one mode: ``if self.training:``, ``x if training else y``,
    ``self.training and ...``."""
    calls: set = set()
    stack = [(body, False)]
    while stack:
        node, tested = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Call) and tested:
            calls.add(id(node))
        if isinstance(node, (cst.If, cst.IfExp, cst.While)):
            tested = tested or _mentions_training(node.test)
        elif isinstance(node, cst.BooleanOperation):
            tested = tested or _mentions_training(node.left)
        stack.extend((child, tested) for child in code_children(node))
    return calls


def _mentions_training(expression) -> bool:
    """``self.training``, ``training``, ``is_training``, ``train`` in a test."""
    return any(name == "training" or name.endswith("_training") or name in ("train", "is_train")
               for name in identifiers_in(expression))


def _on_purpose(site: CallSite, owner: cst.ClassDef) -> bool:
    names = [owner.name.value, *(p.name.value for p in named_parameters(site.fn.node.params))]
    return any(_ON_PURPOSE.search(name) for name in names)


def _self_name(function) -> Optional[str]:
    params = named_parameters(function.params)
    return params[0].name.value if params else None


def _message(spelling: str) -> str:
    return (
        "%s() in forward() without training=: dropout stays on after model.eval(), so evaluation and "
        "predictions differ run to run — pass training=self.training" % spelling
    )


def _fix(call, self_name: str):
    what = "pass training=%s.training" % self_name
    return edits.set_argument(call, "training", None, "%s.training" % self_name, what, safe=False)


# -- pre-check (second stage: the text and the ``ast`` tree flake8 built) --
def _functional_in_forward(tree: ast.Module, functionals: FrozenSet[str]) -> bool:
    """DET403: a dropout functional in a ``forward`` without its ``training`` argument."""
    for function, call in _calls_in_functions(tree):
        if function == "forward" and _callee(call) in functionals:
            if len(call.args) < 3 and not any(k.arg == "training" or k.arg is None for k in call.keywords):
                return True
    return False


def _calls_in_functions(tree: ast.Module) -> Iterator[Tuple[str, ast.Call]]:
    """(name of the innermost enclosing function, or "", call) for every call."""
    stack = [("", node) for node in tree.body]
    while stack:
        function, node = stack.pop()
        kind = type(node)
        if kind is ast.Call:
            yield function, node
        elif kind in (ast.FunctionDef, ast.AsyncFunctionDef):
            function = node.name
        stack.extend((function, child) for child in ast.iter_child_nodes(node))


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
