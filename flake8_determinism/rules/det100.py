from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from .base import Report, Rule, module_report

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


class UnseededTrainingScript(Rule):
    """DET100: a training script that seeds no RNG at all.

    What it does: reports a training entry module (it runs as a script and calls
    ``.backward()``, ``.fit(``, an optimizer ``.step()``, or builds a Lightning /
    transformers ``Trainer`` or mmengine ``Runner``) in which nothing is seeded:
    no seeding call, no seeding helper, no ``random_state=``/``seed=``.
    Reported once, at the ``__main__`` guard, else at line 1.

    Why it matters: weight init, dropout, shuffling and augmentation then start
    from a different random state every run, so no two runs match.

    Fix: seed every framework once at start-up (``determinism-fix`` inserts the block).
    """

    code = "DET100"
    precheck_scope = "entry"
    triggers = frozenset({"backward", "fit", "step", "Trainer", "Runner", "from_cfg"}) | frozenset(
        {"SFTTrainer", "Seq2SeqTrainer"}
    )
    invalid = (
        "import torch\nmodel = torch.nn.Linear(2, 1)\nopt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "loss = model(torch.ones(2)).sum()\nloss.backward()\nopt.step()\n",
    )
    valid = (
        "import torch\ntorch.manual_seed(0)\nmodel = torch.nn.Linear(2, 1)\nloss = model(torch.ones(2)).sum()\n"
        "loss.backward()\n",
    )

    def check(self, ctx: FileContext) -> Iterator[Report]:
        facts = ctx.facts
        if not facts.is_training_entry or facts.seeds_anything():
            return
        message = (
            "training script seeds no RNG: weight init, dropout and data order differ every run"
            " — seed random, NumPy and your framework at start-up (e.g. seed_everything(SEED))"
        )
        yield module_report(ctx, message)
