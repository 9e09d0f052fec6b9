"""What DET100-DET107 share: the run of an entry module and one report per cause.

A run is what executes when someone starts the entry module (docs/contract.md "The project and its
runs"): its module-level code and ``__main__`` block, the functions they reach in this module
(``ModuleFacts.in_entry_code``), and what its calls into project modules do
(``analysis/project``).  ``Run`` lists every use the run makes of each global RNG -- a draw,
a layer that initialises weights, dropout, a random transform, a shuffling DataLoader, a
library that draws -- each with whether the RNG is seeded at that point.

From those the rules report **once per cause**: an RNG the run never seeds gets one report,
at its first use here (or at the call here that leads to it), naming up to three uses with
``file:line``; a training run that seeds nothing at all gets DET100 instead.  An RNG the run
does seed, but only after some use ("seeded after use"), is reported at each such use: the
fix there is to move code.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional, Tuple

from ...analysis import calls
from ...analysis.args import MISSING, UNKNOWN, find_arg, literal
from ...analysis.body import after_an_exit, enclosing_ifs, only_feeds
from ...tables import data_order as D
from ...tables import seeding as T
from ...tables.entry import TRACING_CALLS, TRACING_METHODS, WRAPS_WITHOUT_CALLING
from ...tables.run_uses import (
    INIT_PREFIX, LIBRARY_DRAWS, PRETRAINED_KEYWORDS, TORCH_MODEL_BUILDER_PREFIXES, TORCH_MODEL_BUILDERS,
    WEIGHT_LAYERS,
)
from ...tables.run_uses import (
    AUGMENTS, DATA_METHODS, INITIALIZES, MASKS_DROPOUT, MODEL_METHODS, MS_INIT, PARAMETER_CLASSES, SEEDED_BY,
    loads_weights,
)
from ...tables.stochastic import DROPOUT, KERAS, RANDOM_TRANSFORMS
from ..._lazy import cst
from .seeding import fallback_seed_draw

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite

MAX_NAMED = 3  # uses named in a message, per RNG
# What a DataLoader or sampler does with torch's RNG (a use's ``what``): the run's DET100/DET104 fix
# gives these a ``generator=`` (``cause_fix``).
SHUFFLES, SAMPLES, SEEDS_WORKERS = "shuffles the data", "samples the data", "seeds its workers"
LOADER_VERBS = (SHUFFLES, SAMPLES, SEEDS_WORKERS)
# The seeding rules of the global RNGs (``global_draws.GlobalDrawRule`` registers each subclass):
# the run asks each which calls draw from its RNG.  Filled when the rules are imported (``registry``).
DRAW_RULES: list = []
# Words without one of which (or a ``*Trainer``) a module cannot train (the pre-check).
TRAINING_WORDS = frozenset({"backward", "fit", "step", "Runner", "from_cfg"})


def trains_maybe(text) -> bool:
    """Pre-check for training: the training words, or any ``*Trainer`` (``SFTTrainer``,
    ``BCOTrainer``, a subclass defined here...)."""
    return text.has_any(TRAINING_WORDS) or "Trainer" in text.text

# The seeding rules and the global RNGs each one reports.
FRAMEWORKS_OF = {
    "DET101": (T.RANDOM,),
    "DET102": (T.NUMPY,),
    "DET104": (T.TORCH,),
    "DET106": (T.TF, KERAS),
    "DET107": (T.MS, MS_INIT, T.MS_DATASET),
}


def _use_words() -> Dict[str, frozenset]:
    """framework -> the words without which a module uses that RNG other than by a draw
    function (the pre-check: layers, dropout, transforms, data loading, libraries)."""
    words: Dict[str, set] = {}

    def add(framework, name):
        words.setdefault(framework, set()).add(name.rsplit(".", 1)[-1].replace("()", ""))

    for table in (DROPOUT, RANDOM_TRANSFORMS):
        for name, op in table.items():
            add(op.framework, name)
    for name, framework in WEIGHT_LAYERS.items():
        add(framework, name)
    for name, (framework, _) in LIBRARY_DRAWS.items():
        add(framework, name)
    for name in list(D.RANDOM_SAMPLERS) + [D.DATALOADER] + list(TORCH_MODEL_BUILDERS):
        add(T.TORCH, name)
    words[T.TORCH].add("models")  # torchvision.models.resnet18()
    # Shuffles outside torch (DET203's): tf.data, Hugging Face datasets, MindSpore datasets.
    words.setdefault(T.TF, set()).update({"shuffle", "list_files"})
    words.setdefault(T.NUMPY, set()).update(D.HF_SEEDED_FROM_NUMPY)
    datasets = {n.rsplit(".", 1)[-1] for n in D.MINDSPORE_SHUFFLING_DATASETS}
    words.setdefault(T.MS_DATASET, set()).update({"shuffle"} | datasets)
    return {framework: frozenset(found) for framework, found in words.items()}


USE_WORDS = _use_words()


def might_use(text, frameworks) -> bool:
    """Pre-check: can a module use one of these RNGs other than by a draw function?"""
    return any(text.has_any(USE_WORDS.get(fw, ())) for fw in frameworks)


class RunUse(NamedTuple):
    framework: str
    node: object  # the entry module's node: the use itself, or the call that leads to it
    order: Tuple[int, int]  # when it runs: (the module-level statement that leads to it, its own place)
    where: str  # "models.py:12" for a use in another module; "" for one here (placed when named)
    what: str  # "initializes weights (nn.Linear)"
    seeded: bool  # the RNG is seeded when this use runs
    deferred: bool  # it runs later, when the object is applied (a layer, a DataLoader's shuffle)
    local: bool  # the use itself is in the entry module
    # A call-site rule reports this use with a fix that removes it (in strict mode DET202's and
    # DET205's ``generator=``): named in the cause's report, never its only reason.  In default mode
    # an unseeded run's loaders are its cause's (``generators``: its fix adds their generator).
    covered: bool = False
    spawned: Optional[str] = None  # the function whose new process runs it (``mp.spawn(worker)``)
    forward: bool = False  # made in a model's forward pass
    item: bool = False  # made in a dataset's ``__getitem__``/``__iter__``: in a DataLoader's workers


class Run:
    """The run of one entry module: its RNG uses, seeded or not, and what it seeds."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.uses: Dict[str, List[RunUse]] = {}
        self.trains = ctx.facts.is_training_entry  # it trains, or puts a model in training mode
        # It trains by the contract's list (``calls.trains``: a backward pass, an optimizer step, a
        # Trainer), here or in the project modules it calls: DET303's "training run".
        self.steps = self.trains
        self.tensorflow_trains = False  # a project module it calls takes a TensorFlow training step
        # Where the run first loads a checkpoint and first trains (run order): a checkpoint loaded
        # before training (or in a run that does not train) overwrites the initial weights; one
        # loaded after training (the best epoch's) does not.
        self._first_load: Optional[tuple] = None
        # A load under an ``if`` (a resume path): in a run that trains, a fresh run may draw its
        # weights; in one that only evaluates, the load is what the run is for.
        self._conditional_load: Optional[tuple] = None
        self._first_training: Optional[tuple] = None
        self.evaluates = False  # it puts a model in evaluation mode: no dropout when it does not train
        self.gpu = False  # it can use CUDA (DET303): its code or a project module it calls says so
        # The first op with a nondeterministic CUDA kernel a project module it calls makes, as
        # "index_add_() at model.py:40" (DET303; this module's own: ``cuda_ops``).
        self.kernel: Optional[str] = None
        self._with_workers: Optional[bool] = None  # it builds a DataLoader with worker processes
        # The libraries imported by the code it runs: this module's and the project modules' it calls.
        self.roots = set(ctx.index.imported_roots)
        self._first_reached = _first_reached(ctx)
        self._lines: Dict[int, int] = {}  # id(node) -> line, for the uses messages name
        self._local_uses()
        self._project_uses()
        for site in ctx.index.calls:
            if self._reached(site):
                # ``model.load_state_dict(...)``, ``load_param_into_net(net, params)``
                if loads_weights(site.method_name):
                    self._mark("_conditional_load" if _conditional(ctx, site) else "_first_load", site)
                call = ctx.facts.call(site)
                if _training_call(call, site):
                    self._mark("_first_training", site)
                    self.trains = True
                self.evaluates = self.evaluates or calls.to_evaluation_mode(call)
                self.gpu = self.gpu or calls.uses_gpu(call, lambda: _other_accelerator(ctx))
        for framework, uses in self.uses.items():
            uses[:] = [use for use in uses if not self._overwritten(use)]
            uses.sort(key=lambda use: use.order)

    @property
    def loads_weights(self) -> bool:
        """It loads a checkpoint before it trains, or without training."""
        load, training = self._first_load, self._first_training
        if training is None and self._conditional_load is not None:  # a run that does not train: any load counts
            load = self._conditional_load if load is None else min(load, self._conditional_load)
        return load is not None and (training is None or load <= training)

    def when(self, site: CallSite) -> tuple:
        """When ``site`` runs in the run, comparable with ``RunUse.order``."""
        return self._key(site)

    def _key(self, site: CallSite) -> tuple:
        start = site.order if site.fn is None else self._first_reached.get(id(site.fn.node), _LATE)
        return start, site.order

    def _mark(self, name: str, site: CallSite) -> None:
        key = self._key(site)
        if getattr(self, name) is None or key < getattr(self, name):
            setattr(self, name, key)

    def _overwritten(self, use: RunUse) -> bool:
        """Weights a loaded checkpoint replaces; dropout, data augmentation and the draws a model's
        forward pass makes, in a run that does not train and evaluates or loads a model (an
        evaluation, an export, a conversion: forward-time randomness there is training-only, like
        LayerDrop, or never runs; augmentation belongs to the training split)."""
        if self.loads_weights and use.what.startswith(INITIALIZES):
            return True
        if use.item and self._workers_reseed(use.framework):
            return True
        off = not self.trains and (self.evaluates or self.loads_weights)
        if use.what.startswith(AUGMENTS):
            # A model put in evaluation mode: an evaluation run, whose split switch is not seen
            # (unknown: strict mode keeps the use).  A load alone does not say so: a TF1 script
            # restores pretrained weights and trains through ``sess.run``, unseen.
            return not self.trains and self.evaluates and not self.ctx.settings.strict
        return off and (use.what.startswith(MASKS_DROPOUT) or use.forward)

    def _workers_reseed(self, framework: str) -> bool:
        """A dataset's item draws run in a DataLoader's worker processes, which torch seeds from the
        run's torch seed: ``random`` always, NumPy's global RNG from torch 1.9
        (torch/utils/data/_utils/worker.py ``_worker_loop``).  So in a run that seeds torch and
        builds its loaders with workers (``num_workers`` a literal above 0; in default mode also a
        value the run chooses, as ``args.workers``), those draws repeat on rerun."""
        if framework not in (T.RANDOM, T.NUMPY) or not self.seeded_in_run(T.TORCH):
            return False
        if framework == T.NUMPY and self.ctx.settings.torch_version < D.TORCH_RESEEDS_NUMPY_IN_WORKERS:
            return False
        if self._with_workers is None:
            self._with_workers = False
            for site in self.ctx.calls_to({D.DATALOADER}):
                workers = find_arg(site.node, "num_workers", 5)
                if workers is MISSING:
                    continue
                known, value = literal(workers) if workers is not UNKNOWN else (False, None)
                if (known and isinstance(value, int) and value > 0) or (not known and not self.ctx.settings.strict):
                    self._with_workers = True
                    break
        return self._with_workers

    # -- collecting ------------------------------------------------------------------------
    def _add(self, framework: str, site: CallSite, what: str, deferred: bool = False, where: str = "",
             local: bool = True, covered: bool = False, forward: Optional[bool] = None,
             item: Optional[bool] = None) -> None:
        if not self.ctx.settings.strict and after_an_exit(self.ctx, site):
            return  # dead code (after ``raise`` or ``assert False``): quiet by default
        seeded = self.seeded_in_run(framework) if deferred else self.seeded_at(framework, site)
        start = self._key(site)[0]
        root = self.ctx.facts.spawned_root(site.fn)
        if forward is None:  # a use in this module: in a model's forward when that is its method
            forward = site.fn is not None and site.fn.is_method and site.fn.name in MODEL_METHODS
        if item is None:  # a use in this module: in a dataset's item when that is its method
            item = site.fn is not None and site.fn.is_method and site.fn.name in DATA_METHODS
        use = RunUse(framework, site.node, (start, site.order), where, what, seeded, deferred, local, covered,
                     root.name if root is not None else None, forward, item)
        self.uses.setdefault(framework, []).append(use)

    def _reached(self, site: CallSite) -> bool:
        return self.ctx.facts.in_entry_code(site)

    def _local_uses(self) -> None:
        ctx = self.ctx
        for rule in DRAW_RULES:
            for site in rule.draws(ctx):
                if self._reached(site) and not only_feeds(ctx, site, TRACING_CALLS, TRACING_METHODS) \
                        and not fallback_seed_draw(ctx, site):  # a seed drawn when none is given: DET105's
                    verb = INITIALIZES if _builds_a_parameter(ctx, site) else "draws"
                    self._add(rule.framework, site, "%s (%s())" % (verb, ctx.spelling(site)))
        self._stochastic_uses()
        for site in ctx.calls_to(WEIGHT_LAYERS):
            if self._reached(site):
                self._add(WEIGHT_LAYERS[site.qualname], site, "%s (%s)" % (INITIALIZES, ctx.spelling(site)))
        for name, sites in ctx.calls_by_name.items():
            builder = name.startswith(TORCH_MODEL_BUILDER_PREFIXES) and name.rsplit(".", 1)[-1][:1].islower()
            if builder or name in TORCH_MODEL_BUILDERS:
                for site in sites:
                    if self._reached(site) and all(
                        find_arg(site.node, k) is MISSING or _none_or_false(find_arg(site.node, k))
                        for k in PRETRAINED_KEYWORDS
                    ):
                        self._add(T.TORCH, site, "%s (%s())" % (INITIALIZES, ctx.spelling(site)))
        for site in ctx.calls_to(LIBRARY_DRAWS):
            if self._reached(site):
                framework, what = LIBRARY_DRAWS[site.qualname]
                self._add(framework, site, "%s (%s())" % (what, ctx.spelling(site)))
        self._data_uses()

    def _stochastic_uses(self) -> None:
        from .stochastic import inert, op_seeded

        ctx = self.ctx
        for table, what in ((DROPOUT, MASKS_DROPOUT), (RANDOM_TRANSFORMS, AUGMENTS)):
            for site in ctx.calls_to(table):
                op = table[site.qualname]
                if not self._reached(site) or inert(site, op) or op_seeded(site, op):
                    continue
                applied_later = site.qualname.rsplit(".", 1)[-1][:1].isupper()
                self._add(op.framework, site, "%s (%s)" % (what, ctx.spelling(site)), deferred=applied_later)

    def _data_uses(self) -> None:
        from .dataloader import COPIED, RESEEDED, dataset_randomness
        from .generators import loaders
        from .shuffles import unseeded_shuffle

        ctx = self.ctx
        for site in ctx.index.calls:
            found = unseeded_shuffle(ctx, site) if site.method_name else None
            if found is not None and self._reached(site):
                # Drawn when the dataset is iterated, later in the run (HF's .shuffle(): at the call).
                later = not ctx.qualname(site).startswith(D.HF_DATASETS_ROOT)
                # DET203 reports it in a run that seeds its RNG (too late); in one that never does,
                # it is a cause of the RNG's seeding report.
                what = "splits the data" if site.method_name == "train_test_split" else SHUFFLES
                self._add(found[0], site, "%s (%s)" % (what, ctx.spelling(site)), deferred=later,
                          covered=self.seeded_in_run(found[0]))
        for site, call, shuffled in loaders(ctx):  # DET202's loaders: shuffling, or workers that draw
            if not shuffled and not ctx.settings.strict and \
                    dataset_randomness(ctx, call, site)[0] not in (RESEEDED, COPIED):
                continue  # workers whose dataset is not seen to draw: no use of the run by default
            if self._reached(site) and not any(arg.star == "**" for arg in call.args):  # it may come with them
                what = SHUFFLES if shuffled else SEEDS_WORKERS
                self._add(T.TORCH, site, "%s (%s)" % (what, ctx.spelling(site)), deferred=True,
                          covered=self._loader_reported(site))
        for site in ctx.calls_to(D.RANDOM_SAMPLERS):
            if self._reached(site) and find_arg(site.node, "generator", D.RANDOM_SAMPLERS[site.qualname]) is MISSING:
                self._add(T.TORCH, site, "%s (%s())" % (SAMPLES, ctx.spelling(site)),
                          deferred=site.qualname.endswith("Sampler"), covered=self._loader_reported(site))

    def _loader_reported(self, site: CallSite) -> bool:
        """DET202/DET205 report this loader or sampler themselves, with their ``generator=`` fix:
        in strict mode, and where the run's torch seed does not reach it (``generators``)."""
        from .generators import reported_by_default

        return self.ctx.settings.strict or reported_by_default(self.ctx, site, self)

    def _project_uses(self) -> None:
        from ...analysis.index import CallSite  # libcst's side: loaded with the linted file's tree

        ctx = self.ctx
        view = ctx.project
        if view is None:
            return
        for dotted, scope, fn, order in ctx.index.imports:
            # A project module's import-time code runs here (a config module building the model).
            site = CallSite(ctx.index.import_nodes[order], scope, fn, order)
            if fn is None or self._reached(site):
                effects = view.import_effects(dotted)
                if effects.unseeded:
                    self._add_effects(site, effects)
        for site in ctx.index.calls:
            if not self._reached(site):
                continue
            qualname = ctx.qualname(site)
            imported = calls.dynamic_import(qualname or "", ctx.facts.call(site))
            if imported:
                self._add_effects(site, view.import_effects(imported))
            effects = ctx.facts.project_effects(qualname, site.method_name, site)
            if effects is not None and not (effects.unseeded and fallback_seed_draw(ctx, site)):
                self._add_effects(site, effects)  # (``seed = seed or utils.random_seed()``: DET105's)
            if qualname in WRAPS_WITHOUT_CALLING:
                continue  # ``partial(train, ...)`` makes a callable; the summary's ``_passed`` agrees
            for arg in site.node.args:  # passed on: ``mp.spawn(worker)``, ``Process(target=train)``
                if isinstance(arg.value, (cst.Name, cst.Attribute)):
                    target = view.target(ctx.resolve(arg.value, site))
                    if target is not None and target.kind == "function":
                        self._add_effects(site, view.project.target_effects(target))

    def _add_effects(self, site: CallSite, effects) -> None:
        view = self.ctx.project
        self.trains = self.trains or effects.trains or effects.training_mode
        self.steps = self.steps or effects.trains
        self.tensorflow_trains = self.tensorflow_trains or effects.tensorflow_trains
        if effects.loads:
            self._mark("_first_load", site)
        elif effects.loads_if:
            self._mark("_conditional_load", site)
        if effects.trains or effects.training_mode:
            self._mark("_first_training", site)
        self.evaluates = self.evaluates or effects.evaluates
        self.gpu = self.gpu or effects.gpu
        if self.kernel is None and effects.kernel is not None:
            self.kernel = "%s at %s" % (effects.kernel.what, view.where(effects.kernel))
        self.roots.update(effects.roots)
        for deferred, part in ((False, effects.unseeded), (True, effects.deferred)):
            for framework, uses in part:
                for use in uses:
                    self._add(framework, site, use.what, deferred, where=view.where(use), local=False,
                              forward=use.forward, item=use.item)

    # -- seeding ---------------------------------------------------------------------------
    def seeded_at(self, framework: str, site: CallSite) -> bool:
        facts = self.ctx.facts
        return any(facts.seeded_at(fw, site) for fw in SEEDED_BY.get(framework, (framework,)))

    def seeded_in_run(self, framework: str) -> bool:
        """Does the run seed ``framework`` anywhere (module level or a function it reaches)?"""
        facts = self.ctx.facts
        for fw in SEEDED_BY.get(framework, (framework,)):
            for key in facts.events[fw]:
                if key is None:
                    return True
                fn = self.ctx.index.functions.get(key)
                if fn is not None and facts.reaches(fn):
                    return True
        return False

    def unseeded(self, frameworks) -> List[RunUse]:
        found = [use for fw in frameworks for use in self.uses.get(fw, ()) if not use.seeded]
        found.sort(key=lambda use: use.order)
        return found

    # -- naming ------------------------------------------------------------------------------
    def where(self, use: RunUse) -> str:
        if use.where:
            return use.where
        line = self._lines.get(id(use.node))
        if line is None:
            self._place([use])
            line = self._lines.get(id(use.node), 0)
        return "%s:%d" % (self._display_name(), line)

    def _place(self, uses) -> None:
        """Lines of the entry module's uses a message names: one regeneration for all of them."""
        self.lines_of([use.node for use in uses if not use.where])

    def lines_of(self, nodes) -> List[int]:
        """Where these nodes of the entry module start (a use, or the call that leads to one),
        placed once (positions are regenerated only for the nodes a message names)."""
        from ...positions import start_positions

        wanted = [node for node in nodes if id(node) not in self._lines]
        if wanted:
            for key, (line, _) in start_positions(self.ctx.module, wanted).items():
                self._lines[key] = line
        return [self._lines[id(node)] for node in nodes if id(node) in self._lines]

    def _display_name(self) -> str:
        ctx = self.ctx
        if ctx.project is not None:
            return ctx.project.project.relative(ctx.project.path)
        return os.path.basename(ctx.filename) if ctx.filename else "line"

    def place(self, use: RunUse) -> str:
        """``nn.Linear at models.py:12``: what the use calls, and where."""
        spelled = use.what.partition(" (")[2]
        return "%s at %s" % (spelled[:-1], self.where(use)) if spelled else self.where(use)

    def named(self, uses: List[RunUse]) -> str:
        """``initializes weights (nn.Linear at models.py:12) and masks dropout (F.dropout at
        models.py:30)``: up to ``MAX_NAMED`` uses, grouped by what they do."""
        groups: Dict[str, List[str]] = {}
        seen = set()
        self._place([use for fw in self.uses for use in self.uses[fw] if not use.seeded][: 8 * MAX_NAMED])
        for use in uses:
            verb = use.what.partition(" (")[0]
            entry = self.place(use)
            if entry in seen:
                continue
            seen.add(entry)
            groups.setdefault(verb, []).append(entry)
            if len(seen) == MAX_NAMED:
                break
        parts = ["%s (%s)" % (verb, ", ".join(entries)) for verb, entries in groups.items()]
        if len(parts) > 1:
            return ", ".join(parts[:-1]) + " and " + parts[-1]
        return parts[0] if parts else ""


