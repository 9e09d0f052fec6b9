from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Optional, Tuple

from .._lazy import cst
from ..analysis.nodes import callee_name, code_children, dotted_name, own_nodes
from ..tables import resume as R
from ..tables.run_uses import INITIALIZES
from .common.base import Report, Rule
from .common.runs import run_of

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext
    from ..analysis.index import CallSite

_RESUME_WHY = (
    "a resumed run restores the model and the optimizer but not the RNG states, so its dropout masks, data order"
    " and augmentations after the checkpoint differ from those of an uninterrupted run"
)


class ResumeWithoutRngState(Rule):
    """DET110: a run resumes from a checkpoint without the RNG states.

    What it does: in an entry module, reports the restore of an optimizer's state
    (``optimizer.load_state_dict(ckpt["optimizer"])``, or a call to a project function that does
    it: ``misc.load_model(args, model, optimizer)``) followed by training in the same function
    (the run continues a training; loading saved checkpoints to evaluate them is not resuming), in a
    seeded run (unseeded, the seeding report comes first) that draws after the checkpoint (dropout,
    a shuffling loader, an augmentation, a draw after the restore: a run whose only draws came
    before it resumes exactly), of a module that also saves checkpoints (``torch.save``, itself
    or through a project function) but neither it nor those functions save or restore any RNG
    state (``torch.get_rng_state``/``set_rng_state``, ``torch.cuda.get_rng_state_all``,
    ``np.random.get_state``, ``random.getstate``, an RNG object's ``get_state``).  Not a state
    handed from one live optimizer to another (``load_state_dict(other.state_dict())``).  Not in a
    script built on a framework whose checkpoints hold the RNG states (Lightning, Hugging
    Face ``Trainer``, accelerate ``save_state``, mmengine).  Also a seeding call that runs after
    an RNG state is restored in the same function: it overwrites what was restored.

    Why it matters: an interrupted and resumed run is a different run from an uninterrupted
    one -- its results cannot be compared to it, nor repeated by resuming again.

    Example: ``ckpt = torch.load(path); model.load_state_dict(ckpt["model"]);
    optimizer.load_state_dict(ckpt["optimizer"])`` with ``torch.save({"model": ...,
    "optimizer": ...}, path)`` elsewhere in the script.
    Fix: save ``torch.get_rng_state()``, ``torch.cuda.get_rng_state_all()``,
    ``np.random.get_state()`` and ``random.getstate()`` in the checkpoint and restore them
    (with the DataLoader generator's state) after loading it.
    """

    code = "DET110"
    cross_module = True  # a project helper restores the optimizer or saves the checkpoint
    precheck_scope = "entry"
    triggers = frozenset({R.RESTORE_METHOD}) | frozenset(name.rsplit(".", 1)[-1] for name in R.RESTORING_RNG)
    invalid = (
        "import torch\ntorch.manual_seed(0)\n"
        "model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.1))\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "ckpt = torch.load('last.pt')\nmodel.load_state_dict(ckpt['model'])\n"
        "optimizer.load_state_dict(ckpt['optimizer'])\noptimizer.step()\n"
        "torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict()}, 'last.pt')\n",
    )
    valid = (
        "import torch\nmodel = torch.nn.Linear(2, 2)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "ckpt = torch.load('last.pt')\nmodel.load_state_dict(ckpt['model'])\n"
        "optimizer.load_state_dict(ckpt['optimizer'])\ntorch.set_rng_state(ckpt['rng'])\n"
        "torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(),\n"
        "            'rng': torch.get_rng_state()}, 'last.pt')\n",
        "import torch\nmodel = torch.nn.Linear(2, 2)\nmodel.load_state_dict(torch.load('pretrained.pt'))\n",
    )
    sources = (
        (
            "The RNG states are separate from the model and optimizer state: ``torch.get_rng_state``/"
            "``set_rng_state`` (and ``torch.cuda.get_rng_state_all``), ``numpy.random.get_state``, "
            "``random.getstate`` save and restore them.",
            "https://docs.pytorch.org/docs/stable/random.html",
        ),
        (
            "Hugging Face's Trainer saves the RNG states with every checkpoint (``rng_state.pth``) and "
            "restores them when resuming; Lightning collects the random, NumPy, torch and CUDA states "
            "into its checkpoints.",
            "huggingface/transformers src/transformers/trainer.py ``_save_rng_state``/``_load_rng_state`` "
            "(PR #11582); Lightning-AI/pytorch-lightning lightning/fabric/utilities/seed.py "
            "``_collect_rng_states`` (PR #14384)",
        ),
        (
            "Seeding again after a checkpoint's RNG state is restored replaces the restored position "
            "with the initial seed.",
            "modelscope/ms-swift PR #9935 (a real case)",
        ),
    )
    fix_description = (
        "Not automatic: where the checkpoint is saved and loaded is the script's own design. Add the "
        "RNG states to the checkpoint and restore them after loading it."
    )
    fixed = (
        "import random\n\nimport numpy as np\nimport torch\n\n"
        "torch.manual_seed(0)\nmodel = torch.nn.Linear(2, 2)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "ckpt = torch.load('last.pt', weights_only=False)\nmodel.load_state_dict(ckpt['model'])\n"
        "optimizer.load_state_dict(ckpt['optimizer'])\ntorch.set_rng_state(ckpt['torch_rng'])\n"
        "np.random.set_state(ckpt['numpy_rng'])\nrandom.setstate(ckpt['python_rng'])\noptimizer.step()\n"
        "torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(),\n"
        "            'torch_rng': torch.get_rng_state(), 'numpy_rng': np.random.get_state(),\n"
        "            'python_rng': random.getstate()}, 'last.pt')\n"
    )

    def check(self, ctx: FileContext) -> Iterator[Report]:
        facts = ctx.facts
        if not facts.is_entry or ctx.index.imported_roots & R.FRAMEWORK_ROOTS:
            return
        helpers = _project_helpers(ctx)  # [(call, "RS"...)]: what the project functions it calls do
        yield from self._seeding_after_restore(ctx, helpers)
        if any(_handles_rng_state(ctx, site) for site in ctx.index.calls) or any("G" in f for _, f in helpers):
            return
        reached = [site for site in ctx.index.calls if facts.reaches(site.fn)]
        if not any(ctx.qualname(site) in R.CHECKPOINT_SAVERS for site in reached) \
                and not any("S" in f for _, f in helpers):
            return
        if not facts.seeds_anything():
            return  # unseeded, a resumed run differs anyway: the seeding report (DET100) comes first
        restores = [site for site, f in helpers if "R" in f]
        local = _first_optimizer_restore(ctx)
        if local is not None:
            restores.append(local)
        letters = {id(site.node): f for site, f in helpers}
        for restore in sorted(restores, key=lambda site: site.order):
            inside = "T" in letters.get(id(restore.node), "")  # a helper that resumes: trains and draws after
            if inside or (_trains_after(ctx, restore) and _draws_after(ctx, restore)):
                how = "" if restore is local else "%s() restores the optimizer's state, and " % ctx.spelling(restore)
                yield Report(restore.node, "%s%s — save torch.get_rng_state(), np.random.get_state() and"
                             " random.getstate() in the checkpoint and restore them" % (how, _RESUME_WHY))
                return

    @staticmethod
    def _seeding_after_restore(ctx: FileContext, helpers) -> Iterator[Report]:
        for site, letters in helpers:
            if "O" in letters:  # a project function restores a state, then seeds over it
                yield Report(site.node, "%s() seeds after the checkpoint's RNG state is restored, which overwrites"
                             " it: the resumed run starts its random streams over — seed before restoring the state"
                             % ctx.spelling(site))
        restored: dict = {}  # id(function node) or None -> order of the first RNG-state restore
        for site in ctx.index.calls:
            key = id(site.fn.node) if site.fn is not None else None
            if ctx.qualname(site) in R.RESTORING_RNG:
                restored.setdefault(key, site.order)
            elif key in restored and ctx.facts.call_seeds(site):
                yield Report(site.node, "%s() seeds after the checkpoint's RNG state is restored, which overwrites"
                             " it: the resumed run starts its random streams over — seed before restoring the state"
                             % ctx.spelling(site))


