from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Optional

from ..analysis.args import MISSING, UNKNOWN, constant, find_arg, literal
from .common import edits
from ..tables import data_order as D
from .common.base import Report, Rule
from .common.cudnn import parameter_default, default_of
from .common.dataloader import dataloaders, effective_call, flag, uses_workers

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite

_TF_WORDS = frozenset({"deterministic", "experimental_deterministic"})
_MINDSPORE_WORDS = frozenset({D.MINDSPORE_WORKERS, D.MINDSPORE_MULTIPROCESSING})
_OPTION_ATTRIBUTES = frozenset(name.rsplit(".", 1)[-1] for name in D.TF_OPTIONS_FLAGS)
_ORDER = "so the order of the data changes from run to run with thread and process timing, whatever the seed"


class ParallelPipelineOrder(Rule):
    """DET210: a parallel data pipeline whose order or random values depend on scheduling.

    What it does: reports the switches that let a parallel pipeline give up order —
    ``DataLoader(..., in_order=False)`` with workers; a ``tf.data`` ``map``/``interleave``/
    ``batch`` with ``num_parallel_calls`` and ``deterministic=False``;
    ``tf.data.Options().deterministic = False`` (``experimental_deterministic``) — and MindSpore
    ``.map(operations=...)`` with a random operation (``RandomCrop``, ``RandAugment``, ...)
    run by several workers (``num_parallel_workers > 1`` or ``python_multiprocessing=True``)
    in code an entry module runs (in a library function, strict mode: its callers decide
    whether the random branch runs at all).
    The value may be
    a literal, a constant above the call, a parameter or option default, a switch that is off
    exactly when the run trains (``not self._is_training``, google/automl's bug), or come from a
    ``**kwargs`` dict built beside the call.
    Strict mode: MindSpore's random maps in library functions too, and every
    ``num_parallel_workers > 1``. (Not in default mode, though
    MindSpore's reproducibility guide asks for one worker: its engine hands rows to workers in
    turn and collects them in turn, so a step with nothing random keeps its order.)

    Why it matters: the seed fixes what each step draws, not which worker finishes first.
    With these switches the batches (or elements) come out in completion order. MindSpore's
    workers share a random operation's generator, so the value a sample draws depends on
    which worker asks first; MindSpore's own seeding does not promise the same results with
    more than one worker.

    Example: ``DataLoader(data, num_workers=4, in_order=False)``.
    Fix: ``in_order=True`` / ``deterministic=True`` (safe: only speed changes); MindSpore:
    ``num_parallel_workers=1`` (unsafe: a performance trade, your call).
    """

    code = "DET210"
    fixes = "sometimes"
    triggers = frozenset({"in_order", "deterministic", "experimental_deterministic", D.MINDSPORE_WORKERS,
                          D.MINDSPORE_MULTIPROCESSING})
    invalid = (
        "from torch.utils.data import DataLoader\nloader = DataLoader(data, num_workers=4, in_order=False)\n",
        "import tensorflow as tf\nds = tf.data.Dataset.range(8).map(f, num_parallel_calls=4, deterministic=False)\n",
        "import mindspore.dataset as ds\nimport mindspore.dataset.vision as vision\n"
        "data = ds.ImageFolderDataset('images')\n"
        "data = data.map(operations=[vision.RandomCrop(32)], input_columns='image', num_parallel_workers=8)\n",
    )
    valid = (
        "from torch.utils.data import DataLoader\nloader = DataLoader(data, in_order=False)\n",
        "import tensorflow as tf\nds = tf.data.Dataset.range(8).map(f, num_parallel_calls=4)\n",
        "import mindspore.dataset as ds\nimport mindspore.dataset.vision as vision\n"
        "data = ds.ImageFolderDataset('images')\n"
        "data = data.map(operations=[vision.RandomCrop(32)], input_columns='image', num_parallel_workers=1)\n",
    )
    sources = (
        (
            "``DataLoader(in_order=False)`` (torch 2.6 and later) returns batches as the workers finish"
            " them; it applies only with ``num_workers > 0``, and the docstring warns that it can harm"
            " reproducibility.",
            "torch/utils/data/dataloader.py in torch 2.13 (DataLoader docstring); pytorch/pytorch PR #141833",
        ),
        (
            "tf.data ``map``/``interleave``/``batch``: with ``num_parallel_calls`` set, ``deterministic=False``"
            " allows elements out of order; unset, ``tf.data.Options.deterministic`` (True by default) decides.",
            "https://www.tensorflow.org/api_docs/python/tf/data/Dataset#map",
        ),
        (
            "MindSpore's dataset seed does not guarantee deterministic results with"
            " ``num_parallel_workers > 1``.",
            "mindspore/dataset/core/configuration.py, ConfigurationManager.set_seed docstring"
            " (https://mindspore.cn/api/en/0.3.0-alpha/_modules/mindspore/dataset/core/configuration.html)",
        ),
        (
            "A parallel MindSpore step hands rows to its workers in turn and its collector takes them back in"
            " turn, so the order is kept; the workers of a map share its operations (and their generators).",
            "mindspore-ai/mindspore mindspore/ccsrc/minddata/dataset/engine/datasetops/parallel_op.h"
            " (ParallelOp::NextWorkerID, Collector), datasetops/map_op/map_op.cc",
        ),
    )
    fix_description = (
        "``in_order=False`` and ``deterministic=False`` written out become ``True`` (safe: the same"
        " data, in order, maybe slower). MindSpore's ``num_parallel_workers=N`` becomes ``1`` only with"
        " ``--unsafe-fixes`` (a performance trade). A value from an option, a parameter or a dict is"
        " reported, not changed."
    )
    scope_note = ("Strict mode also reports MindSpore random maps in library functions, and every MindSpore"
                  " ``num_parallel_workers > 1`` (default mode: a random map in code an entry module runs).")

    def might_fire(self, text, settings) -> bool:
        # ``deterministic`` alone is common (cudnn.deterministic, Flax dropout): only with TensorFlow.
        return "in_order" in text or ("tensorflow" in text and text.has_any(_TF_WORDS)) or (
            "mindspore" in text and text.has_any(_MINDSPORE_WORDS))

    def check(self, ctx: FileContext) -> Iterator[Report]:
        yield from _out_of_order_loaders(ctx)
        yield from _tf_transformations(ctx)
        yield from _tf_options(ctx)
        if "mindspore" in ctx.index.imported_roots:
            yield from _mindspore_pipelines(ctx)


