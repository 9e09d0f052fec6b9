from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from .._lazy import cst
from ..analysis.args import MISSING, UNKNOWN, find_arg, literal
from ..analysis.nodes import calls_in, dotted_name, named_parameters, own_nodes
from ..analysis.switches import ON, dict_entry, flag_state, is_config_dict, subscript_key
from ..tables.determinism import (
    ALGORITHMS, ALGORITHMS_WARN_ONLY, AUTOTUNE_MODES, BENCHMARK_ON, CUDNN_BENCHMARK, INDUCTOR_DETERMINISTIC,
    MMENGINE_ENV_CFG, MMENGINE_RUNNERS, TORCH_COMPILE,
)
from .common import edits
from .common.base import Report, Rule
from .common.cudnn import flag_assignments
from .common.runs import run_of

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ..analysis.context import FileContext

_AUTOTUNE_MODE = re.compile(r"""mode\s*=\s*["']max-autotune""")
_RECEIVERS = frozenset({"cudnn", "Trainer"})  # cudnn.benchmark / cudnn.flags, Lightning's Trainer
_WHY = (
    "the cuDNN autotuner times several convolution algorithms per input shape and keeps the fastest,"
    " which can differ run to run"
)


class CudnnBenchmark(Rule):
    """DET301: the cuDNN autotuner is switched on.

    What it does: reports ``torch.backends.cudnn.benchmark = True`` (however
    ``cudnn`` is imported), ``torch.backends.cudnn.flags(benchmark=True)``,
    Lightning ``Trainer(benchmark=True)`` and mmengine
    ``env_cfg=dict(cudnn_benchmark=True)`` (a Runner argument or a config variable).
    Also a value whose default in this module is true: an option (``cudnn.benchmark =
    args.benchmark`` with ``default=True``, ``not args.no_benchmark`` with ``store_true``) or a
    parameter with ``benchmark=True`` that no caller here passes (reported, not fixed: the
    default is yours to change).  And ``torch.compile(mode="max-autotune")`` (or
    ``"max-autotune-no-cudagraphs"``) in a module that does not turn deterministic algorithms
    on: ``use_deterministic_algorithms(True)`` also puts Inductor in its deterministic mode,
    which skips the benchmarking (one report per module, since that one switch covers every
    call; not under ``if flag:`` where the parameter ``flag`` defaults to off).  Default mode
    leaves out the entry modules whose run only evaluates or predicts (the autotuner moves their
    outputs by rounding, no training differs by it), timing benchmarks and viewers (a time or a
    picture on the screen is no result), and a switch in a branch a run with its
    options at their defaults does not take (``if not args.deterministic:`` with
    ``--deterministic`` defaulting to 1); strict reports them.

    Why it matters: benchmarking noise decides which algorithm wins, so two runs
    can use different kernels with different rounding, even on one machine.

    Example: ``torch.backends.cudnn.benchmark = True``.
    Fix: set it to ``False`` (``determinism-fix`` does), or ``benchmark=False``.
    """

    code = "DET301"
    fixes = "safe"
    triggers = frozenset({"benchmark", MMENGINE_ENV_CFG[1]})
    invalid = (
        "import torch\ntorch.backends.cudnn.benchmark = True\n",
        "from torch.backends import cudnn\ncudnn.benchmark = True\n",
        "import lightning as L\ntrainer = L.Trainer(benchmark=True)\n",
        "env_cfg = dict(cudnn_benchmark=True)\n",
    )
    valid = (
        "import torch\ntorch.backends.cudnn.benchmark = False\n",
        "class Cfg:\n    pass\ncudnn = Cfg()\ncudnn.benchmark = True\n",
        "import lightning as L\ntrainer = L.Trainer(benchmark=False)\n",
    )
    sources = (
        (
            "With ``cudnn.benchmark = True`` cuDNN times several convolution algorithms per input "
            "shape and keeps the fastest; benchmarking noise and hardware can make it pick different "
            "algorithms on later runs, even on the same machine.",
            "https://docs.pytorch.org/docs/stable/notes/randomness.html#cuda-convolution-benchmarking",
        ),
        (
            "``torch.backends.cudnn.benchmark = False`` makes cuDNN select the algorithm "
            "deterministically.",
            "https://docs.pytorch.org/docs/stable/notes/randomness.html#cuda-convolution-benchmarking",
        ),
        (
            "``torch.compile(mode=\"max-autotune\")`` benchmarks kernel choices on the device; "
            "``torch.use_deterministic_algorithms(True)`` sets ``torch._inductor.config.deterministic``, "
            "under which Inductor skips the on-device benchmarking that affects numerics.",
            "pytorch/pytorch torch/__init__.py (torch 2.13): compile() and use_deterministic_algorithms(); "
            "torch/_inductor/config.py ``deterministic``",
        ),
        (
            "Lightning ``Trainer(benchmark=True)`` and mmengine ``env_cfg=dict(cudnn_benchmark=True)`` "
            "set ``cudnn.benchmark = True``.",
            "lightning 2.6.6 accelerator_connector.py; mmengine 0.10.7 runner.py (facts §8)",
        ),
    )
    fix_description = (
        "``cudnn.benchmark = True`` becomes ``False``, ``Trainer(benchmark=True)`` becomes "
        "``benchmark=False``, ``cudnn_benchmark=True`` becomes ``False``."
    )

    def might_fire(self, text, settings) -> bool:
        # ``benchmark`` is a common word (torch.utils.benchmark): require what it is set on.
        return MMENGINE_ENV_CFG[1] in text or ("benchmark" in text and text.has_any(_RECEIVERS)) \
            or ("compile" in text and text.search(_AUTOTUNE_MODE))

    def check(self, ctx: FileContext) -> Iterator[Report]:
        if not ctx.settings.strict and (_evaluation_run(ctx) or ctx.facts.is_benchmark):
            return  # outputs moved by rounding only, or a time / a picture: no rerun's result
        for assignment, how in flag_assignments(ctx, CUDNN_BENCHMARK, True, defaults=True):
            if how:  # a value the run can choose: only its default is known
                advice = "set it to False whatever the seed" if how.startswith("it is") else "default it to False"
                yield Report(assignment.target, "cudnn.benchmark = %s, and %s: %s — %s"
                             % (ctx.module.code_for_node(assignment.value), how, _WHY, advice))
                continue
            yield Report(assignment.target, "cudnn.benchmark = True: %s — set it to False" % _WHY,
                         fix=edits.replace(assignment.value, "False", "set it to False"))
        for site in ctx.calls_to(BENCHMARK_ON):
            keyword, position = BENCHMARK_ON[site.qualname]
            if flag_state(site.node, keyword, position) == ON:
                value = find_arg(site.node, keyword, position)
                fix = edits.replace(value, "False", "pass benchmark=False") if literal(value) == (True, True) else None
                yield Report(site.node, "%s(benchmark=True): %s — pass benchmark=False" % (ctx.spelling(site), _WHY),
                             fix=fix)
        yield from self._mmengine(ctx)
        yield from self._compile(ctx)

    @staticmethod
    def _compile(ctx: FileContext) -> Iterator[Report]:
        """``torch.compile(mode="max-autotune")`` in a module that does not turn Inductor's
        deterministic mode on (``use_deterministic_algorithms(True)`` does)."""
        sites = [site for site in ctx.calls_by_name.get(TORCH_COMPILE, ())
                 if literal(find_arg(site.node, "mode", 2)) in ((True, mode) for mode in AUTOTUNE_MODES)]
        if not sites or ctx.facts.turns_on(ALGORITHMS) or ctx.facts.turns_on(ALGORITHMS_WARN_ONLY) \
                or _sets_inductor_deterministic(ctx):
            return
        for site in sites:
            if _off_by_default(ctx, site):
                continue
            # One report per module: one use_deterministic_algorithms(True) covers every compile.
            yield Report(site.node, "%s(mode=%r) benchmarks kernel choices on the device and keeps the fastest,"
                         " which can differ run to run — turn Inductor's deterministic mode on with"
                         " torch.use_deterministic_algorithms(True) (or use the default mode)"
                         % (ctx.spelling(site), literal(find_arg(site.node, "mode", 2))[1]))
            return

    def _mmengine(self, ctx: FileContext) -> Iterator[Report]:
        variable, key = MMENGINE_ENV_CFG
        configs = []
        for site in ctx.calls_by_name.get(next(iter(MMENGINE_RUNNERS)), ()):
            value = find_arg(site.node, variable, None)
            if isinstance(value, cst.Dict):
                configs.append(value)
        for site in ctx.index.calls:
            if is_config_dict(site, ctx.index.parents, variable):
                configs.append(site.node)
        for config in configs:
            value = dict_entry(config, key)
            if value not in (MISSING, UNKNOWN) and literal(value) == (True, True):
                yield Report(value, "%s=dict(%s=True): mmengine turns cudnn.benchmark on; %s — set %s=False"
                             % (variable, key, _WHY, key), fix=edits.replace(value, "False", "set it to False"))


