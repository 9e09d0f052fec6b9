"""Which CUDA ops with a nondeterministic kernel a call makes (DET304's table), answered over a
call's plain values (``calls.Call``) for the linted file and every project module alike.

The table depends on the torch version (``tables/cuda_ops.py``); the project summaries are made
once for any version, so they keep each op a call may make with whether its condition can hold
(``ops_any_version``), and the version picks among them later (``in_version``).
"""

from functools import lru_cache
from typing import Iterable, List, Optional, Tuple

from ..tables import cuda_ops as T
from ..tables.run_uses import GRADIENTS_OFF, MODEL_METHODS
from .calls import STARRED, UNKNOWN_ARG, Call, argument

YES, NO, MAYBE = "yes", "no", "maybe"
METHOD = T.TENSOR_METHOD
KERNEL_METHODS = T.TENSOR_OP_METHODS  # the front ends resolve these methods' receivers


@lru_cache(maxsize=None)
def op_table(version: Tuple[int, int]):
    """(qualified name -> ops, method name -> ops) of this torch version."""
    by_name = T.names_by_version(version)
    methods = {n[len(METHOD):]: ops for n, ops in by_name.items() if n.startswith(METHOD)}
    return by_name, methods


# Every version's ops by name (indexes into ``T.TORCH_OPS``): what a summary keeps.
_ALL_BY_NAME: dict = {}
for _index, _op in enumerate(T.TORCH_OPS):
    for _name in _op.names:
        _ALL_BY_NAME.setdefault(_name, []).append(_index)


def tensor_receiver(call: Call) -> bool:
    """The receiver is (possibly) a tensor.  Names other libraries use too need a receiver that
    resolves into torch or a torch-only keyword."""
    if call.receiver_name:
        return call.receiver_name.startswith("torch.") and call.receiver_name.endswith(")")
    keywords = T.AMBIGUOUS_METHODS.get(call.method)
    if keywords is None:
        return True
    return any(name in keywords for name, _ in call.keywords)


def ops_called(call: Call, by_name, methods, integer_receiver: bool = False) -> List[Tuple[T.Op, bool]]:
    """The ops of the table that ``call`` makes, each with whether it is called as a method.
    ``integer_receiver``: the front end saw the tensor hold integers, whose sums are the same in
    any order (these kernels' nondeterminism is the order of floating-point additions)."""
    if call.name in by_name:
        return [(op, call.name.startswith(METHOD)) for op in by_name[call.name]]
    if not call.is_method or integer_receiver:
        return []
    ops = methods.get(call.method)
    if not ops or not tensor_receiver(call):
        return []
    return [(op, True) for op in ops]


def condition(spec: Optional[T.Arg], call: Call, is_method: bool) -> str:
    """Does the op's condition on an argument (``mode="bilinear"``) hold: YES, NO or MAYBE."""
    if spec is None:
        return YES
    position = spec.position
    if position is not None and is_method:
        position -= 1
    given = argument(call, spec.keyword, position)
    if given is UNKNOWN_ARG or given is STARRED:
        return MAYBE
    if given is None:
        return YES if spec.default in spec.values else NO
    for wanted in spec.values:
        if wanted == T.GIVEN:
            return YES
        if wanted == T.NOT_NONE:
            return NO if given.known and given.value is None else YES
        if wanted == T.TENSOR:
            return NO if given.known else YES
    if not given.known:
        return MAYBE
    return YES if given.value in spec.values else NO


def counts_for_mode(op: T.Op, holds: str, call: Call, in_model_method: bool) -> bool:
    """An op DET303's default case names: listed, outside cuDNN's convolutions (DET301/302's),
    its condition holding or unknown.  An op whose kernel differs only in the backward pass needs
    a gradient through it: a layer built (``nn.AdaptiveAvgPool2d(...)``) or a call in a model's
    ``forward``, not a resize in post-processing or while loading a checkpoint."""
    if not (op.visible and not op.cudnn and holds != NO):
        return False
    if not op.when.startswith("backward") or in_model_method:
        return True
    return (call.name or call.method).rsplit(".", 1)[-1][:1].isupper()  # a layer, applied in forward


def in_model_forward(function: str, is_method: bool, decorators: Iterable[Optional[str]]) -> bool:
    """A call in this function runs with gradients through a model: a method named like a forward
    pass (``MODEL_METHODS``) not decorated with ``@torch.no_grad()``/``@torch.inference_mode()``
    (``decorators``: their qualified names, the call's name for ``@torch.no_grad()``)."""
    return is_method and function in MODEL_METHODS and not any(d in GRADIENTS_OFF for d in decorators)


def ops_any_version(call: Call, integer_receiver: bool = False, in_model_method: bool = True) -> Tuple[int, ...]:
    """The indexes in ``T.TORCH_OPS`` of the ops DET303 would name for ``call`` under some torch
    version (what a project summary keeps); ``in_model_method``: the call is in a model's
    ``forward`` (``counts_for_mode``)."""
    name = call.name if call.name in _ALL_BY_NAME else ""
    if not name:
        if not call.is_method or integer_receiver or call.method not in KERNEL_METHODS or not tensor_receiver(call):
            return ()
        name = METHOD + call.method
    is_method = name.startswith(METHOD)
    return tuple(i for i in _ALL_BY_NAME[name] if counts_for_mode(
        T.TORCH_OPS[i], condition(T.TORCH_OPS[i].arg, call, is_method), call, in_model_method))


def in_version(indexes: Tuple[int, ...], version: Tuple[int, int]) -> Optional[T.Op]:
    """The first of the ops kept by ``ops_any_version`` that this torch version lists."""
    by_name = op_table(version)[0]
    for index in indexes:
        op = T.TORCH_OPS[index]
        if any(op in by_name.get(name, ()) for name in op.names):
            return op
    return None


# Builders whose tensor holds integers, and the dtypes that say so (``integer_tensor``).
INTEGER_BUILDERS = frozenset({"torch.LongTensor", "torch.IntTensor"})
VALUE_BUILDERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.arange"})
INTEGER_DTYPES = frozenset({"torch.long", "torch.int64", "torch.int32", "torch.int", "torch.int16",
                            "torch.int8", "torch.uint8"})
INTEGER_CASTS = frozenset({"long", "int"})


def integer_tensor(builder: str, dtype: Optional[str], integer_data: bool) -> bool:
    """A tensor built by ``builder`` (its qualified name) with ``dtype=`` (qualified, None when not
    given) from data that is a list of int literals (``integer_data``) holds integers."""
    if builder in INTEGER_BUILDERS:
        return True
    if builder not in VALUE_BUILDERS:
        return False
    if dtype is not None:
        return dtype in INTEGER_DTYPES
    return integer_data
