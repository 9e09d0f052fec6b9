from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional

from ..analysis.args import MISSING, UNKNOWN, absent_or_none, find_arg, literal
from ..tables import data_order as D
from ..tables.seeding import MS_DATASET, NUMPY, TF
from .base import Report, Rule

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite


_FRAMEWORKS = frozenset({"tensorflow", "datasets", "mindspore"})


class UnseededShuffle(Rule):
    """DET203: a shuffle without a seed outside torch.

    What it does: reports ``tf.data`` ``Dataset.shuffle``/``list_files`` without
    ``seed`` while TensorFlow is unseeded, MindSpore datasets that shuffle
    (``shuffle=True``, or the default of mappable datasets such as
    ``ImageFolderDataset``) or ``.shuffle()`` while no dataset seed is set, and
    Hugging Face ``datasets`` ``.shuffle()`` and ``.train_test_split()`` (unless
    ``shuffle=False``) without ``seed``/``generator`` while NumPy's global RNG (their seed
    source) is unseeded.  Under the scope
    policy, like the draws: in a library module's function the caller seeds.
    Strict mode: all of these wherever they are, and every ``shuffle=True``.

    Why it matters: the order is drawn from a random seed each run (or, for HF
    datasets, from NumPy's global state, advancing it).

    Fix: pass ``seed=SEED``, or seed the framework (``tf.random.set_seed``,
    ``mindspore.dataset.config.set_seed``) first.
    """

    code = "DET203"
    precheck_scope = "draw"
    triggers = frozenset({"shuffle", "list_files", "train_test_split"}) | frozenset(n.rsplit(".", 1)[-1] for n in D.MINDSPORE_SHUFFLING_DATASETS)
    invalid = (
        "import tensorflow as tf\nds = tf.data.Dataset.range(10).shuffle(10)\n",
        "from datasets import load_dataset\nds = load_dataset('imdb')['train'].shuffle()\n",
        "import mindspore.dataset as ds\ndata = ds.ImageFolderDataset('images')\n",
    )
    valid = (
        "import tensorflow as tf\nds = tf.data.Dataset.range(10).shuffle(10, seed=1)\n",
        "from datasets import load_dataset\nds = load_dataset('imdb')['train'].shuffle(seed=42)\n",
        "import mindspore.dataset as ds\ndata = ds.ImageFolderDataset('images', shuffle=False)\n",
        "deck = object()\ndeck.shuffle()\n",
    )
    sources = (
        (
            "With neither a global nor an op seed, a TensorFlow op uses a randomly picked seed.",
            "https://www.tensorflow.org/api_docs/python/tf/random/set_seed",
        ),
        (
            "``Dataset.list_files`` returns file names in a non-deterministic shuffled order unless "
            "given a seed or ``shuffle=False``.",
            "https://www.tensorflow.org/api_docs/python/tf/data/Dataset#list_files",
        ),
        (
            "MindSpore mappable datasets (``ImageFolderDataset``, ``Cifar10Dataset``, ...) shuffle by "
            "default; ``mindspore.dataset.config.set_seed`` seeds the pipeline.",
            "mindspore 2.10 mindspore/dataset/engine/datasets.py, dataset/core/config.py (facts §6)",
        ),
        (
            "Hugging Face ``Dataset.shuffle()`` and ``Dataset.train_test_split()`` (with its default "
            "``shuffle=True``) without ``seed``/``generator`` take their seed from NumPy's global RNG "
            "(``np.random.get_state()``) and advance it.",
            "huggingface/datasets src/datasets/arrow_dataset.py (5.0.2.dev0), Dataset.shuffle and "
            "Dataset.train_test_split (facts §8)",
        ),
    )
    fix_description = "Pass ``seed=`` yourself, or seed the framework at start-up."
    fixed = "import tensorflow as tf\nds = tf.data.Dataset.range(10).shuffle(10, seed=0)\n"
    scope_note = "Strict mode also reports every ``shuffle=True``, seeded or not."

    def might_fire(self, text, settings) -> bool:
        framework_shuffle = text.has_any(_FRAMEWORKS) and super().might_fire(text, settings)
        return framework_shuffle or (settings.strict and "shuffle" in text)

    def check(self, ctx: FileContext) -> Iterator[Report]:
        from .runs import run_of

        reported = set()
        strict = ctx.settings.strict
        run = run_of(ctx)
        for site in ctx.index.calls:
            found = unseeded_shuffle(ctx, site)
            if found is None:
                continue
            framework, message = found
            if ctx.facts.seeded_at(framework, site) or not (strict or ctx.facts.in_entry_code(site)):
                continue
            if run is not None and not run.seeded_in_run(framework) and not strict:
                continue  # the run never seeds it: its seeding report names this shuffle
            reported.add(id(site.node))
            yield Report(site.node, message)
        if strict:
            for site in ctx.index.calls:
                if id(site.node) in reported:
                    continue
                value = find_arg(site.node, "shuffle")
                if value not in (MISSING, UNKNOWN) and literal(value) == (True, True):
                    yield Report(
                        site.node,
                        "shuffle=True draws a fresh order (strict mode) — make sure its RNG is seeded,"
                        " or pass shuffle=False while debugging reproducibility",
                    )


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
    from .._lazy import cst

    return isinstance(ctx.index.parents.get(id(site.node)), cst.Expr)


def _is_none(value) -> bool:
    from ..analysis.args import is_none

    return is_none(value)


def _split_of_hf_dataset(ctx: FileContext, site: CallSite) -> Optional[str]:
    """``ds["train"].train_test_split(...)``: a method of one split of a Hugging Face
    ``DatasetDict`` (the resolver names no subscript)."""
    from .._lazy import cst

    func = site.node.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Subscript):
        holder = ctx.resolve(func.value.value, site) or ""
        if holder.startswith(D.HF_DATASETS_ROOT):
            return "%s[].%s" % (holder, func.attr.value)
    return None
