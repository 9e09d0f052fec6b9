"""Ops that are nondeterministic on CUDA (DET304): ``torch.use_deterministic_algorithms``'s
two lists, by torch version, and MindSpore's Ascend list.  Catalog §1.1(c), §6.

``THROWS``: raise ``RuntimeError`` once deterministic algorithms are on (a
warning with ``warn_only=True``).  ``MADE_DETERMINISTIC``: switch to a
deterministic kernel once they are on.  Each op carries the docstring's
condition as text and, where the call shows it, as an argument test (``Arg``).
Names ``torch.Tensor.x`` stand for the method ``x``; an ``Arg`` position counts
for the ``torch.x(input, ...)`` form and one less for the method.
"""

from typing import NamedTuple, Optional, Tuple

THROWS = "throws"
MADE_DETERMINISTIC = "deterministic"

NOT_NONE = "<not None>"  # Arg value: given and not None
GIVEN = "<given>"  # Arg value: given at all
TENSOR = "<tensor>"  # Arg value: given and not a literal (a number selects ``scatter``'s value overload)

OLDEST, NEWEST = (0, 0), (99, 0)


class Arg(NamedTuple):
    """The op is nondeterministic only when argument ``keyword``/``position`` is
    one of ``values`` (``default`` when absent).  Not a literal: maybe."""

    keyword: str
    position: Optional[int]
    values: Tuple[object, ...]
    default: object = None


class Op(NamedTuple):
    doc: str  # the docstring's entry
    when: str  # the docstring's condition
    group: str
    names: Tuple[str, ...]
    arg: Optional[Arg] = None
    # False: the condition can never be seen in the code and rarely holds (NLLLoss's
    # spatial targets, quantized resize_): reported only in strict mode.
    visible: bool = True
    # True: a cuDNN kernel, made deterministic by ``cudnn.deterministic = True`` too.
    cudnn: bool = False
    versions: Tuple[Tuple[int, int], Tuple[int, int]] = (OLDEST, NEWEST)  # inclusive range


_LINEAR_MODES = ("linear", "bilinear", "bicubic", "trilinear")
_UPTO_2_9 = (OLDEST, (2, 9))
_UPTO_2_12 = (OLDEST, (2, 12))
_FROM_2_13 = ((2, 13), NEWEST)
_UPTO_2_13 = (OLDEST, (2, 13))
_FROM_2_14 = ((2, 14), NEWEST)


def _nn(*names):
    return tuple("torch.nn." + n for n in names)


def _f(*names):
    return tuple("torch.nn.functional." + n for n in names)


def _t(*names):
    """``torch.x`` and the methods ``Tensor.x``."""
    return tuple("torch." + n for n in names) + tuple("torch.Tensor." + n for n in names)