def _false_value(ctx: FileContext, value, scope, order: int) -> Optional[str]:
    """How ``value`` is False: "" for a literal, words for a constant above, a default, or a
    value that is False exactly when the run trains (``not self._is_training``); None when it
    is not (or cannot be told)."""
    from .._lazy import cst
    from ..analysis.nodes import identifiers_in

    if literal(value) == (True, False):
        return ""
    if constant(value, scope, order) == (True, False):  # only a name gets here
        return "%s is False" % value.value
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not) \
            and any("train" in name.lower() for name in identifiers_in(value.expression)):
        return "False whenever the run trains"
    return default_of(ctx, value, scope, order, False) or None


def _out_of_order_loaders(ctx: FileContext) -> Iterator[Report]:
    for site in dataloaders(ctx):
        call = effective_call(ctx, site)
        off = _switched_off(ctx, site, call, "in_order")
        if off is None or uses_workers(call, site) is False:
            continue  # without workers the batches come in order anyway
        value, fix = off
        yield Report(site.node, "DataLoader(in_order=%s) returns batches as its workers finish them, %s"
                     " — pass in_order=True" % (value, _ORDER), fix=fix)


def _tf_transformations(ctx: FileContext) -> Iterator[Report]:
    tensorflow = "tensorflow" in ctx.index.imported_roots
    for site in ctx.index.calls:
        if site.method_name not in D.TF_ORDER_METHODS:
            continue
        name = ctx.qualname(site)
        if not (name.startswith("tensorflow.") if name else tensorflow):
            continue
        call = effective_call(ctx, site)
        off = _switched_off(ctx, site, call, "deterministic")
        if off is None or find_arg(call, "num_parallel_calls") is MISSING:
            continue  # without parallel calls the order is kept anyway
        value, fix = off
        yield Report(site.node, "tf.data .%s(num_parallel_calls=..., deterministic=%s) may produce elements out"
                     " of order, %s — pass deterministic=True" % (site.method_name, value, _ORDER), fix=fix)