_LATE = 1 << 40  # reached, but not through a call we can place (a CLI library calls it)


def _first_reached(ctx: FileContext) -> Dict[int, int]:
    """id(function node) -> the order of the first module-level statement that calls it,
    directly or through functions and classes of this module: the run's order, roughly."""
    index = ctx.index
    by_body: Dict[Optional[int], List[CallSite]] = {}
    for site in index.calls:
        by_body.setdefault(id(site.fn.node) if site.fn is not None else None, []).append(site)
    methods: Dict[int, List] = {}
    for info in index.functions.values():
        if info.is_method:
            methods.setdefault(id(info.parent_scope.node), []).append(info)
    first: Dict[int, float] = {}
    after_arguments = _after_arguments(ctx, by_body.get(None, ()))
    todo = [(None, 0)]
    while todo:
        key, start = todo.pop()
        for site in by_body.get(key, ()):
            here = after_arguments.get(id(site.node), site.order) if key is None else start
            for callee in _callees(ctx, site, methods):
                if id(callee.node) not in first or first[id(callee.node)] > here:
                    first[id(callee.node)] = here
                    todo.append((id(callee.node), here))
    return first


def _after_arguments(ctx: FileContext, sites) -> Dict[int, float]:
    """id(call) -> a place just after the calls in its arguments (``evaluate(Net())`` runs
    ``Net()`` first), for the module-level calls."""
    parents = ctx.index.parents
    end: Dict[int, float] = {}
    for site in sorted(sites, key=lambda s: -s.order):
        mine = max(end.get(id(site.node), site.order), site.order + 0.5)
        end[id(site.node)] = mine
        outer = parents.get(id(site.node))  # the index records an argument's parent as the call
        if isinstance(outer, cst.Arg):
            outer = parents.get(id(outer))
        if isinstance(outer, cst.Call):
            end[id(outer)] = max(end.get(id(outer), 0), mine)
    return end


