"""A torch training run on the GPU that turns no deterministic mode on (DET303's missing-mode
case), and the switch that turns it on: the framework's own, set on every call that builds its
trainer, else deterministic algorithms at start-up.  DET303 reports it in a seeded run; the run's
DET100/DET104 fix turns it on with the seeding in an unseeded one (docs/contract.md
"Deterministic algorithms")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ..._lazy import cst
from ...analysis.args import MISSING, UNKNOWN, find_arg, is_none, literal
from ...analysis.nodes import callee_name
from ...tables.determinism import (
    FRAMEWORK_SWITCHES, LIGHTNING_TRAINERS, MMENGINE_RANDOMNESS, MMENGINE_RUNNERS, NOT_CUDA_ROOTS,
    TORCH_DETERMINISM, TORCH_TRAINING_ROOTS, is_training_arguments,
)
from . import edits
from .runs import Run, run_of
from .seeding import measures_speed

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite

WHY = "ops with nondeterministic CUDA kernels (atomic-add reductions, index/scatter backward) differ run to run"


def missing_mode_run(ctx: FileContext) -> Optional[Run]:
    """The entry module's run when it trains with torch, can use CUDA (a run pinned to the CPU has
    no CUDA kernels to choose), and turns no deterministic mode on; else None.  Not XLA/TPU runs,
    nor timing benchmarks (deterministic kernels would change what they measure)."""
    facts = ctx.facts
    # The run, not the file: the training, the GPU and torch itself may sit in project modules.
    run = run_of(ctx)  # None for a library module or a self-test
    if run is None or not run.steps or not run.roots & TORCH_TRAINING_ROOTS or run.roots & NOT_CUDA_ROOTS:
        return None
    if any(facts.turns_on(s) for s in TORCH_DETERMINISM) or measures_speed(ctx) or not run.gpu:
        return None
    return run


# The framework's own switch, set on every call that builds its trainer (docs/contract.md's
# framework-native fixes): (is this the call, keyword, value).
NATIVE_SWITCHES = (
    (lambda name: name == "accelerate.utils.set_seed", "deterministic", "True"),
    (is_training_arguments, "full_determinism", "True"),
    (lambda name: name in LIGHTNING_TRAINERS, "deterministic", "True"),
    (lambda name: name in MMENGINE_RUNNERS, MMENGINE_RANDOMNESS, "dict(seed={SEED}, deterministic=True)"),
)


def mode_fix(ctx: FileContext) -> edits.Fix:
    """The switch of the framework the script trains with, else deterministic kernels at start-up."""
    generic = edits.module_fix("turn deterministic algorithms on at start-up", edits.TORCH_DETERMINISM)
    for matches, keyword, value in NATIVE_SWITCHES:
        sites = [s for s in ctx.index.calls if matches(ctx.qualname(s) or "")]
        fixes = [native_switch(site, keyword, value) for site in sites]
        if sites and all(fixes):
            # Only where the installed version takes the option (an older one raises TypeError).
            requires = tuple((ctx.qualname(site), keyword) for site in sites)
            return edits.combine("set %s=%s" % (keyword, value.replace("{SEED}", "SEED")), fixes)._replace(
                requires=requires, fallback=generic)
    return generic


def native_switch(site: CallSite, keyword: str, value: str):
    """Set ``keyword``; a ``randomness=dict(...)`` already there is completed."""
    current = find_arg(site.node, keyword)
    if current is UNKNOWN:
        return None
    if current is MISSING or literal(current) == (True, False) or is_none(current):
        return edits.set_argument(site.node, keyword, None, value, "set %s" % keyword)
    if keyword == MMENGINE_RANDOMNESS and isinstance(current, cst.Call) and callee_name(current) == "dict":
        missing = [edits.set_argument(current, key, None, text, "set " + key)
                   for key, text in (("seed", "{SEED}"), ("deterministic", "True"))
                   if find_arg(current, key) is MISSING or is_none(find_arg(current, key))]
        return edits.combine("complete randomness", missing) if missing else None
    return None


def framework_switch(ctx: FileContext) -> str:
    """The deterministic switch of the framework the script trains with (docs/contract.md DET303)."""
    for prefix, switch in FRAMEWORK_SWITCHES:
        if any(name.startswith(prefix) for name in ctx.calls_by_name):
            return switch
    if any(ctx.facts.builds_seeding_trainer(site) for site in ctx.index.calls):
        return "pass TrainingArguments(..., full_determinism=True)"
    return "call torch.use_deterministic_algorithms(True)"


def framework_switch_off(ctx: FileContext) -> bool:
    """A framework's own deterministic switch is written off: ``Trainer(deterministic=False)``,
    ``TrainingArguments(full_determinism=False)`` (DET303 reports it in default mode)."""
    for matches, keyword, _ in NATIVE_SWITCHES:
        for site in ctx.index.calls:
            if matches(ctx.qualname(site) or ""):
                value = find_arg(site.node, keyword)
                if value not in (MISSING, UNKNOWN) and literal(value) == (True, False):
                    return True
    return False
