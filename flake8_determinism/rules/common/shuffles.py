"""Shuffles outside torch that draw their order from a global RNG when given no seed of their own
(tf.data, Hugging Face ``datasets``, MindSpore datasets): DET203 reports them, and the run counts
each as a use of that RNG."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..._lazy import cst
from ...analysis import calls
from ...tables import data_order as D

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite


_MESSAGES = {
    calls.LIST_FILES: (
        "Dataset.list_files() returns the files in a random order by default and no TF seed is set"
        " — pass shuffle=False (and sort) or seed=SEED"
    ),
    calls.TF_SHUFFLE: (
        "tf.data shuffle() has no seed and no TF seed is set, so the order differs every run"
        " — pass seed=SEED or call tf.random.set_seed(SEED) first"
    ),
    calls.MINDSPORE: (
        "this MindSpore dataset shuffles with a random seed because no dataset seed is set"
        " — call mindspore.dataset.config.set_seed(SEED) (or mindspore.set_seed) first"
    ),
}


def unseeded_shuffle(ctx: FileContext, site: CallSite):
    """(the global RNG it draws its order from, the report's message) for a shuffle without a
    seed of its own outside torch (``calls.unseeded_shuffle``); None otherwise.  A use of that
    RNG in the run, too."""
    call = ctx.facts.call(site)
    if not call.name:
        split = _split_of_hf_dataset(ctx, site)
        if split is None:
            return None
        call = call._replace(name=split)
    found = calls.unseeded_shuffle(call, _discarded(ctx, site))
    if found is None:
        return None
    framework, kind = found
    if kind == calls.HF_DATASETS:
        what = "its order" if call.method == "shuffle" else "the train/test split"
        return framework, (
            "datasets .%s() without seed takes its seed from NumPy's global RNG, which is not seeded"
            " before it, so %s differs every run — pass seed=SEED" % (call.method, what)
        )
    return framework, _MESSAGES[kind]


def _discarded(ctx: FileContext, site: CallSite) -> bool:
    return isinstance(ctx.index.parents.get(id(site.node)), cst.Expr)


def _split_of_hf_dataset(ctx: FileContext, site: CallSite) -> Optional[str]:
    """``ds["train"].train_test_split(...)``: a method of one split of a Hugging Face
    ``DatasetDict`` (the resolver names no subscript)."""
    func = site.node.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Subscript):
        holder = ctx.resolve(func.value.value, site) or ""
        if holder.startswith(D.HF_DATASETS_ROOT):
            return "%s[].%s" % (holder, func.attr.value)
    return None