# torch 2.14's lists (facts §1.1(c), docstring of torch.use_deterministic_algorithms in
# torch/__init__.py of the torch-2.14.0 wheel, compared with 2.13.0's).  2.13 -> 2.14: cumsum
# moved from the throwing list to the made-deterministic one, and nn.Embedding was added to
# the made-deterministic one; nothing else changed.  The alertNotDeterministic call sites of
# the two wheels' libtorch_cuda.so / libtorch_cpu.so (disassembled) are the same: the docstring
# caught up with kernels that already branch on deterministicAlgorithms() in 2.13
# (launch_cumsum_cuda_kernel since 2.8 at least, embedding_backward_cuda_kernel since 2.11)
# [U: the table keeps following the docstring].  2.15 is not verified.
# Older lists, from the docstrings of the 2.8-2.12 wheels: kthvalue throws up to 2.9 (gone in
# 2.10, as its alertNotDeterministic call site); MaxPool3d throws up to 2.12 and is made
# deterministic from 2.13 (its backward kernels still call alertNotDeterministic in 2.13 and
# 2.14: the docstring and the binary disagree [U]; the table follows the docstring).
TORCH_OPS = (
    # -- made deterministic ---------------------------------------------------------
    Op("torch.nn.Conv1d/2d/3d", "on CUDA", MADE_DETERMINISTIC,
       _nn("Conv1d", "Conv2d", "Conv3d") + _f("conv1d", "conv2d", "conv3d"), cudnn=True),
    Op("torch.nn.ConvTranspose1d/2d/3d", "on CUDA", MADE_DETERMINISTIC,
       _nn("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
       + _f("conv_transpose1d", "conv_transpose2d", "conv_transpose3d"), cudnn=True),
    Op("torch.nn.ReplicationPad1d/2d/3d", "backward on CUDA", MADE_DETERMINISTIC,
       _nn("ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d")),
    Op("torch.nn.functional.pad(mode='replicate')", "backward on CUDA", MADE_DETERMINISTIC,
       _f("pad"), Arg("mode", 2, ("replicate",), "constant")),
    # visible=False: whether an input is sparse is not seen at the call (dense bmm is deterministic).
    Op("torch.bmm", "sparse-dense on CUDA", MADE_DETERMINISTIC, _t("bmm"), visible=False),
    Op("torch.Tensor.index_put", "accumulate=False", MADE_DETERMINISTIC,
       _t("index_put", "index_put_"), Arg("accumulate", 3, (False,), False)),
    Op("torch.Tensor.scatter_add_", "on CUDA", MADE_DETERMINISTIC, _t("scatter_add", "scatter_add_")),
    Op("torch.gather", "on a CUDA tensor that requires grad", MADE_DETERMINISTIC, _t("gather")),
    Op("torch.index_add", "on CUDA", MADE_DETERMINISTIC, _t("index_add", "index_add_")),
    Op("torch.index_select", "backward on CUDA", MADE_DETERMINISTIC, _t("index_select")),
    Op("torch.repeat_interleave", "backward on CUDA", MADE_DETERMINISTIC, _t("repeat_interleave")),
    Op("torch.Tensor.index_copy", "on CPU or CUDA", MADE_DETERMINISTIC, _t("index_copy", "index_copy_")),
    Op("torch.Tensor.scatter", "src is a tensor, on CUDA", MADE_DETERMINISTIC,
       _t("scatter", "scatter_"), Arg("src", 3, (TENSOR,), None)),
    Op("torch.Tensor.scatter_reduce", "reduce='sum' or 'mean', on CUDA", MADE_DETERMINISTIC,
       _t("scatter_reduce", "scatter_reduce_"), Arg("reduce", 4, ("sum", "mean"))),
    Op("torch.nn.MaxPool3d", "backward on CUDA", MADE_DETERMINISTIC,
       _nn("MaxPool3d") + _f("max_pool3d", "max_pool3d_with_indices"), versions=_FROM_2_13),
    Op("torch.cumsum", "on CUDA, floating-point or complex", MADE_DETERMINISTIC, _t("cumsum", "cumsum_"),
       versions=_FROM_2_14),
    Op("torch.nn.Embedding", "backward on CUDA", MADE_DETERMINISTIC, _nn("Embedding") + _f("embedding"),
       versions=_FROM_2_14),
    # -- throw RuntimeError -------------------------------------------------------------
    Op("torch.nn.AvgPool3d", "backward on CUDA", THROWS, _nn("AvgPool3d") + _f("avg_pool3d")),
    Op("torch.nn.AdaptiveAvgPool2d", "backward on CUDA", THROWS,
       _nn("AdaptiveAvgPool2d") + _f("adaptive_avg_pool2d")),
    Op("torch.nn.AdaptiveAvgPool3d", "backward on CUDA", THROWS,
       _nn("AdaptiveAvgPool3d") + _f("adaptive_avg_pool3d")),
    Op("torch.nn.AdaptiveMaxPool2d", "backward on CUDA", THROWS,
       _nn("AdaptiveMaxPool2d") + _f("adaptive_max_pool2d", "adaptive_max_pool2d_with_indices")),
    Op("torch.nn.FractionalMaxPool2d", "backward on CUDA", THROWS,
       _nn("FractionalMaxPool2d") + _f("fractional_max_pool2d", "fractional_max_pool2d_with_indices")),
    Op("torch.nn.FractionalMaxPool3d", "backward on CUDA", THROWS,
       _nn("FractionalMaxPool3d") + _f("fractional_max_pool3d", "fractional_max_pool3d_with_indices")),
    Op("torch.nn.MaxUnpool1d/2d/3d", "always", THROWS,
       _nn("MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d") + _f("max_unpool1d", "max_unpool2d", "max_unpool3d")),
    Op("torch.nn.functional.interpolate", "backward on CUDA, linear/bilinear/bicubic/trilinear mode", THROWS,
       _f("interpolate", "upsample"), Arg("mode", 3, _LINEAR_MODES, "nearest")),
    Op("torch.nn.Upsample", "backward on CUDA, linear/bilinear/bicubic/trilinear mode", THROWS,
       _nn("Upsample"), Arg("mode", 2, _LINEAR_MODES, "nearest")),
    Op("torch.nn.functional.interpolate", "backward on CUDA (bilinear)", THROWS,
       _nn("UpsamplingBilinear2d") + _f("upsample_bilinear")),
    Op("torch.nn.ReflectionPad1d/2d/3d", "backward on CUDA", THROWS,
       _nn("ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d")),
    Op("torch.nn.functional.pad(mode='reflect')", "backward on CUDA", THROWS,
       _f("pad"), Arg("mode", 2, ("reflect",), "constant")),
    Op("torch.nn.NLLLoss", "on CUDA with spatial (N, C, d1, ...) inputs", THROWS,
       _nn("NLLLoss") + _f("nll_loss"), visible=False),
    Op("torch.nn.CTCLoss", "backward on CUDA", THROWS, _nn("CTCLoss") + _f("ctc_loss")),
    Op("torch.nn.EmbeddingBag", "backward on CUDA, mode='max'", THROWS,
       _nn("EmbeddingBag"), Arg("mode", 5, ("max",), "mean")),
    Op("torch.nn.EmbeddingBag", "backward on CUDA, mode='max'", THROWS,
       _f("embedding_bag"), Arg("mode", 6, ("max",), "mean")),
    # accumulate=False throws on any device, accumulate=True on CUDA: always on CUDA.
    Op("torch.Tensor.put_", "accumulate=False on any device, accumulate=True on CUDA", THROWS,
       _t("put", "put_")),
    Op("torch.histc", "on CUDA", THROWS, _t("histc")),
    Op("torch.bincount", "on CUDA with weights", THROWS, _t("bincount"), Arg("weights", 1, (NOT_NONE,), None)),
    Op("torch.median", "with indices output (dim given), on CUDA", THROWS, _t("median"), Arg("dim", 1, (GIVEN,))),
    Op("torch.nn.functional.grid_sample", "backward on CUDA", THROWS, _f("grid_sample")),
    Op("torch.cumsum", "on CUDA, floating-point or complex", THROWS, _t("cumsum", "cumsum_"),
       versions=_UPTO_2_13),
    Op("torch.Tensor.scatter_reduce", "reduce='prod', on CUDA", THROWS,
       _t("scatter_reduce", "scatter_reduce_"), Arg("reduce", 4, ("prod",))),
    Op("torch.Tensor.resize_", "on a quantized tensor", THROWS, ("torch.Tensor.resize_",), visible=False),
    # -- only in the older lists -----------------------------------------------------------
    Op("torch.nn.MaxPool3d", "backward on CUDA", THROWS,
       _nn("MaxPool3d") + _f("max_pool3d", "max_pool3d_with_indices"), versions=_UPTO_2_12),
    Op("torch.kthvalue", "on CUDA", THROWS, _t("kthvalue"), versions=_UPTO_2_9),
)

# The tensor methods among the ops of any version (``torch.Tensor.index_add_``): the front ends
# resolve these methods' receivers (``analysis/calls.py``), and match them (``analysis/kernels.py``).
TENSOR_METHOD = "torch.Tensor."
TENSOR_OP_METHODS = frozenset(
    name[len(TENSOR_METHOD):] for op in TORCH_OPS for name in op.names if name.startswith(TENSOR_METHOD))

# Tensor methods whose names other libraries use too (NumPy/pandas ``cumsum``,
# ``median``, ``put``; Matplotlib ``scatter``; asyncio/MPI ``gather``): matched
# as methods only when the receiver resolves into torch or the call passes one
# of these torch-only keywords.
AMBIGUOUS_METHODS = {
    "cumsum": ("dim",),
    "median": ("dim",),
    "put": ("accumulate",),
    "scatter": ("dim", "index", "src"),
    "gather": ("dim", "index", "sparse_grad"),
}

# MindSpore operators with run-to-run variation on Ascend (MindSpore "fixing
# randomness" guide): reported in strict mode unless deterministic computation is on.
MINDSPORE_ASCEND_OPS = {
    **{"mindspore.nn." + n: "BatchNorm (forward reduce and gradient)"
       for n in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm")},
    "mindspore.ops.BatchNorm": "BatchNorm (forward reduce and gradient)",
    "mindspore.ops.batch_norm": "BatchNorm (forward reduce and gradient)",
    **{n: "Conv2d/Conv3d backward (filter gradient)" for n in (
        "mindspore.nn.Conv2d", "mindspore.nn.Conv3d", "mindspore.ops.Conv2D", "mindspore.ops.Conv3D",
        "mindspore.ops.conv2d", "mindspore.ops.conv3d")},
    "mindspore.ops.AllReduce": "AllReduce",
    "mindspore.communication.comm_func.all_reduce": "AllReduce",
    **{n: "MaxPool3D backward"
       for n in ("mindspore.nn.MaxPool3d", "mindspore.ops.MaxPool3D", "mindspore.ops.max_pool3d")},
    **{"mindspore.ops." + n: n for n in (
        "ReduceAll", "ReduceAny", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum")},
    "mindspore.ops.ROIAlign": "ROIAlign backward",
    "mindspore.ops.roi_align": "ROIAlign backward",
    "mindspore.ops.SquareSumAll": "SquareSumAll",
    "mindspore.ops.StridedSlice": "StridedSlice backward",
    "mindspore.ops.strided_slice": "StridedSlice backward",
}


def ops_for(version) -> Tuple[Op, ...]:
    return tuple(op for op in TORCH_OPS if op.versions[0] <= tuple(version) <= op.versions[1])


def names_by_version(version):
    """qualified name -> the ops that name stands for at ``version``."""
    table = {}
    for op in ops_for(version):
        for name in op.names:
            table.setdefault(name, []).append(op)
    return table