def _switched_off(ctx: FileContext, site: CallSite, call, keyword: str) -> Optional[tuple]:
    """(the value as the message shows it, the fix) when ``keyword`` is False on ``call`` (the
    call with its ``**kwargs`` dicts spread); only a literal written in the call itself is fixed."""
    value = find_arg(call, keyword)
    if value in (MISSING, UNKNOWN):
        return None
    how = _false_value(ctx, value, site.scope, site.order)
    if how is None:
        return None
    written = find_arg(site.node, keyword) is value
    fix = edits.replace(value, "True", "pass %s=True" % keyword) if written and not how else None
    return ctx.module.code_for_node(value) + (" (%s)" % how if how else ""), fix


def _tf_options(ctx: FileContext) -> Iterator[Report]:
    """``tf.data.Options().deterministic = False`` (``experimental_deterministic``)."""
    from .._lazy import cst

    for assignment in ctx.index.assignments:
        target = assignment.target
        if not (isinstance(target, cst.Attribute) and assignment.value is not None
                and target.attr.value in _OPTION_ATTRIBUTES):
            continue
        how = _false_value(ctx, assignment.value, assignment.scope, assignment.order)
        if how is None or ctx.resolver.resolve(target, assignment.scope, assignment.order) not in D.TF_OPTIONS_FLAGS:
            continue
        value = ctx.module.code_for_node(assignment.value) + (" (%s)" % how if how else "")
        message = ("tf.data.Options().%s = %s: tf.data may then produce elements out of order, %s"
                   " — set it to True" % (target.attr.value, value, _ORDER))
        fix = None if how else edits.replace(assignment.value, "True", "set it to True")
        yield Report(target, message, fix=fix)


def _mindspore_pipelines(ctx: FileContext) -> Iterator[Report]:
    for site in ctx.index.calls:
        name = ctx.qualname(site) or ""
        if not name.startswith("mindspore.dataset") and not (not name and site.method_name in ("map", "batch")):
            continue
        call = effective_call(ctx, site)
        workers_node = find_arg(call, D.MINDSPORE_WORKERS)
        workers = _int_value(ctx, workers_node, site) if workers_node not in (MISSING, UNKNOWN) else None
        processes = site.method_name == "map" and flag(call, (D.MINDSPORE_MULTIPROCESSING, None)) is True
        if not (workers is not None and workers > 1) and not processes:
            continue
        if not name and find_arg(call, "operations") is MISSING and workers_node is MISSING:
            continue  # an unresolved ``.map``/``.batch`` that says nothing MindSpore's
        written = find_arg(site.node, D.MINDSPORE_WORKERS)
        fix = None
        if written not in (MISSING, UNKNOWN) and written is workers_node:
            fix = edits.replace(written, "1", "pass num_parallel_workers=1", safe=False)
        parallel = "num_parallel_workers=%d" % workers if workers and workers > 1 else "python_multiprocessing=True"
        random_ops = _random_operations(ctx, find_arg(call, "operations", 0), site) if site.method_name == "map" else []
        # In a library function the caller decides whether the random branch runs (model zoos'
        # ``create_dataset(do_train)`` is also called by eval-only scripts): strict mode, as DET203.
        if random_ops and (ctx.settings.strict or ctx.facts.in_entry_code(site)):
            random_ops = list(dict.fromkeys(random_ops))  # each name once
            yield Report(site.node, "MindSpore .map() runs random operations (%s) with %s: which worker, and so which"
                         " random state, handles a sample depends on scheduling, so the augmentations differ run to"
                         " run even with a seed — pass num_parallel_workers=1 while you need reproducibility"
                         % (", ".join(random_ops[:3]), parallel), fix=fix)
        elif workers is not None and workers > 1 and ctx.settings.strict:
            # Strict only: MindSpore's workers take rows in turn and hand them back in turn
            # (ParallelOp::Collector), so without a random step the order is kept.
            yield Report(site.node, "MindSpore %s with num_parallel_workers=%d (strict mode): MindSpore does not"
                         " promise reproducible results with several workers, and a random step added here would"
                         " draw in scheduling order — pass num_parallel_workers=1 while debugging reproducibility"
                         % (ctx.spelling(site) + "()", workers), fix=fix)