def _project_helpers(ctx: FileContext) -> List[Tuple[CallSite, str]]:
    """Calls the run makes to project functions that restore an optimizer, save a checkpoint or
    keep RNG states (``analysis/project``: ``misc.load_model(args, model, optimizer)``)."""
    project = ctx.project if ctx.index.imports else None
    if project is None:
        return []
    found = []
    for site, name in ctx.project_calls():
        if not ctx.facts.reaches(site.fn):
            continue
        facts = project.checkpoint_facts(name)
        if "L" in facts and _passes_optimizer(site.node):
            facts += "R"  # ``restart_from_checkpoint(path, model=model, optimizer=optimizer)``
        if facts:
            found.append((site, facts))
    return found


def _passes_optimizer(call) -> bool:
    return any(_names_optimizer(arg.keyword.value if arg.keyword is not None else dotted_name(arg.value))
               for arg in call.args)


def _handles_rng_state(ctx: FileContext, site: CallSite) -> bool:
    if ctx.qualname(site) in R.RNG_STATE_CALLS:
        return True
    return site.method_name in R.RNG_STATE_METHODS


def _first_optimizer_restore(ctx: FileContext) -> Optional[CallSite]:
    """``optimizer.load_state_dict(...)`` (the receiver or the loaded key names an optimizer) in
    code the run reaches."""
    for site in ctx.index.calls:
        if site.method_name != R.RESTORE_METHOD or not ctx.facts.reaches(site.fn):
            continue
        func = site.node.func
        receiver = dotted_name(func.value) if isinstance(func, cst.Attribute) else ""
        if _copied_in_memory(site.node):
            continue  # ``optimizer.load_state_dict(other.state_dict())``: one run hands its state on
        if _names_optimizer(receiver.rsplit(".", 1)[-1]) or any(_names_optimizer(key) for key in _keys(site.node)):
            return site
    return None


