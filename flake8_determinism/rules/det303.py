from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from .._lazy import cst
from ..analysis.args import MISSING, UNKNOWN, find_arg, literal
from ..analysis.body import scope_body
from ..analysis.nodes import code_children
from ..analysis.scopes import lookup
from ..tables.determinism import TORCH_TRAINING_ROOTS, ULTRALYTICS_ROOT, ULTRALYTICS_TRAIN, restores_defaults
from ..tables.seeding import TORCH
from .common import edits
from .common.base import Report, Rule, module_report
from .common.deterministic_mode import WHY, framework_switch, framework_switch_off, missing_mode_run, mode_fix
from .common.cuda_ops import calls_raising_op, first_nondeterministic_op
from .common.runs import trains_maybe

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite

_SWITCH = "torch.use_deterministic_algorithms"
_STATE = "torch.are_deterministic_algorithms_enabled"


class DeterministicAlgorithmsOff(Rule):
    """DET303: deterministic algorithms off, or never turned on in a torch training script.

    What it does: reports ``torch.use_deterministic_algorithms(False)`` (not when it restores a
    state saved or set just before: ``finally:``, ``__exit__``, ``if not was_enabled:``, after
    ``(True)`` in the same body), and a torch training entry module (docs/contract.md) that turns on no
    deterministic mode: no ``use_deterministic_algorithms(True, ...)``, no ``cudnn.deterministic =
    True``, and no helper that does (``transformers.enable_full_determinism``,
    ``TrainingArguments(full_determinism=True)``, Lightning ``Trainer(deterministic=True)``,
    mmengine ``set_random_seed(..., deterministic=True)`` /
    ``Runner(randomness=dict(deterministic=True))``, ``accelerate.utils.set_seed(...,
    deterministic=True)``, fastai ``set_seed(..., reproducible=True)``, or a helper named for
    determinism). The second only where the run can use CUDA (a ``.cuda()``, a ``"cuda"`` device, a
    ``torch.cuda`` call, or a Lightning / Hugging Face ``Trainer``, which picks the GPU when there
    is one, in the entry module or the project modules its run calls): a run pinned to the CPU has
    no CUDA kernels to choose; and not in a benchmark (``training_benchmark.py``, ``bench_gcn.py``),
    whose result is a time that deterministic kernels would change. Default mode reports the missing
    mode only in a run that seeds torch and calls, in this module, an op with a nondeterministic CUDA
    kernel outside cuDNN's convolutions (DET304's table: ``index_add_``, ``scatter_add_``, interpolate
    backward, CTC...), or whose framework switch is written off (``Trainer(deterministic=False)``); an
    unseeded run's DET100/DET104 fix turns the mode on with its seeding, and the rest is strict
    (``rules/common/deterministic_mode.py``). It is reported once, at the ``__main__`` guard, else at line 1; its
    message names the switch of the framework the script uses
    (``TrainingArguments(full_determinism=True)``, Lightning ``Trainer(deterministic=True)``,
    mmengine ``randomness=dict(deterministic=True)``, accelerate ``set_seed(...,
    deterministic=True)``).  Also an Ultralytics ``model.train(..., deterministic=False)``, which
    turns off the deterministic mode Ultralytics trains with by default (fixed to ``True``).

    Why it matters: seeding fixes the random numbers, not the order in which
    CUDA kernels add floats; without a deterministic mode the same seed still
    gives different losses.

    Example: ``torch.use_deterministic_algorithms(False)``.
    Fix: ``torch.use_deterministic_algorithms(True)`` at start-up (``determinism-fix`` adds it).
    """

    code = "DET303"
    cross_module = True  # the run may train, on the GPU, in project modules
    fixes = "safe"
    triggers = frozenset({"use_deterministic_algorithms"})
    invalid = (
        "import torch\ntorch.use_deterministic_algorithms(False)\n",
        "import torch\ntorch.manual_seed(0)\nmodel = torch.nn.Linear(2, 1).cuda()\n"
        "out = torch.zeros(4).cuda().index_add_(0, torch.tensor([0, 1]).cuda(), model(torch.ones(2, 2).cuda()).sum(1))\n"
        "out.sum().backward()\n",
    )
    valid = (
        "import torch\ntorch.use_deterministic_algorithms(True)\nmodel = torch.nn.Linear(2, 1)\n"
        "model(torch.ones(2)).sum().backward()\n",
        "import torch\ntorch.backends.cudnn.deterministic = True\nmodel = torch.nn.Linear(2, 1)\n"
        "model(torch.ones(2)).sum().backward()\n",
        "import torch\ndef train(model):\n    model(torch.ones(2)).sum().backward()\n",
    )
    sources = (
        (
            "Ultralytics trains with ``deterministic: True`` and ``seed: 0`` by default; its trainer "
            "passes them to ``init_seeds``, which seeds random, NumPy and torch and turns deterministic "
            "algorithms on.",
            "ultralytics/ultralytics ultralytics/cfg/default.yaml; ultralytics/engine/trainer.py "
            "BaseTrainer.__init__; ultralytics/utils/torch_utils.py init_seeds",
        ),
        (
            "``torch.use_deterministic_algorithms(True)`` makes ops use deterministic algorithms where "
            "they exist and raise ``RuntimeError`` where only nondeterministic ones exist.",
            "https://docs.pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html",
        ),
        (
            "Controlling the sources of randomness (seeds) and avoiding nondeterministic algorithms "
            "are two separate steps; only the second makes repeated calls with the same inputs give "
            "the same result.",
            "https://docs.pytorch.org/docs/stable/notes/randomness.html#avoiding-nondeterministic-algorithms",
        ),
    )
    fix_description = (
        "``use_deterministic_algorithms(False)`` becomes ``True``. In a training script with no "
        "deterministic mode it adds the framework's switch: Lightning ``Trainer(..., "
        "deterministic=True)``, ``TrainingArguments(..., full_determinism=True)``, mmengine "
        "``randomness=dict(seed=SEED, deterministic=True)``, accelerate ``set_seed(..., "
        "deterministic=True)``; else, in the seeding block, ``cudnn.benchmark = False``, "
        "``cudnn.deterministic = True``, ``CUBLAS_WORKSPACE_CONFIG`` (target torch < 2.10) and "
        "``torch.use_deterministic_algorithms(True)`` (``warn_only=True`` when the module calls an op that "
        "would raise under it)."
    )
    scope_note = (
        "The \"never turned on\" report is on the ``if __name__ == \"__main__\":`` line, else on line 1: put "
        "the ``# noqa`` there."
    )

    def might_fire(self, text, settings) -> bool:
        return super().might_fire(text, settings) or trains_maybe(text) or _ultralytics_switch(text)

    def might_fire_in(self, shape, settings) -> bool:
        text = shape.code
        if "use_deterministic_algorithms" in text or _ultralytics_switch(text):
            return True
        # An entry module importing a project module may train with torch there (the run decides).
        return shape.is_entry and ((trains_maybe(text) and text.has_any(TORCH_TRAINING_ROOTS))
                                   or bool(shape.imports_project))

    def check(self, ctx: FileContext) -> Iterator[Report]:
        turned_off = False
        for site in ctx.calls_by_name.get(_SWITCH, ()):
            mode = find_arg(site.node, "mode", 0)
            if mode not in (MISSING, UNKNOWN) and literal(mode) == (True, False) and not _restores(ctx, site):
                turned_off = True
                yield Report(site.node, "%s(False) turns deterministic algorithms off: %s — pass True"
                             % (ctx.spelling(site), WHY), fix=_turn_on(ctx, site, mode))
        for site in ctx.index.calls:
            if site.method_name == ULTRALYTICS_TRAIN and (ctx.qualname(site) or "").startswith(ULTRALYTICS_ROOT):
                value = find_arg(site.node, "deterministic")
                if value not in (MISSING, UNKNOWN) and literal(value) == (True, False):
                    turned_off = True
                    yield Report(site.node, "%s(deterministic=False) turns off the deterministic mode Ultralytics"
                                 " trains with by default: %s — pass deterministic=True (its default)"
                                 % (ctx.spelling(site), WHY),
                                 fix=edits.replace(value, "True", "pass deterministic=True"))
        if turned_off:
            return
        run = missing_mode_run(ctx)
        if run is None:
            return
        # Default mode (docs/contract.md "Deterministic algorithms"): only a run that seeds torch and
        # calls an op whose CUDA kernel is nondeterministic; an unseeded run's DET100/DET104 fix
        # turns the mode on with its seeding, and a run whose ops are not seen is quiet.
        op = first_nondeterministic_op(ctx)
        shown = "%s()" % ctx.spelling(op[0]) if op is not None else run.kernel
        quiet = shown is None or not run.seeded_in_run(TORCH)
        if not ctx.settings.strict and quiet and not framework_switch_off(ctx):
            return
        shown = " (this run calls %s)" % shown if shown is not None else ""
        yield module_report(
            ctx, "training script turns on no deterministic mode: even with a fixed seed, %s%s — %s at start-up"
            % (WHY, shown, framework_switch(ctx)), mode_fix(ctx),
        )