def _int_value(ctx: FileContext, node, site: CallSite) -> Optional[int]:
    """An int ``node`` certainly has: a literal, a constant above, a parameter's default."""
    from .._lazy import cst

    known, value = constant(node, site.scope, site.order)
    if not known and isinstance(node, cst.Name):
        known, value = parameter_default(ctx, node.value, site.scope, site.order)
    return value if known and isinstance(value, int) and not isinstance(value, bool) else None


def _random_operations(ctx: FileContext, operations, site: CallSite, depth: int = 0) -> List[str]:
    """The random operations among ``operations``: a list, a call, a name bound to a list in the
    same scope (with what ``.append``/``.extend``/``+=`` add to it), a ``Compose`` of them."""
    from .._lazy import cst

    if operations in (MISSING, UNKNOWN) or operations is None or depth > 3:
        return []
    if isinstance(operations, (cst.List, cst.Tuple)):
        return [name for element in operations.elements
                for name in _random_operations(ctx, element.value, site, depth + 1)]
    if isinstance(operations, cst.Call):
        name = ctx.resolve(operations.func, site) or ""
        func = operations.func
        last = name.rsplit(".", 1)[-1] or (func.attr.value if isinstance(func, cst.Attribute)
                                           else getattr(func, "value", ""))
        if _is_random_operation(name, last):
            return [] if _certain(operations) else [last]
        return [found for arg in operations.args for found in _random_operations(ctx, arg.value, site, depth + 1)]
    if isinstance(operations, cst.Name):
        return [found for value in _values_of(ctx, operations.value, site)
                for found in _random_operations(ctx, value, site, depth + 1)]
    return []


def _certain(operation) -> bool:
    """``RandomHorizontalFlip(1)`` / ``prob=0``: a random operation that always (or never) acts."""
    name = getattr(getattr(operation.func, "attr", operation.func), "value", "")
    known, prob = literal(find_arg(operation, "prob", 0 if name in D.MINDSPORE_PROB_FIRST else None))
    return known and not isinstance(prob, bool) and prob in (0, 1)


def _is_random_operation(qualname: str, last: str) -> bool:
    """``RandomCrop``, ``RandAugment`` (any library, or the project's own ``Random*`` operation),
    ``CutMixBatch``... (MindSpore's)."""
    if last in D.MINDSPORE_RANDOM_OPERATIONS:
        return qualname.startswith("mindspore.") or not qualname
    return last.startswith("Random") or (last.startswith("Rand") and last[4:5].isupper())


def _values_of(ctx: FileContext, name: str, site: CallSite) -> List[object]:
    """What the name holds where the call sees it: every value its scope assigns to it (``+=``
    too), and what ``.append``/``.extend``/``.insert`` add."""
    from .._lazy import cst
    from ..analysis.scopes import lookup

    seen = lookup(site.scope, name, site.order)
    if seen is None or seen.scope is None:
        return []
    values: List[object] = [b.value for b in seen.scope.bindings.get(name, ()) if b.kind == "assign" and b.value]
    if any(b.kind == "assign" and b.value is None for b in seen.scope.bindings.get(name, ())):
        values += _augmented(seen.scope.node, name)  # ``name += [...]`` binds without a value
    for other in ctx.index.calls:
        func = other.node.func
        if other.method_name in ("append", "extend", "insert") and isinstance(func, cst.Attribute) \
                and isinstance(func.value, cst.Name) and func.value.value == name \
                and lookup(other.scope, name, other.order) in seen.scope.bindings.get(name, ()):
            values += [arg.value for arg in other.node.args]
    return values


def _augmented(node, name: str) -> List[object]:
    """The values ``name += value`` adds in this body (not in nested functions or classes)."""
    from .._lazy import cst

    found: List[object] = []
    stack = list(node.children)
    while stack:
        child = stack.pop()
        if isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(child, cst.AugAssign) and isinstance(child.target, cst.Name) and child.target.value == name:
            found.append(child.value)
        stack.extend(child.children)
    return found