def _trains_after(ctx: FileContext, restore: CallSite) -> bool:
    """Training follows the restore in the same body (``optimizer.step()``, ``loss.backward()``,
    ``train(...)``): the run resumes, it does not only evaluate saved checkpoints."""
    for site in ctx.index.calls:
        if site.fn is restore.fn and site.order > restore.order and R.trains(site.method_name or ""):
            return True
    return False


def _draws_after(ctx: FileContext, restore: CallSite) -> bool:
    """The run draws after the checkpoint: dropout, a shuffling loader or an augmentation applied
    while it trains, or a draw that runs after the restore (weights the checkpoint replaces are
    not).  A run whose only draws were before it resumes exactly."""
    run = run_of(ctx)
    if run is None:
        return True
    after = run.when(restore)
    return any(
        (use.deferred or use.order > after) and not use.what.startswith(INITIALIZES)
        for uses in run.uses.values() for use in uses
    )


def _copied_in_memory(call) -> bool:
    """The state comes from a live object (``other.state_dict()``, ``copy.deepcopy(...)``)."""
    return any(isinstance(node, cst.Call) and callee_name(node) in ("state_dict", "deepcopy")
               for node in own_nodes([arg.value for arg in call.args]))


def _names_optimizer(name: str) -> bool:
    return any(word in name.lower() for word in R.OPTIMIZER_WORDS)


def _keys(call) -> List[str]:
    """String keys read in the call's arguments: ``ckpt["optimizer"]``."""
    found = []
    stack = [arg.value for arg in call.args]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.SimpleString):
            found.append(node.evaluated_value if isinstance(node.evaluated_value, str) else "")
        stack.extend(code_children(node))
    return found