def _ultralytics_switch(text) -> bool:
    return "ultralytics" in text and "deterministic" in text


def _turn_on(ctx: FileContext, site: CallSite, mode) -> edits.Fix:
    """``(False)`` -> ``(True)``, with ``warn_only=True`` when the module calls an op that would
    raise under it, so the fix never makes a visible op raise."""
    fixes = [edits.replace(mode, "True", "pass True")]
    if calls_raising_op(ctx) and find_arg(site.node, "warn_only") is MISSING:
        fixes.append(edits.set_argument(site.node, "warn_only", None, "True", "warn only"))
    return edits.combine("pass True", fixes)


def _restores(ctx: FileContext, site: CallSite) -> bool:
    """``False`` that puts back a state saved or set just before: in a ``finally:`` block, an
    ``__exit__``/``tearDown``, under ``if not was_enabled:``, or after ``(True)`` in the same body."""
    fn = site.fn
    if fn is not None and restores_defaults(fn.name):
        return True
    if _ultralytics_trains_after(ctx, site):
        return True  # its trainer turns the deterministic mode back on (``deterministic=True`` by default)
    if any(other.fn is fn and other.order < site.order for other in ctx.calls_by_name.get(_SWITCH, ())
           if literal(find_arg(other.node, "mode", 0)) == (True, True)):
        return True
    body = scope_body(ctx, site)
    node = body.parents.get(id(site.node))
    while node is not None:
        if isinstance(node, cst.Finally):
            return True
        if isinstance(node, cst.If) and _reads_saved_state(ctx, node.test, site):
            return True
        node = body.parents.get(id(node))
    return False


def _ultralytics_trains_after(ctx: FileContext, site: CallSite) -> bool:
    for other in ctx.index.calls:
        if other.order > site.order and other.fn is site.fn and other.method_name == ULTRALYTICS_TRAIN \
                and (ctx.qualname(other) or "").startswith(ULTRALYTICS_ROOT) \
                and literal(find_arg(other.node, "deterministic")) != (True, False):
            return True
    return False


def _reads_saved_state(ctx: FileContext, test, site: CallSite) -> bool:
    """The test reads ``are_deterministic_algorithms_enabled()`` or a variable assigned from it."""
    stack = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and ctx.resolve(node.func, site) == _STATE:
            return True
        if isinstance(node, cst.Name):
            binding = lookup(site.scope, node.value, site.order)
            value = binding.value if binding is not None and binding.kind == "assign" else None
            if isinstance(value, cst.Call) and ctx.resolver.resolve(value.func, binding.scope, binding.order) == _STATE:
                return True
        stack.extend(code_children(node))
    return False