def _callees(ctx: FileContext, site: CallSite, methods) -> List:
    """The functions of this module a call runs: the called function, or a built class's methods."""
    callee = ctx.facts.local_callee.get(id(site.node))
    if callee is not None:
        return [callee]
    klass = ctx.called_class(site)
    return list(methods.get(id(klass), ())) if klass is not None else []


def run_of(ctx: FileContext) -> Optional[Run]:
    """The entry module's run, computed once per file; None for a library module, a self-test, or
    (default mode) a timing benchmark."""
    run = getattr(ctx, "_run", False)
    if run is False:
        facts = ctx.facts
        quiet = facts.is_self_test or (facts.is_benchmark and not ctx.settings.strict)
        run = Run(ctx) if facts.is_entry and not quiet else None
        ctx._run = run
    return run


def _training_call(call: calls.Call, site: CallSite) -> bool:
    """A call that trains, or puts a model in training mode (``analysis/calls.py``)."""
    in_constructor = site.fn is not None and site.fn.is_method and site.fn.name == "__init__"
    return calls.trains(call) or calls.sets_training_mode(call, in_constructor)


def _other_accelerator(ctx: FileContext) -> bool:
    """The module names an XPU device (``f"xpu:{rank}"``): its device ids are not CUDA's."""
    found = getattr(ctx, "_xpu", None)
    if found is None:
        found = ctx._xpu = _XPU_DEVICE.search(ctx.module.code) is not None
    return found


