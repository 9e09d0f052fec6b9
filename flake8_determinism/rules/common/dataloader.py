"""What DET201/DET202 share: finding DataLoaders, reading their flags, and what the dataset draws.

Flags are read from the call, with ``**kwargs`` opened when ``kwargs`` is a dict
built in the same scope (a display, ``dict(...)``, ``{**a, **b}``, a
conditional of two of them, later ``kwargs.update({...})``/``kwargs["k"] = v``).

The dataset decides whether worker seeds matter.  ``dataset_randomness`` looks at
the dataset argument when the module can see it: a class defined here (what its
methods draw from), or a torchvision dataset (what its ``transform`` is made of).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, Tuple

from ..._lazy import cst
from ...analysis.args import MISSING, UNKNOWN, constant, find_arg, is_none, literal
from ...analysis.nodes import dotted_name
from ...analysis.scopes import enclosing_class, lookup
from . import edits
from ...tables import data_order as D
from ...tables.rng_draws import MINDSPORE_DRAWS, NUMPY_LEGACY, PYTHON_RANDOM, TENSOR_METHODS, TF_DRAWS, TORCH_GLOBAL
from ...tables.seeding import TORCH
from ...tables.stochastic import DROPOUT, RANDOM_TRANSFORMS

if TYPE_CHECKING:  # only for annotations: importing them would load libcst
    from ...analysis.context import FileContext
    from ...analysis.index import CallSite

TRIGGERS = frozenset({"DataLoader"})


def might_build_dataloader(text) -> bool:
    """Pre-check: ``DataLoader`` in the text, also inside a name (``InfiniteDataLoader``, a
    subclass defined in another project module)."""
    return "DataLoader" in text.text

# What the dataset draws, from least to most: nothing; only from RNGs each worker
# reseeds (``random``, torch, NumPy's global RNG); something we cannot see (a
# transform handed in); RNGs the workers copy unchanged (RNG objects, other libraries).
NOTHING, RESEEDED, UNSEEN, COPIED = 0, 1, 2, 3


def dataloaders(ctx: FileContext) -> Iterator[CallSite]:
    """``torch.utils.data.DataLoader(...)`` however imported, classes defined here or in the
    project that subclass it (``class InfiniteDataLoader(dataloader.DataLoader)``), and a class
    chosen through a variable (``loader = DataLoader if image_weights else InfiniteDataLoader``)."""
    subclasses = ctx.local_subclasses({D.DATALOADER}) if ctx.index.classes else {}
    for site in ctx.index.calls:
        if _is_dataloader(ctx, site.node.func, site, subclasses, 0):
            yield site


def _is_dataloader(ctx: FileContext, func, site: CallSite, subclasses, depth: int,
                   keyword: Optional[str] = None) -> bool:
    """``func`` is a DataLoader class, however named; with ``keyword``: every class it may be
    takes ``keyword=`` (its own ``__init__`` with the keyword or ``**kwargs``, or DataLoader's)."""
    qualname = ctx.resolve(func, site)
    if qualname == D.DATALOADER:
        return True
    if isinstance(func, cst.Name):
        binding = lookup(site.scope, func.value, site.order)
        if binding is not None and binding.kind == "class":
            return id(binding.node) in subclasses and (keyword is None or _local_init_takes(binding.node, keyword))
        if binding is not None and binding.kind == "assign" and isinstance(binding.value, cst.IfExp) and depth < 2:
            choice = binding.value
            branches = [_is_dataloader(ctx, branch, site, subclasses, depth + 1, keyword)
                        for branch in (choice.body, choice.orelse)]
            return any(branches) if keyword is None else all(branches)
    project = ctx.project if qualname and not qualname.startswith(D.TORCH_ROOT) else None
    klass = project.class_target(qualname) if project is not None else None
    if klass is None or D.DATALOADER not in project.project.library_bases(klass):
        return False
    return keyword is None or project.project.init_takes(klass, keyword)


GENERATOR_TEMPLATE = "{torch}.Generator().manual_seed({SEED})"
GENERATOR_FROM_RUN = "{torch}.Generator().manual_seed({torch}.initial_seed())"  # after the run seeds torch


def seeded_generator(ctx: FileContext, site: CallSite) -> Tuple[str, bool]:
    """(template, applied after the run's seeding) of a ``generator=`` fix: the run's own seed,
    ``torch.initial_seed()``, once torch is seeded where the call runs; else ``SEED``, in the
    round after the run's seeding is inserted (which may then seed torch first)."""
    if ctx.facts.is_entry and ctx.facts.seeded_at(TORCH, site):
        return GENERATOR_FROM_RUN, False
    return GENERATOR_TEMPLATE, ctx.facts.is_entry


def generator_fix_withheld(ctx: FileContext, site: CallSite) -> bool:
    """No ``generator=`` fix (DET202, DET205): the call runs again and again in one run, or the
    module is one a seed answers nothing in (``seeding.seeding_changes_nothing``)."""
    from .seeding import seeding_changes_nothing

    return runs_repeatedly(ctx, site) or seeding_changes_nothing(ctx)


def runs_repeatedly(ctx: FileContext, site: CallSite, depth: int = 0) -> bool:
    """The call runs again and again in one run: inside a loop of its body, or in a function
    called from a loop (``for trial in range(n): main(args)``).  A generator seeded there with a
    fixed seed would give every epoch or trial the same order (or split): not fixed."""
    from ...analysis.body import scope_body

    body = scope_body(ctx, site)
    node = body.parents.get(id(site.node))
    while node is not None:
        if isinstance(node, (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            return True
        node = body.parents.get(id(node))
    if site.fn is None or depth >= 2:
        return False
    return any(runs_repeatedly(ctx, caller, depth + 1) for caller in ctx.facts.callers.get(id(site.fn.node), ()))


def argument_fix(ctx: FileContext, site: CallSite, call: cst.Call, keyword: str, template: str, what: str,
                 needs=()):
    """Set ``keyword`` on a ``torch.utils.data.DataLoader(...)`` call, or of a subclass (also
    one chosen through a variable) whose ``__init__`` takes it -- its own, with the keyword or
    ``**kwargs``, or DataLoader's --; not when a ``**dict`` may carry it (even as ``None``)."""
    subclasses = ctx.local_subclasses({D.DATALOADER}) if ctx.index.classes else {}
    if not _is_dataloader(ctx, site.node.func, site, subclasses, 0, keyword):
        return None
    explicit = find_arg(site.node, keyword)
    if explicit is UNKNOWN or (explicit is MISSING and find_arg(call, keyword) is not MISSING):
        return None
    return edits.set_argument(site.node, keyword, None, template, what, needs)


def _local_init_takes(klass: cst.ClassDef, keyword: str) -> bool:
    """A subclass of this module: no ``__init__`` of its own, or one taking the keyword."""
    body = klass.body.body if isinstance(klass.body, cst.IndentedBlock) else ()
    init = next((s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    if init is None:
        return len(klass.bases) == 1  # DataLoader's own (a second base could define one)
    params = init.params
    named = {p.name.value for p in (*params.params, *params.kwonly_params)}
    return keyword in named or isinstance(params.star_kwarg, cst.Param)


def flag(call, where) -> Optional[bool]:
    """True/False when the flag is certainly on/off, None when ``**kwargs`` hides it.
    A non-literal value is treated as possibly on."""
    value = find_arg(call, *where)
    if value is MISSING:
        return False
    if value is UNKNOWN:
        return None
    known, constant = literal(value)
    return bool(constant) if known else True


def uses_workers(call, site: Optional[CallSite] = None) -> Optional[bool]:
    """``num_workers=`` on; a local constant (``num_workers = 0`` above the call) is read."""
    value = find_arg(call, *D.NUM_WORKERS)
    if site is not None and isinstance(value, cst.Name):
        known, number = constant(value, site.scope, site.order)
        if known:
            return bool(number)
    return flag(call, D.NUM_WORKERS)


def says_in_order(call) -> bool:
    """``shuffle=False`` written out: the author wants the data in order (evaluation)."""
    value = find_arg(call, *D.SHUFFLE)
    return value not in (MISSING, UNKNOWN) and literal(value) == (True, False)


def shuffles(call) -> Optional[bool]:
    """Shuffling by the loader itself: ``shuffle=`` (a ``sampler=`` orders it instead)."""
    for where in (D.SAMPLER, D.BATCH_SAMPLER):
        given = find_arg(call, *where)
        if given is UNKNOWN or (given is not MISSING and not is_none(given)):
            return False
    return flag(call, D.SHUFFLE)


def lightning_seeds_workers(ctx: FileContext) -> bool:
    """``seed_everything(..., workers=True)``: Lightning injects a worker_init_fn."""
    for name, where in D.SEEDS_WORKERS.items():
        for site in ctx.calls_to({name}):
            value = find_arg(site.node, *where)
            if value not in (MISSING, UNKNOWN) and literal(value) == (True, True):
                return True
    return False


# ---------------------------------------------------------------- **kwargs


def effective_call(ctx: FileContext, site: CallSite) -> cst.Call:
    """The call with each ``**name`` replaced by the keywords of the dict ``name`` holds,
    when that dict is built in the same scope; otherwise the call unchanged."""
    call = site.node
    if not any(arg.star == "**" for arg in call.args):
        return call
    args: List[cst.Arg] = []
    for arg in call.args:
        if arg.star != "**":
            args.append(arg)
            continue
        entries = _dict_entries(ctx, arg.value, site, 0)
        if entries is None:
            return call
        args += [cst.Arg(value=value, keyword=cst.Name(key)) for key, value in entries.items()]
    return call.with_changes(args=args)


# A value of a key present in only one branch of ``a if c else b``: not a literal.
_EITHER = "one_branch_only"


def _dict_entries(ctx: FileContext, expr, site: CallSite, depth: int) -> Optional[Dict[str, object]]:
    """key -> value expression of a dict built here, or None when any part is unknown."""
    if depth > 4:
        return None
    if isinstance(expr, cst.Dict):
        entries: Dict[str, object] = {}
        for element in expr.elements:
            if isinstance(element, cst.DictElement):
                known, key = literal(element.key)
                if not (known and isinstance(key, str) and key.isidentifier()):
                    return None
                entries[key] = element.value
            else:
                inner = _dict_entries(ctx, element.value, site, depth + 1)
                if inner is None:
                    return None
                entries.update(inner)
        return entries
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "dict":
        if lookup(site.scope, "dict", site.order) is not None:
            return None
        entries = {}
        for arg in expr.args:
            if arg.keyword is not None:
                entries[arg.keyword.value] = arg.value
            elif arg.star == "**" or not arg.star:
                inner = _dict_entries(ctx, arg.value, site, depth + 1)
                if inner is None:
                    return None
                entries.update(inner)
            else:
                return None
        return entries
    if isinstance(expr, cst.IfExp):
        one = _dict_entries(ctx, expr.body, site, depth + 1)
        other = _dict_entries(ctx, expr.orelse, site, depth + 1)
        if one is None or other is None:
            return None
        merged = {}
        for key in set(one) | set(other):
            same = key in one and key in other and one[key].deep_equals(other[key])
            merged[key] = one[key] if same else cst.Name(_EITHER)
        return merged
    if isinstance(expr, cst.Name):
        binding = lookup(site.scope, expr.value, site.order)
        if binding is None or binding.kind != "assign" or binding.value is None or binding.scope is not site.scope:
            return None
        entries = _dict_entries(ctx, binding.value, site, depth + 1)
        if entries is not None and not _apply_later_changes(ctx, expr.value, binding.order, site, entries):
            return None
        return entries
    return None


def _apply_later_changes(ctx: FileContext, name: str, start: int, site: CallSite, entries) -> bool:
    """``name.update({...})``/``name.update(k=v)`` and ``name["k"] = v`` between the dict and the
    call; False when one of them adds keys we cannot read."""
    for other in ctx.index.calls:
        func = other.node.func
        if other.scope is not site.scope or not start < other.order < site.order:
            continue
        if isinstance(func, cst.Attribute) and func.attr.value == "update" and dotted_name(func.value) == name:
            for arg in other.node.args:
                if arg.keyword is not None:
                    entries[arg.keyword.value] = arg.value
                else:
                    inner = _dict_entries(ctx, arg.value, other, 0)
                    if inner is None:
                        return False
                    entries.update(inner)
    for assignment in ctx.index.assignments:
        target = assignment.target
        if assignment.scope is not site.scope or not start < assignment.order < site.order:
            continue
        if isinstance(target, cst.Subscript) and dotted_name(target.value) == name and len(target.slice) == 1:
            index = target.slice[0].slice
            known, key = literal(index.value) if isinstance(index, cst.Index) else (False, None)
            if not (known and isinstance(key, str) and key.isidentifier()):
                return False
            entries[key] = assignment.value if assignment.value is not None else cst.Name(_EITHER)
    return True


# ---------------------------------------------------------------- the dataset


MONAI_COPIED = "applies MONAI random transforms (Rand*), each holding its own RandomState"


def dataset_randomness(ctx: FileContext, call: cst.Call, site: CallSite) -> Tuple[Optional[int], str]:
    """(what the dataset draws, a phrase naming it); (None, "") when the module cannot see it."""
    dataset = find_arg(call, *D.DATASET)
    if dataset in (MISSING, UNKNOWN):
        return None, ""
    return _randomness_of(ctx, dataset, site.scope, site.order, 0)


def _randomness_of(ctx: FileContext, dataset, scope, order, depth: int) -> Tuple[Optional[int], str]:
    """Follows ``ds = MyDataset(...)``, ``train, val = random_split(ds, ...)`` to what is built."""
    if depth > 4:
        return None, ""
    if isinstance(dataset, cst.Name) and dataset.value == "self":
        klass = enclosing_class(scope)  # ``DataLoader(self, ...)`` in a Dataset's own method
        return _class_randomness(ctx, klass.node) if klass is not None else (None, "")
    if isinstance(dataset, cst.Name):
        binding = lookup(scope, dataset.value, order)
        if binding is None or binding.kind != "assign" or binding.value is None:
            return None, ""
        return _randomness_of(ctx, binding.value, binding.scope, binding.order, depth + 1)
    if isinstance(dataset, cst.IfExp):  # ``Train(...) if training else Val(...)``: the worse of the two
        return _worse(_randomness_of(ctx, dataset.body, scope, order, depth + 1),
                      _randomness_of(ctx, dataset.orelse, scope, order, depth + 1))
    if not isinstance(dataset, cst.Call):
        return None, ""
    if isinstance(dataset.func, cst.Name):
        binding = lookup(scope, dataset.func.value, order)
        if binding is not None and binding.kind == "class":
            return _class_randomness(ctx, binding.node)
        if binding is not None and binding.kind == "assign" and isinstance(binding.value, cst.IfExp):
            choice = binding.value  # ``cls = A if c else B; cls(...)``
            return _worse(*(
                _randomness_of(ctx, dataset.with_changes(func=branch), binding.scope, binding.order, depth + 1)
                for branch in (choice.body, choice.orelse)
            ))
    qualname = ctx.resolver.resolve(dataset.func, scope, order) or ""
    project = ctx.project if qualname and not qualname.startswith(D.TORCH_ROOT) else None
    klass = project.class_target(qualname) if project is not None else None
    if klass is not None:
        level, what = project_class_randomness(ctx, klass)
        if what.startswith(HANDED_IN) and not _hands_in_transform(ctx, klass, dataset):
            return NOTHING, ""  # it draws only through a transform, and none is given here
        return level, what
    if qualname in D.DATASET_WRAPPERS:  # ``random_split(ds, ...)``, ``Subset(ds, ...)``: the dataset inside
        inner = find_arg(dataset, *D.DATASET_WRAPPERS[qualname])
        if inner in (MISSING, UNKNOWN):
            return None, ""
        return _randomness_of(ctx, inner, scope, order, depth + 1)
    if qualname.startswith(D.TRANSFORMED_DATASETS):
        level = _torchvision_randomness(ctx, dataset, scope, order, keywords_only=qualname.startswith(D.PYG_DATASETS))
        return level, (MONAI_COPIED if level == COPIED else "")
    return None, ""


def _worse(one: Tuple[Optional[int], str], other: Tuple[Optional[int], str]) -> Tuple[Optional[int], str]:
    """Of two datasets a run may build, the one that draws more (not seen: None, the worst)."""
    if one[0] is None or other[0] is None:
        return None, ""
    return one if one[0] >= other[0] else other


def _class_randomness(ctx: FileContext, klass) -> Tuple[int, str]:
    classes = {id(node) for node, _, _ in ctx.index.local_ancestry(klass)}
    worst, what = NOTHING, ""
    old_torch = ctx.settings.torch_version < D.TORCH_RESEEDS_NUMPY_IN_WORKERS
    for assignment in ctx.index.assignments:
        if _method_of(assignment.fn, classes) and isinstance(assignment.value, cst.Call):
            name = ctx.resolver.resolve(assignment.value.func, assignment.scope, assignment.order)
            if name in D.RNG_OBJECTS and isinstance(assignment.target, cst.Attribute):
                return COPIED, "holds an RNG object (self.%s)" % assignment.target.attr.value
    for site in ctx.index.calls:
        if not _method_of(site.fn, classes):
            continue
        name = ctx.qualname(site) or ""
        root = name.split(".", 1)[0]
        if root in D.OTHER_RNG_ROOTS or name in TF_DRAWS or name in MINDSPORE_DRAWS or (
            old_torch and name in NUMPY_LEGACY
        ):
            return COPIED, "draws from the %s RNG" % root
        if name in _RESEEDED_DRAWS or name in RANDOM_TRANSFORMS or name in DROPOUT or (
            not name and site.method_name in TENSOR_METHODS
        ):
            worst = max(worst, RESEEDED)
        elif not name and _calls_handed_in_transform(site):
            worst, what = max(worst, UNSEEN), what or "calls a transform handed in"
    return worst, what


HANDED_IN = "calls a transform handed in"  # the summaries' phrase (analysis/project/summary.py)


def _hands_in_transform(ctx: FileContext, klass, dataset: cst.Call) -> bool:
    """Does building ``klass`` this way give it a transform: ``transform=`` (not None), ``**``, or
    a positional argument in the place of its ``__init__``'s ``transform`` parameter?"""
    project = ctx.project.project
    init = project.method(klass, "__init__")
    params = init.module.summary.get("params", {}).get(init.key) if init is not None else None
    if params is None:
        return True  # not known
    slots = [i - 1 for i, name in enumerate(params) if name in D.TORCHVISION_TRANSFORM_KEYWORDS]
    for position, arg in enumerate(dataset.args):
        if arg.star:
            return True
        if arg.keyword is not None:
            if arg.keyword.value in D.TORCHVISION_TRANSFORM_KEYWORDS and not is_none(arg.value):
                return True
        elif position in slots:
            return True
    return False


def project_class_randomness(ctx: FileContext, klass) -> Tuple[int, str]:
    """What a Dataset defined in another project module draws (its summary, bases included)."""
    worst, what = NOTHING, ""
    old_torch = ctx.settings.torch_version < D.TORCH_RESEEDS_NUMPY_IN_WORKERS
    for level, phrase, numpy in ctx.project.project.class_randomness(klass):
        if old_torch and numpy:
            level, phrase = COPIED, phrase or "draws from NumPy's global RNG (not reseeded per worker before torch 1.9)"
        if level > worst:
            worst, what = level, phrase
    where = ctx.project.project.relative(klass.module.path)
    return worst, ("%s in %s (%s)" % (what, klass.key, where)) if what else what


# Draws from the RNGs every DataLoader worker reseeds (random, NumPy's global RNG, torch).
_RESEEDED_DRAWS = PYTHON_RANDOM | NUMPY_LEGACY | TORCH_GLOBAL


def _calls_handed_in_transform(site: CallSite) -> bool:
    """``self.transform(x)``, ``transform(x)``: randomness we cannot see."""
    return any(word in site.method_name.lower() for word in D.TRANSFORM_WORDS)


def _torchvision_randomness(ctx: FileContext, dataset: cst.Call, scope, order, keywords_only: bool = False) -> int:
    """A torchvision dataset draws only through its transforms (``transform=``, or positional;
    ``keywords_only``: PyG's, whose positional arguments are names and flags)."""
    worst = NOTHING
    for position, arg in enumerate(dataset.args):
        if arg.star:
            return UNSEEN
        if arg.keyword is not None and arg.keyword.value not in D.TORCHVISION_TRANSFORM_KEYWORDS:
            continue
        if arg.keyword is None and keywords_only:
            continue
        if (arg.keyword is None and position == 0) or is_none(arg.value) or literal(arg.value)[0]:
            continue  # the root, a flag or a split name
        worst = max(worst, _transform_randomness(ctx, arg.value, scope, order, 0))
    return worst


def _transform_randomness(ctx: FileContext, expr, scope, order, depth: int) -> int:
    """A ``transforms.Compose([...])`` (through a variable) of torchvision transforms."""
    if depth > 4:
        return UNSEEN
    if isinstance(expr, cst.Name):
        binding = lookup(scope, expr.value, order)
        if binding is None or binding.kind != "assign" or binding.value is None:
            return UNSEEN
        return _transform_randomness(ctx, binding.value, binding.scope, binding.order, depth + 1)
    if not isinstance(expr, cst.Call):
        return UNSEEN
    name = ctx.resolver.resolve(expr.func, scope, order) or ""
    if name in RANDOM_TRANSFORMS:
        return RESEEDED
    last = name.rsplit(".", 1)[-1]
    if last in D.COMPOSING_TRANSFORMS and name.startswith(D.TRANSFORM_LIBRARIES):
        steps = find_arg(expr, "transforms", 0)
        if not isinstance(steps, (cst.List, cst.Tuple)):
            return UNSEEN
        return max([_transform_randomness(ctx, e.value, scope, order, depth + 1) for e in steps.elements] or [NOTHING])
    if name.startswith(D.MONAI_TRANSFORMS):
        # MONAI's random transforms hold their own RandomState, copied into every worker of a
        # plain DataLoader; the others (LoadImaged, ScaleIntensityd, ...) draw nothing.
        return COPIED if last.startswith(D.MONAI_RANDOM_PREFIX) else NOTHING
    if name.startswith(D.PYG_TRANSFORMS):
        return RESEEDED if "Random" in last or last in D.PYG_DRAWING_TRANSFORMS else NOTHING
    return NOTHING if name.startswith(D.TORCHVISION_TRANSFORMS) else UNSEEN


def _method_of(fn, classes) -> bool:
    """Is ``fn`` (or a function nested in it) a method of one of ``classes``?"""
    while fn is not None:
        if fn.is_method and id(fn.parent_scope.node) in classes:
            return True
        scope = fn.parent_scope
        while scope is not None and scope.kind not in ("function",):
            scope = scope.parent
        fn = scope.function if scope is not None else None
    return False