def _off_by_default(ctx: FileContext, site) -> bool:
    """The call sits under ``if flag:`` where ``flag`` is a parameter of its function that defaults
    to ``False``/``None``/0 (``if compile_image_encoder:``): an option its callers turn on."""
    if site.fn is None or not isinstance(site.fn.node, cst.FunctionDef):
        return False
    off = {param.name.value for param in named_parameters(site.fn.node.params)
           if param.default is not None and literal(param.default)[0] and not literal(param.default)[1]}
    if not off:
        return False
    return any(isinstance(node, cst.If) and isinstance(node.test, cst.Name) and node.test.value in off
               and id(site.node) in calls_in([node.body]) for node in own_nodes([site.fn.node.body]))


def _sets_inductor_deterministic(ctx: FileContext) -> bool:
    """``torch._inductor.config.deterministic = ...`` or ``os.environ["TORCHINDUCTOR_DETERMINISTIC"] = ...``."""
    attribute, variable = INDUCTOR_DETERMINISTIC
    for assignment in ctx.index.assignments:
        target = assignment.target
        if dotted_name(target).endswith(attribute.split(".", 1)[1]):
            return True
        key = subscript_key(target)
        if key is not MISSING and literal(key) == (True, variable):
            return True
    return False


def _evaluation_run(ctx: FileContext) -> bool:
    """An entry module whose run is seen to evaluate (``model.eval()``, a checkpoint loaded) and
    to train nothing, here or in the project modules it calls, nor to call anything named for
    training (``trainer.run_training()``): the autotuner's choice moves its outputs by rounding
    only (default mode is quiet; strict reports)."""
    run = run_of(ctx)
    if run is None or run.trains or run.steps or not (run.evaluates or run.loads_weights):
        return False
    return not any(_named_for_training(site.method_name or ctx.spelling(site))
                   for site in ctx.index.calls if ctx.facts.reaches(site.fn))


def _named_for_training(name: str) -> bool:
    last = name.rsplit(".", 1)[-1].lower()
    return "train" in last or last == "fit"