_XPU_DEVICE = re.compile(r"""f?["']xpu(?::|["'])""")


def _builds_a_parameter(ctx: FileContext, site: CallSite) -> bool:
    """``Parameter(Tensor(np.random.normal(...)))``, ``nn.init.kaiming_normal_(conv.weight)``,
    ``m.weight.data.normal_(0, 0.02)``: the draw initializes weights (a checkpoint loaded later
    overwrites them)."""
    if (site.qualname or "").startswith(INIT_PREFIX):
        return True
    if calls.initializes_weights(ctx.facts.call(site).receiver):
        return True  # ``m.weight.data.normal_(0, 0.02)``
    node = ctx.index.parents.get(id(site.node))
    for _ in range(6):
        if isinstance(node, cst.Arg):
            node = ctx.index.parents.get(id(node))
        if not isinstance(node, cst.Call):
            return False
        func = node.func
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
        if name in PARAMETER_CLASSES:
            return True
        node = ctx.index.parents.get(id(node))
    return False


def _conditional(ctx: FileContext, site: CallSite) -> bool:
    """The call sits under an ``if`` of its function (``if args.resume: model.load_state_dict(...)``)."""
    return any(not any(branch is guard for guard in ctx.index.main_guards)
               for branch, _ in enclosing_ifs(ctx, site, site.node))


def _none_or_false(value) -> bool:
    from ...analysis.args import literal

    known, constant = literal(value)
    return known and not constant
