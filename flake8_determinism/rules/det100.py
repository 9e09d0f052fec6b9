from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ..analysis.args import MISSING, absent_or_none, find_arg, is_none
from ..tables.seeding import (
    MODEL_INIT_KEYWORD, NEW_HEAD_KEYWORDS, NEW_HEAD_SUFFIXES, NEW_WEIGHTS_CALLS, NEW_WEIGHTS_METHODS,
    PEFT_CONFIG_KEYWORD, TORCH,
)
from .common.base import Report, Rule, module_report
from .common.run_reports import seeds_nothing, unseeded_summary
from .common.runs import DRAW_RULES, TRAINING_WORDS, run_of, trains_maybe
from .common.cause_fix import cause_hint, run_cause_fix

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext


# Frameworks whose training starts from randomly initialized weights: a run training with one of
# them draws, even where the model's layers are not seen.
MODEL_ROOTS = frozenset({"torch", "lightning", "pytorch_lightning", "tensorflow", "keras", "jax", "flax",
                         "mindspore", "paddle", "transformers", "trl", "accelerate"})


class UnseededTrainingScript(Rule):
    """DET100: a training run that seeds no RNG at all.

    What it does: reports a training run -- an entry module that trains (``.backward()``,
    ``.fit(``, an optimizer ``.step()``, a Lightning / transformers ``Trainer`` or mmengine
    ``Runner``), itself or through the project modules it calls -- in which nothing seeds any
    RNG: no seeding call, no seeding helper (a project helper counts with what its body
    seeds), no ``random_state=``/``seed=``.  One report for the run, at the ``__main__``
    guard, else at line 1, naming the RNGs the run uses with up to three uses each
    (``file:line``); it replaces DET101-DET107 for that run.  Also a script whose only seeding
    is the one a Hugging Face/trl ``Trainer`` does when it is built, when new weights were
    drawn before it (a PEFT adapter, a new head, a model from a config).

    Why it matters: weight init, dropout, shuffling and augmentation then start
    from a different random state every run, so no two runs match.

    Fix: seed every framework once at start-up (``determinism-fix`` inserts the block).
    """

    code = "DET100"
    fixes = "safe"
    cross_module = True
    precheck_scope = "entry"
    triggers = TRAINING_WORDS
    invalid = (
        "import torch\nmodel = torch.nn.Linear(2, 1)\nopt = torch.optim.SGD(model.parameters(), 0.1)\n"
        "loss = model(torch.ones(2)).sum()\nloss.backward()\nopt.step()\n",
    )
    valid = (
        "import torch\ntorch.manual_seed(0)\nmodel = torch.nn.Linear(2, 1)\nloss = model(torch.ones(2)).sum()\n"
        "loss.backward()\n",
    )
    sources = (
        (
            "A fresh process seeds torch's default CPU generator with a new value: two unseeded runs "
            "print different ``torch.initial_seed()`` and ``torch.rand(2)``.",
            "observed on torch 2.13 (facts §1.0)",
        ),
        (
            "``torch.manual_seed()`` seeds the RNG of every device; set once at start-up (with the "
            "other sources of nondeterminism removed), it gives the same random numbers on every run.",
            "https://docs.pytorch.org/docs/stable/notes/randomness.html#pytorch-random-number-generator",
        ),
        (
            "Building ``nn.Linear``, ``nn.Conv*``, ``nn.Embedding``, ``nn.LSTM`` ... draws the initial "
            "weights from torch's global RNG.",
            "measured with torch.get_rng_state() on torch 2.13 (facts §1.1(a))",
        ),
        (
            "Python's ``random`` seeds itself from the clock or the OS when not seeded.",
            "https://docs.python.org/3/library/random.html#random.seed",
        ),
        (
            "Building coqui's ``trainer.Trainer`` seeds ``random``, NumPy and torch with "
            "``config.training_seed`` (default 54321); a model built before it is initialised unseeded.",
            "coqui-ai/Trainer trainer/trainer.py (Trainer.setup_training_environment) and "
            "trainer/trainer_utils.py (setup_torch_training_env)",
        ),
        (
            "``LightningCLI(seed_everything_default=N)`` calls ``seed_everything(N, workers=True)`` before it "
            "builds the model; the default ``True`` picks a new random seed every run, and a seed set before "
            "the CLI is overwritten: the fix passes ``seed_everything_default=SEED``.",
            "lightning/pytorch/cli.py (LightningCLI._set_seed)",
        ),
    )
    fix_description = (
        "Inserts the seeding block once, at the start of the run: the ``__main__`` block (or the function it "
        "calls, after the arguments are parsed), the function ``torch.multiprocessing.spawn`` starts when the "
        "work is there, module level only in a script without a ``__main__`` block that nothing imports. It "
        "seeds with the run's own seed (``args.seed``, ``cfg.seed``), else ``SEED = 0``, each framework the run "
        "uses (``random``, NumPy, torch + CUDA, TensorFlow, MindSpore, DGL). A seeding "
        "helper the module already has is called instead, and completed with what it misses. Lightning "
        "scripts get ``seed_everything(SEED, workers=True)``, accelerate scripts its ``set_seed(SEED)``, "
        "Hugging Face ``Trainer`` scripts ``transformers.set_seed(SEED)``."
    )
    scope_note = "The report is on the ``if __name__ == \"__main__\":`` line, else on line 1: put the ``# noqa`` there."

    def might_fire(self, text, settings) -> bool:
        # A run that trains, or that uses any global RNG (it may seed nothing).
        return trains_maybe(text) or any(
            rule.might_fire(text, settings) or rule.might_use(text, settings) for rule in DRAW_RULES
        )

    def check(self, ctx: FileContext) -> Iterator[Report]:
        facts = ctx.facts
        run = run_of(ctx)
        if run is None:
            return
        if seeds_nothing(run):
            used = unseeded_summary(run)
            if not used and not ctx.settings.strict and not run.roots & MODEL_ROOTS:
                # No RNG use seen, and no framework whose models start from random weights (a
                # tokenizer's training): the randomness is not shown to be there (strict reports it).
                return
            yield module_report(
                ctx,
                "%s seeds no RNG: %s — seed random, NumPy and your framework at start-up"
                " (e.g. seed_everything(SEED))%s" % (
                    "training run" if run.trains else "this run",
                    used if used else "whatever it draws (weights, dropout, data order, a library's sampling) differs"
                    " every run", cause_hint(ctx, run, run.unseeded((TORCH,))),
                ),
                run_cause_fix(ctx, torch_cause=True),
            )
            return
        if not facts.is_training_entry:
            return
        trainer = self._first_seeding_trainer(ctx)
        if trainer is not None and not facts.seeded_at(TORCH, trainer) and _new_weights_first(ctx, trainer):
            yield module_report(
                ctx,
                "training script is seeded only when %s() is built, after the model: new weights (a head,"
                " a PEFT adapter) are initialised from an unseeded RNG and differ every run"
                " — call transformers.set_seed(SEED) before building the model" % ctx.spelling(trainer),
                run_cause_fix(ctx, torch_cause=True),
            )

    @staticmethod
    def _first_seeding_trainer(ctx: FileContext):
        """The first Hugging Face/trl Trainer that entry code builds, if it is given a model
        built before it (not ``model_init=``, which the Trainer calls after seeding)."""
        for site in ctx.index.calls:
            if ctx.facts.reaches(site.fn) and ctx.facts.builds_seeding_trainer(site):
                model = find_arg(site.node, "model", 0)
                if find_arg(site.node, MODEL_INIT_KEYWORD) is MISSING and model is not MISSING and not is_none(model):
                    return site
                return None
        return None


def _new_weights_first(ctx: FileContext, trainer) -> bool:
    """Does entry code draw new weights before the Trainer seeds: a PEFT adapter
    (``get_peft_model``, ``peft_config=``), a new head (``AutoModelForSequenceClassification``),
    a model built from a config?  A pretrained model loaded as is draws nothing."""
    if not absent_or_none(trainer.node, PEFT_CONFIG_KEYWORD):
        return True
    for site in ctx.index.calls:
        if not ctx.facts.reaches(site.fn) or site is trainer:
            continue
        name = ctx.qualname(site) or ""
        if name in NEW_WEIGHTS_CALLS or site.method_name in NEW_WEIGHTS_METHODS:
            return True
        if name in NEW_HEAD_KEYWORDS and find_arg(site.node, NEW_HEAD_KEYWORDS[name]) is not MISSING:
            return True
        if name.startswith(("transformers.", "trl.")) and name.replace(".from_pretrained", "").endswith(NEW_HEAD_SUFFIXES):
            return True
    return False

