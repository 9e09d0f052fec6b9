from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..analysis import calls
from ..tables.determinism import TF_GRADIENT_TAPE, TF_OP_DETERMINISM, TF_TRAINING_METHODS, TF_TRAINING_ROOTS
from .common.runs import run_of
from .common import edits
from .common.base import Report, Rule, module_report

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


class TensorFlowOpDeterminismOff(Rule):
    """DET306: a TensorFlow training script that does not turn on op determinism.

    What it does: reports an entry module that imports TensorFlow (``tensorflow``
    or ``tf_keras``) and trains (``.fit(``, ``.train_on_batch(``,
    ``.apply_gradients(``, ``tf.GradientTape``) but never calls
    ``tf.config.experimental.enable_op_determinism()`` nor sets
    ``TF_DETERMINISTIC_OPS`` (``os.environ[...]``, ``setdefault``, ``update``,
    ``putenv``); ``transformers.enable_full_determinism`` counts (4.x turns it
    on).  Reported once, at the ``__main__`` guard, else at line 1.  A script
    importing only ``keras`` is left alone: its backend may not be TensorFlow.

    Why it matters: TF's GPU kernels (reductions, ``tf.gather``/segment-sum
    gradients, cuDNN convolutions) and parallel ``tf.data`` may vary run to
    run even with every seed set.

    Fix: ``tf.config.experimental.enable_op_determinism()`` (TF >= 2.8) after
    the seeding, or the ``TF_DETERMINISTIC_OPS=1`` environment variable it
    replaced (TF >= 2.1), which the codemod sets.
    """

    code = "DET306"
    cross_module = True  # the run may take its TensorFlow training steps in project modules
    fixes = "safe"
    precheck_scope = "entry"
    triggers = frozenset(TF_TRAINING_METHODS | {TF_GRADIENT_TAPE.rsplit(".", 1)[-1]})
    invalid = ("import tensorflow as tf\nmodel = tf.keras.Sequential()\nmodel.fit([1], [1])\n",)
    valid = (
        "import tensorflow as tf\ntf.config.experimental.enable_op_determinism()\n"
        "model = tf.keras.Sequential()\nmodel.fit([1], [1])\n",
        "import os\nos.environ['TF_DETERMINISTIC_OPS'] = '1'\nimport tensorflow as tf\n"
        "model = tf.keras.Sequential()\nmodel.fit([1], [1])\n",
        "import keras\nmodel = keras.Sequential()\nmodel.fit([1], [1])\n",
    )
    sources = (
        (
            "By default TensorFlow ops may return different results for the same inputs (threads "
            "change the order in which floats are added, mostly on GPUs); ``enable_op_determinism()`` "
            "makes them deterministic.",
            "https://www.tensorflow.org/api_docs/python/tf/config/experimental/enable_op_determinism",
        ),
        (
            "Ops known to be nondeterministic on GPU: softmax cross-entropy, ``tf.gather`` and "
            "segment-sum gradients, ``tf.image.resize`` gradient, ...",
            "https://github.com/tensorflow/community/blob/master/rfcs/20210119-determinism.md (facts §4)",
        ),
    )
    fix_description = (
        "With the run's seeding, sets ``os.environ.setdefault(\"TF_DETERMINISTIC_OPS\", \"1\")``, which TF 2.1 "
        "and later read (``enable_op_determinism()`` needs TF 2.8); not in TensorFlow 1 code."
    )
    scope_note = "The report is on the ``if __name__ == \"__main__\":`` line, else on line 1: put the ``# noqa`` there."

    def might_fire(self, text, settings) -> bool:
        return text.has_any(TF_TRAINING_ROOTS) and super().might_fire(text, settings)

    def check(self, ctx: FileContext) -> Iterator[Report]:
        facts = ctx.facts
        if not facts.is_entry or facts.is_self_test or facts.turns_on(TF_OP_DETERMINISM):
            return
        # The run, not the file: the training step may sit in a project module it calls.
        run = run_of(ctx)
        if not (ctx.index.imported_roots & TF_TRAINING_ROOTS and _trains(ctx)) and not (
                run is not None and run.tensorflow_trains):
            return
        yield module_report(
            ctx,
            "TensorFlow training script without op determinism: GPU kernels and parallel tf.data may vary run to"
            " run even with every seed set — call tf.config.experimental.enable_op_determinism()"
            " (or set TF_DETERMINISTIC_OPS=1)",
            edits.module_fix("turn op determinism on at start-up", edits.TF_DETERMINISM),
        )


def _trains(ctx: FileContext) -> bool:
    """Entry code takes a TensorFlow training step (``calls.trains_tensorflow``)."""
    roots = ctx.index.imported_roots
    return any(ctx.facts.reaches(site.fn) and calls.trains_tensorflow(ctx.facts.call(site), roots)
               for site in ctx.index.calls)
