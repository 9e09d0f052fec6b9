"""Shuffles outside torch that draw their order from a global RNG when given no seed of their own
(tf.data, Hugging Face ``datasets``, MindSpore datasets): DET203 reports them, and the run counts
each as a use of that RNG."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..._lazy import cst
from ...analysis.args import MISSING, UNKNOWN, absent_or_none, find_arg, is_none, literal
from ...tables import data_order as D
from ...tables.seeding import MS_DATASET, NUMPY, TF

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite


def unseeded_shuffle(ctx: FileContext, site: CallSite):
    """(the global RNG it draws its order from, the report's message) for a shuffle without a
    seed of its own outside torch; None otherwise.  A use of that RNG in the run, too."""
    name = ctx.qualname(site) or _split_of_hf_dataset(ctx, site)
    if not name:
        return None
    call, method = site.node, site.method_name
    if name == D.TF_LIST_FILES:
        shuffle = find_arg(call, "shuffle", 1)
        if shuffle is not MISSING and shuffle is not UNKNOWN and literal(shuffle) == (True, False):
            return None
        if absent_or_none(call, "seed", 2):
            return TF, (
                "Dataset.list_files() returns the files in a random order by default and no TF seed is set"
                " — pass shuffle=False (and sort) or seed=SEED"
            )
    elif name.startswith("tensorflow.data.") and method in D.TF_DATASET_SHUFFLES:
        if absent_or_none(call, "seed", D.TF_DATASET_SHUFFLES[method]):
            return TF, (
                "tf.data shuffle() has no seed and no TF seed is set, so the order differs every run"
                " — pass seed=SEED or call tf.random.set_seed(SEED) first"
            )
    elif name.startswith(D.HF_DATASETS_ROOT) and method in D.HF_SEEDED_FROM_NUMPY:
        # it draws its seed from NumPy's global RNG
        seed, generator, shuffle = D.HF_SEEDED_FROM_NUMPY[method]
        if shuffle is not None:
            value = find_arg(call, *shuffle)
            if value is UNKNOWN or (value is not MISSING and literal(value) == (True, False)):
                return None  # ``shuffle=False``: the first rows are the train split, no draw
        if absent_or_none(call, *seed) and absent_or_none(call, *generator):
            what = "its order" if method == "shuffle" else "the train/test split"
            return NUMPY, (
                "datasets .%s() without seed takes its seed from NumPy's global RNG, which is not seeded"
                " before it, so %s differs every run — pass seed=SEED" % (method, what)
            )
    elif name in D.MINDSPORE_SHUFFLING_DATASETS or (name.startswith("mindspore.dataset.") and method == "shuffle"):
        if method == "shuffle" and _discarded(ctx, site):
            return None  # ``ds.shuffle(64)`` alone: shuffle returns a new dataset, this one is unchanged
        if method != "shuffle":
            shuffle = find_arg(call, "shuffle")
            if shuffle is UNKNOWN or (shuffle is not MISSING and literal(shuffle) in ((True, False),)):
                return None
            sampler = find_arg(call, "sampler")
            if sampler is UNKNOWN or (sampler is not MISSING and not _is_none(sampler)):
                return None  # the sampler decides the order (``SequentialSampler()``)
        return MS_DATASET, (
            "this MindSpore dataset shuffles with a random seed because no dataset seed is set"
            " — call mindspore.dataset.config.set_seed(SEED) (or mindspore.set_seed) first"
        )
    return None


def _discarded(ctx: FileContext, site: CallSite) -> bool:
    return isinstance(ctx.index.parents.get(id(site.node)), cst.Expr)


def _is_none(value) -> bool:
    return is_none(value)


def _split_of_hf_dataset(ctx: FileContext, site: CallSite) -> Optional[str]:
    """``ds["train"].train_test_split(...)``: a method of one split of a Hugging Face
    ``DatasetDict`` (the resolver names no subscript)."""
    func = site.node.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Subscript):
        holder = ctx.resolve(func.value.value, site) or ""
        if holder.startswith(D.HF_DATASETS_ROOT):
            return "%s[].%s" % (holder, func.attr.value)
    return None
