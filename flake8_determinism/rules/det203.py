from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..analysis.args import MISSING, UNKNOWN, find_arg, literal
from ..tables import data_order as D
from .common.base import Report, Rule
from .common.shuffles import unseeded_shuffle

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


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
        from .common.runs import run_of

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
