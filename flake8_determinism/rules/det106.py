from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..tables.rng_draws import TF_DRAWS
from ..tables.seeding import TF
from .common.base import last_parts
from .common.global_draws import GlobalDrawRule, drawing

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite


class UnseededTensorFlow(GlobalDrawRule):
    """DET106: a run uses TensorFlow's or Keras's global seed while it is unseeded.

    What it does: ``tf.random.uniform``/``normal``/``shuffle``/...,
    ``tf.random.get_global_generator()``, ``keras.random.*`` and the random Keras initializers
    (``GlorotUniform()``, ``RandomNormal()``, ...) without an op-level ``seed=`` are uses of TF's
    global seed; Keras layers with a random kernel initializer, dropout and random preprocessing
    layers use Keras's seed generator (seeded by ``random`` or TF). Judged per run (the entry
    module's own code, the project modules it reaches and their import-time code): when the run uses
    them and never seeds it, one report, at the first use in the entry module or at the entry's call
    that leads to it, naming up to three uses with ``file:line``; when the run seeds it only after
    some use ("seeded after use"), a report at each such use. A library module's draws are reported
    where they run at import time; in functions, they are its callers' business (strict mode reports
    them all). A training run that seeds nothing at all gets DET100 instead.

    Why it matters: with neither a global nor an op seed, TF picks a random seed
    for the op, so values differ every run.

    Fix: ``tf.random.set_seed(SEED)`` / ``keras.utils.set_random_seed(SEED)`` first, or pass ``seed=``.
    """

    code = "DET106"
    fixes = "safe"
    framework = TF
    rng_name = "TensorFlow's global seed"
    fix = "call tf.random.set_seed(SEED) or keras.utils.set_random_seed(SEED) first, or pass seed="
    triggers = last_parts(TF_DRAWS)
    invalid = (
        "import tensorflow as tf\n\nx = tf.random.uniform([2])\nprint(x)\n",
        "import tensorflow as tf\nx = tf.random.uniform([2])\n",
    )
    valid = (
        "import tensorflow as tf\ntf.random.set_seed(0)\nx = tf.random.uniform([2])\n",
        "import tensorflow as tf\nx = tf.random.uniform([2], seed=3)\n",
    )
    sources = (
        (
            "If neither the global seed nor the operation seed is set, TensorFlow uses a randomly "
            "picked seed for the op: values differ on every re-run.",
            "https://www.tensorflow.org/api_docs/python/tf/random/set_seed",
        ),
        (
            "Keras 3's ``SeedGenerator(seed=None)`` takes its seed from Python's ``random``.",
            "keras 3.15 keras/src/random/seed_generator.py (facts §4)",
        ),
        (
            "An Estimator trains in a new graph seeded with its ``RunConfig(tf_random_seed=...)``; "
            "``tf.random.set_seed`` in the script seeds the default graph, which the Estimator never uses. "
            "The fix passes ``tf_random_seed=`` to each ``RunConfig`` the entry module builds.",
            "tensorflow_estimator python/estimator/estimator.py (_train_model_default: "
            "random_seed.set_random_seed(self._config.tf_random_seed))",
        ),
    )

    def might_fire(self, text, settings) -> bool:
        return text.has_any(("tensorflow", "keras", "tf_keras")) and super().might_fire(text, settings)

    def draws(self, ctx: FileContext) -> Iterator[CallSite]:
        return drawing(ctx, TF_DRAWS, self.framework)
