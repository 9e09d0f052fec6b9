"""The module-level part of a fix: the canonical seeding block, ``SEED``, ``seed_worker``,
and a seeding helper the module already has (called, or completed).

Where: after the docstring, ``__future__`` imports and the import block, before
the first statement that does anything else (docs/contract.md).  What: exactly the
frameworks the module imports, each seeded once -- a line is left out when an
earlier one already seeds that framework (``tf.keras.utils.set_random_seed``
seeds ``random`` and NumPy too; the table is ``tables.seeding.SEEDERS``).
"""

import os
from typing import FrozenSet, List, NamedTuple, Optional, Set, Tuple

import libcst as cst

from ...analysis.args import seed_arguments
from ...analysis.nodes import calls_in, dotted_name, is_docstring
from ...tables import seeding as T
from ...tables.determinism import (
    ALGORITHMS, ALGORITHMS_WARN_ONLY, CUBLAS_CHECK_REMOVED, CUBLAS_CONFIG, CUDNN_DETERMINISTIC, TF_OP_DETERMINISM,
)
from ...tables.entry import is_declarative_call
from . import edits, installed, placement

DGL, MXNET = "dgl", "mxnet"
# Framework -> what its lines seed, the lines; in the order the block lists them (docs/contract.md).
FRAMEWORK_LINES = (
    (T.RANDOM, {T.RANDOM}, ("{random}.seed({SEED})",)),
    (T.NUMPY, {T.NUMPY}, ("{numpy}.random.seed({SEED})",)),
    (T.TORCH, {T.TORCH}, ("{torch}.manual_seed({SEED})", "{torch}.cuda.manual_seed_all({SEED})")),
    # tf.keras's helper seeds random and NumPy too; mindspore.set_seed seeds NumPy and random.
    # ``tf.random.set_seed``: every TF 2 has it (``keras.utils.set_random_seed`` needs TF >= 2.7);
    # Keras 3's seed generators draw their seeds from ``random``, which the block seeds first.
    (T.TF, {T.TF}, ("{tensorflow}.random.set_seed({SEED})",)),
    (T.MS, {T.MS, T.RANDOM, T.NUMPY}, ("{mindspore}.set_seed({SEED})",)),
    # DGL's samplers and random walks draw from its own C++ RNG, seeded only by dgl.seed
    # (include/dgl/random.h: std::random_device at construction; python/dgl/random.py).
    (DGL, {DGL}, ("{dgl}.seed({SEED})",)),
    # MXNet's initializers and dropout draw from its own RNG (mxnet/random.py ``seed``).
    (MXNET, {MXNET}, ("{mxnet}.random.seed({SEED})",)),
)
# Helpers that seed several frameworks at once, tried first (docs/contract.md's framework-native fixes).
NATIVE_HELPERS = (
    ("lightning", ("lightning.seed_everything", "lightning.pytorch.seed_everything"), "({SEED}, workers=True)"),
    ("pytorch_lightning", ("pytorch_lightning.seed_everything",), "({SEED}, workers=True)"),
    ("accelerate", ("accelerate.utils.set_seed",), "({SEED})"),
    # PyG's own (random, NumPy, torch; torch_geometric/seed.py), where the installed PyG has it.
    ("torch_geometric", ("torch_geometric.seed_everything",), "({SEED})"),
)
CUBLAS_LINE = '{os}.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")'
COMMENT = "# Reproducibility (inserted by determinism-fix)."


class ModuleEdits(NamedTuple):
    insert_at: int  # index into the module body
    lines: List[str]  # statements (templates) inserted there, in order
    after_helper: Optional[Tuple[int, str]]  # (index of a helper's def, the call inserted after it)
    helper_lines: Optional[Tuple[object, List[str]]]  # (helper def node, lines its body misses)
    defines_seed_worker: bool
    comment: str
    place: Optional[placement.Place] = None  # where the run starts: the seeding goes there
    run_lines: Tuple[str, ...] = ()  # statements (templates) inserted at ``place``
    # (the run's own seeding statement, the lines for what it misses, with its seed) inserted after it
    completion: Optional[Tuple[object, Tuple[str, ...]]] = None


def insertion_point(module: cst.Module) -> Tuple[int, int]:
    """(index after the import block, index of the first statement that is not an import,
    a ``try:`` of imports, or configuration)."""
    body = module.body
    start = 1 if body and is_docstring(body[0]) else 0
    after_imports = start
    index = start
    for index in range(start, len(body)):
        kind = statement_kind(body[index])
        if kind == "import":
            after_imports = index + 1
        elif kind != "config":
            return after_imports, index
    else:
        index = len(body)
    return after_imports, index


def statement_kind(statement) -> str:
    """"import", "config" (constants, ``sys.path.insert``, ``os.environ[...] = ...``) or "work"."""
    if isinstance(statement, cst.Try):
        lines = statement.body.body
        if all(isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, (cst.Import, cst.ImportFrom))
               for x in s.body) for s in lines):
            return "import"
        return "work"
    if not isinstance(statement, cst.SimpleStatementLine):
        return "work"
    if all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in statement.body):
        return "import"
    return "config" if all(_is_configuration(s) for s in statement.body) else "work"


def _is_configuration(small) -> bool:
    """A constant, or a call that configures (``sys.path.insert``, ``warnings.filterwarnings``,
    ``os.environ[...] = ...``): not work a seed could change."""
    if isinstance(small, (cst.Assign, cst.AnnAssign)):
        value = small.value
        return value is None or not calls_in([value]) or _configuring_call(value)
    if isinstance(small, cst.Expr):
        return _configuring_call(small.value)
    return isinstance(small, (cst.Pass, cst.Global))


def _configuring_call(node) -> bool:
    if not isinstance(node, cst.Call):
        return False
    name = dotted_name(node.func)
    method = name.rsplit(".", 1)[-1]
    return name.split(".")[0] in ("sys", "os", "warnings", "logging") or is_declarative_call(name, method)


def plan(ctx, needs: FrozenSet[str], spelling, settings, throwing_op: bool) -> ModuleEdits:
    """What to insert for ``needs`` (``fix.edits`` constants) in the module ``ctx`` describes."""
    module = ctx.module
    insert_at, first_work = insertion_point(module)
    lines: List[str] = []
    after_helper = helper_lines = completion = None
    used = used_frameworks(ctx)
    if edits.SEEDING in needs:
        used = run_frameworks(ctx)
        helper = _local_helper(ctx)
        called = helper is not None and bool(ctx.facts.callers.get(id(helper[0].node)))
        missing = []
        if helper is not None:
            fn, index, seeds, param = helper
            missing = [fw for fw, _, _ in FRAMEWORK_LINES if fw in used and fw not in seeds]
            if missing:
                helper_lines = (fn.node, [line.replace("{SEED}", param) for fw in missing for line in _lines(fw)])
        # Spawned workers import the module afresh: what the parent seeds never reaches them.
        spawned = placement.starts_in_spawned_function(ctx)
        completion = None if helper is not None or spawned else _completion(ctx, used)
        if helper is not None and missing and called:
            pass  # the script's own helper, completed, seeds everything where the script asked for it
        elif completion is not None:
            pass  # the run's own seeding, completed where it is, with its own seed
        elif helper is not None and not called and _only_definitions(module, first_work, helper[1]):
            after_helper = (helper[1], "%s({SEED})" % helper[0].name)
        else:
            lines.extend(_seeding_lines(ctx, spelling, used))
    if edits.TORCH_DETERMINISM in needs:
        lines.extend(_torch_determinism(ctx, settings, throwing_op))
    if edits.TF_DETERMINISM in needs and not ctx.facts.turns_on(TF_OP_DETERMINISM) and not is_tf1(ctx):
        lines.append(TF_DETERMINISTIC_OPS_LINE)
    place = placement.run_start(ctx) if lines or after_helper else None
    if place is None and (lines or after_helper) and _imported_in_project(ctx):
        # A guard-less module that project modules import: seeding it would seed them too.
        return ModuleEdits(insert_at, [], None, helper_lines, edits.SEED_WORKER in needs, COMMENT,
                           completion=completion)
    if place is None:
        return ModuleEdits(insert_at, lines, after_helper, helper_lines, edits.SEED_WORKER in needs, COMMENT,
                           completion=completion)
    # The run's start, not import time: importing the module leaves the importer's RNGs alone.
    run_lines = ([after_helper[1]] if after_helper else []) + lines
    if place.seed:
        run_lines = [line.replace("{SEED}", place.seed) for line in run_lines]
    return ModuleEdits(insert_at, [], None, helper_lines, edits.SEED_WORKER in needs, COMMENT, place,
                       tuple(run_lines), completion)


def _imported_in_project(ctx) -> bool:
    """Does a module of the project import this one (unknown in a tree too large: yes)?"""
    from ...analysis.project.views import importers_of

    view = ctx.project
    if view is None:
        return False
    found = importers_of(view.project, view.path)
    return found is None or bool(found)


def _completion(ctx, used) -> Optional[Tuple[object, Tuple[str, ...]]]:
    """The run seeds some RNGs itself (``torch.manual_seed(opt.seed)``, ``set_seed(args.seed)``)
    but not all it uses: the lines for the others, with the same seed, right after its last
    seeding statement -- rather than a second block with a seed of its own.  None when the
    run seeds nothing here, its seed is not a plain value, or a use comes before it."""
    from .runs import run_of

    run = run_of(ctx)
    if run is None:
        return None
    rows = _rows_to_seed(FRAMEWORK_LINES, {fw for fw in used if not _seeded_in_run(ctx, run, fw)})
    statement = _run_seeding_statement(ctx)
    if not rows or statement is None:
        return None
    node, call, site = statement
    seed = _seed_argument(ctx, call)
    if seed is None or any(use.order < run.when(site) for use in run.unseeded([fw for fw, _, _ in rows])):
        return None
    return node, tuple(line.replace("{SEED}", seed) for _, _, lines in rows for line in lines)


def _seeded_in_run(ctx, run, fw: str) -> bool:
    if fw in (DGL, MXNET):  # not one of the linter's frameworks: its seeding call, anywhere in the module
        return any(name in ("dgl.seed", "dgl.graphbolt.seed", "mxnet.random.seed") for name in ctx.calls_by_name)
    return run.seeded_in_run(fw)


def _run_seeding_statement(ctx):
    """(statement, call, call site) of the last of the first run of consecutive seeding statements
    in the run's own code: the module body, its ``__main__`` block, the function that calls."""
    # A seeding call names a seed (``torch.manual_seed``, ``set_seed``, ``init_seeds``), not a
    # ``main(args)`` that seeds somewhere inside.
    seeding = {id(site.node): site for site in ctx.index.calls
               if T.named_like_seeding(site.method_name or "")
               and ctx.facts.call_seeds(site) & set(T.FRAMEWORKS)
               and (site.fn is None or ctx.facts.reaches(site.fn))}
    if not seeding:
        return None
    for statements in _run_bodies(ctx):
        found = None
        for statement in statements:
            call = statement_call(statement)
            if call is not None and id(call) in seeding:
                found = (statement, call, seeding[id(call)])
            elif found is not None:
                break
        if found is not None:
            return found
    return None


RUN_FUNCTIONS = frozenset({"main", "run", "train", "cli", "app", "start", "launch"})


def _run_bodies(ctx):
    """Where a run starts: the module body, its ``__main__`` block, and the function that block
    calls when that is the run itself (``main()``, or one that parses the arguments) -- not a
    helper it happens to call first (a data helper that seeds its own sampling)."""
    yield ctx.module.body
    for guard in ctx.index.main_guards:
        if isinstance(guard.body, cst.IndentedBlock):
            yield guard.body.body
            called = placement.called_function(guard.body.body, ctx)
            if called is not None and (called.name.value in RUN_FUNCTIONS
                                       or placement.parsed_at(called.body.body, ctx) is not None):
                yield called.body.body


def statement_call(statement) -> Optional[cst.Call]:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            return small.value
    return None


def _seed_argument(ctx, call: cst.Call) -> Optional[str]:
    """The seed a seeding call passes, as written, when it is a plain value (a name, an
    attribute, a number, arithmetic on them): evaluating it again changes nothing."""
    arg = next(iter(seed_arguments(call)), None)
    if arg is None or arg.star or not _plain(arg.value) or not _names_a_seed(arg.value):
        return None
    return ctx.module.code_for_node(arg.value)


def _names_a_seed(value) -> bool:
    """A number, or an expression that names a seed (``args.seed``, ``SEED``, ``cfg["seed"]``,
    ``opt.manualSeed + rank``) -- not the whole namespace (``init_seeds(opt)``)."""
    if isinstance(value, cst.Integer):
        return True
    if isinstance(value, cst.BinaryOperation):
        return _names_a_seed(value.left) or _names_a_seed(value.right)
    if isinstance(value, cst.Subscript):
        return any("seed" in e.slice.value.value.lower() for e in value.slice
                   if isinstance(e.slice, cst.Index) and isinstance(e.slice.value, cst.SimpleString))
    name = value.attr.value if isinstance(value, cst.Attribute) else getattr(value, "value", "")
    return "seed" in str(name).lower()


def _plain(value) -> bool:
    if isinstance(value, (cst.Name, cst.Integer)):
        return True
    if isinstance(value, cst.Attribute):
        return _plain(value.value)
    if isinstance(value, cst.Subscript):
        return _plain(value.value) and all(
            isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.SimpleString, cst.Integer))
            for e in value.slice)
    if isinstance(value, cst.BinaryOperation):
        return _plain(value.left) and _plain(value.right)
    return False


def _seeding_lines(ctx, spelling, used) -> List[str]:
    lines: List[str] = []
    covered: Set[str] = set()
    # A helper only when something it seeds is still to seed (``LightningCLI(seed_everything_default=
    # SEED)`` seeds all of Lightning's): spelling a name imports it.
    call = (_imported_helper(ctx, spelling) or _native_helper(ctx, spelling)) if _needs_helper(used) else None
    if call is not None:
        lines.append(call[0])
        covered |= call[1]
    lines.extend(line for _, _, rows_lines in _rows_to_seed(_framework_lines(ctx), used, covered)
                 for line in rows_lines)
    return lines


def _needs_helper(used) -> bool:
    """Does a seeding helper have work here: the run uses random, NumPy or torch?"""
    return bool(set(used) & {T.RANDOM, T.NUMPY, T.TORCH})


def _rows_to_seed(table, needed, covered=frozenset()) -> List[tuple]:
    """The rows of ``table`` (``FRAMEWORK_LINES``' shape) for the frameworks of ``needed``, less
    those ``covered`` already or seeded by an earlier row: the Keras and MindSpore lines seed
    random and NumPy as well, so those lines are left out."""
    covered = set(covered)
    for fw, seeds, _ in table:
        if fw in needed and fw not in covered:
            covered |= seeds - {fw}
    return [row for row in table if row[0] in needed and row[0] not in covered]


# TensorFlow 1 code (``tf.contrib``, sessions, placeholders): ``keras.utils.set_random_seed``
# (TF >= 2.7) and ``enable_op_determinism`` (TF >= 2.8) do not exist there; ``tf.set_random_seed``
# is TF 1's graph-level seed, and it seeds nothing else.
TF1_CALLS = ("tensorflow.contrib.", "tensorflow.Session", "tensorflow.placeholder", "tensorflow.app.run",
             "tensorflow.get_variable", "tensorflow.variable_scope", "tensorflow.train.Saver",
             "tensorflow.logging.", "tensorflow.estimator.tpu.", "tensorflow.global_variables_initializer")
TF1_LINE = (T.TF, {T.TF}, ("{tf1_set_random_seed}({SEED})",))  # fix/spelling.py spells it
# Standalone Keras 3 (any backend): its own helper, which seeds the backend too.
KERAS_LINE = (T.TF, {T.TF, T.RANDOM, T.NUMPY}, ("{keras}.utils.set_random_seed({SEED})",))
# TF's op determinism as the environment variable TF 2.1+ reads (``enable_op_determinism`` needs
# TF >= 2.8; tensorflow/core/util/determinism.cc reads the variable when it was not called).
TF_DETERMINISTIC_OPS_LINE = '{os}.environ.setdefault("TF_DETERMINISTIC_OPS", "1")'
TF_V1 = "tensorflow.compat.v1"


def is_tf1(ctx) -> bool:
    """TensorFlow 1 code, or TF 2 run as TF 1 (``import tensorflow.compat.v1 as tf``)."""
    if any(dotted == TF_V1 or dotted.startswith(TF_V1 + ".") for dotted, _, _, _ in ctx.index.imports):
        return True
    return any(name.startswith(TF1_CALLS) for name in ctx.calls_by_name)


def _framework_lines(ctx):
    roots = module_level_roots(ctx)
    rows = FRAMEWORK_LINES
    if _imports_graphbolt(ctx):
        rows = tuple(GRAPHBOLT_LINE if row[0] == DGL else row for row in rows)
    if T.TF in roots and is_tf1(ctx):
        return tuple(TF1_LINE if row[0] == T.TF else row for row in rows)
    if "keras" in roots and T.TF not in roots:
        return tuple(KERAS_LINE if row[0] == T.TF else row for row in rows)
    return rows


# GraphBolt's samplers draw from an RNG of their own (``torch.ops.graphbolt.set_seed``), which
# ``dgl.seed`` does not reach: python/dgl/graphbolt/base.py ``seed``.
GRAPHBOLT_LINE = (DGL, {DGL}, ("{dgl_graphbolt}.seed({SEED})",))


def _imports_graphbolt(ctx) -> bool:
    return any(dotted.startswith("dgl.graphbolt") for dotted, _, fn, _ in ctx.index.imports if fn is None)


def run_frameworks(ctx) -> FrozenSet[str]:
    """What seeding a run covers: the frameworks the module imports and those its run uses
    through project modules, plus ``random`` and NumPy's global RNG, which libraries draw from
    without the script naming them (NumPy when it is importable here)."""
    from .runs import run_of

    from .seeding import estimator_configs, reseeding_builders

    used = set(used_frameworks(ctx)) | {T.RANDOM}
    if ctx.settings.numpy_importable:  # read once, in ``Settings``
        used.add(T.NUMPY)
    run = run_of(ctx)
    if run is not None:
        used |= set(run.uses) & set(T.FRAMEWORKS)
    if estimator_configs(ctx):
        used.discard(T.TF)  # seeded through the Estimator's RunConfig(tf_random_seed=): its own graph
    for site, _ in reseeding_builders(ctx):  # ``LightningCLI(seed_everything_default=SEED)`` seeds them
        used -= T.SEEDING_KEYWORDS[site.qualname][1]
    return frozenset(used - _lazily_imported(ctx))


def used_frameworks(ctx) -> FrozenSet[str]:
    """The frameworks the module imports at module level: one imported only inside functions
    is optional (yolov5's export imports TensorFlow only to export to it), and seeding it
    would import it at start-up."""
    roots = module_level_roots(ctx)
    used = {fw for fw in (T.RANDOM, T.NUMPY, T.TORCH, T.TF, T.MS, DGL, MXNET) if fw in roots}
    if "keras" in roots:
        used.add(T.TF)
    return frozenset(used)


def module_level_roots(ctx) -> FrozenSet[str]:
    return frozenset(dotted.lstrip(".").split(".")[0] for dotted, _, fn, _ in ctx.index.imports if fn is None)


def _lazily_imported(ctx) -> FrozenSet[str]:
    lazy = set(ctx.index.imported_roots - module_level_roots(ctx))
    if "keras" in lazy and T.TF not in module_level_roots(ctx):
        lazy.add(T.TF)
    return frozenset(lazy)


def _lines(fw: str) -> Tuple[str, ...]:
    return next(lines for name, _, lines in FRAMEWORK_LINES if name == fw)


def _local_helper(ctx):
    """A module-level function defined here that seeds and takes the seed as its first
    parameter: (info, index in the module body, frameworks it seeds, parameter name)."""
    body = ctx.module.body
    for fn in ctx.index.functions.values():
        if fn.parent_scope is not ctx.index.module_scope or not T.named_like_seeding(fn.name, strict=True):
            continue
        seeds = ctx.facts.function_seeds(fn) & set(T.FRAMEWORKS)
        params = fn.node.params.params
        if not seeds or not params:
            continue
        index = next((i for i, s in enumerate(body) if s is fn.node), None)
        if index is not None:
            return fn, index, seeds, params[0].name.value
    return None


def _only_definitions(module, start: int, end: int) -> bool:
    """Nothing between the import block and ``end`` runs work at import time."""
    return all(isinstance(s, (cst.FunctionDef, cst.ClassDef)) or statement_kind(s) != "work" for s in module.body[start:end])


def _imported_helper(ctx, spelling) -> Optional[Tuple[str, FrozenSet[str]]]:
    """A seeding helper the module imports but never calls (``from utils import set_seed``)."""
    called = set(ctx.calls_by_name)
    for qualified, local in spelling.bound.items():
        tail = qualified.rsplit(".", 1)[-1]
        if qualified in called or "." not in qualified:
            continue
        if qualified in T.SEEDERS and not qualified[0].isupper() and "Runner" not in qualified:
            seeds = T.SEEDERS[qualified]
        elif T.named_like_seeding(tail, strict=True):
            if qualified.split(".")[0] in ("torch", "numpy", "random", "tensorflow", "mindspore"):
                continue  # a framework's own seeding function: the framework lines spell it
            seeds = T.ALL_FRAMEWORKS
        else:
            continue
        workers = tail == "seed_everything" and installed.accepts(qualified, "workers", ctx.settings.frameworks)
        arguments = ", workers=True" if workers else ""
        return "%s({SEED}%s)" % (local, arguments), seeds
    return None


def _native_helper(ctx, spelling) -> Optional[Tuple[str, FrozenSet[str]]]:
    for root, candidates, arguments in NATIVE_HELPERS:
        if root not in ctx.index.imported_roots:
            continue
        if root == "torch_geometric" and not installed.accepts(candidates[0], "seed", ctx.settings.frameworks):
            continue  # PyG < 2.3 has none: the framework lines
        chosen = next((c for c in candidates if c.rsplit(".", 1)[0] in spelling.bound), candidates[0])
        if "workers=" in arguments and not installed.accepts(chosen, "workers", ctx.settings.frameworks):
            arguments = "({SEED})"  # Lightning < 1.3 has no workers=
        return spelling.name(chosen) + arguments, T.SEEDERS.get(chosen, T.SEEDERS["lightning.seed_everything"])
    if any(ctx.facts.builds_seeding_trainer(site) for site in ctx.index.calls):
        return spelling.name("transformers.set_seed") + "({SEED})", T.SEEDERS["transformers.set_seed"]
    return None


def _torch_determinism(ctx, settings, throwing_op: bool) -> List[str]:
    """cuDNN's flags, and deterministic algorithms with ``warn_only=True``: the codemod sees
    the ops of this module (``throwing_op``), not those of the libraries and project modules
    the run calls (CTC loss, reflection padding, scatter in a GNN layer), and an op without a
    deterministic kernel would stop the run with a RuntimeError; warning names each one.  The
    cuBLAS setting for a target torch < 2.10 (``--determinism-torch-version``, else the
    installed torch)."""
    facts = ctx.facts
    lines = []
    if not facts.turns_on(CUDNN_DETERMINISTIC):
        lines += ["{torch}.backends.cudnn.benchmark = False", "{torch}.backends.cudnn.deterministic = True"]
    oldest = installed.declared_floor(os.path.dirname(ctx.path), "torch") if ctx.path else None
    if oldest is not None and oldest < WARN_ONLY_ADDED:
        return lines  # the project still supports a torch whose use_deterministic_algorithms lacks warn_only
    if not (facts.turns_on(ALGORITHMS) or facts.turns_on(ALGORITHMS_WARN_ONLY)):
        if settings.torch_version < CUBLAS_CHECK_REMOVED and not facts.turns_on(CUBLAS_CONFIG):
            lines.append(CUBLAS_LINE)
        lines.append("{torch}.use_deterministic_algorithms(True, warn_only=True)")
    return lines


WARN_ONLY_ADDED = (1, 11)  # torch.use_deterministic_algorithms(mode, *, warn_only=False): torch 1.11


SEED_WORKER = """def seed_worker(worker_id):
    \"\"\"worker_init_fn: reseed the RNGs a worker copied (PyTorch's recipe).\"\"\"
    worker_seed = {torch}.initial_seed() % 2**32
"""
SEED_NUMPY = "    {numpy}.random.seed(worker_seed)\n"
SEED_RANDOM = "    {random}.seed(worker_seed)\n"
# The RNG objects a dataset holds are copied into every worker as well (DET201): reseed them too.
RESEED_OBJECTS = """    dataset = {torch}.utils.data.get_worker_info().dataset
    for name, value in vars(dataset).items():
%s"""
RESEED_NUMPY_OBJECTS = """        if isinstance(value, {numpy}.random.Generator):
            setattr(dataset, name, {numpy}.random.default_rng(worker_seed))
        elif isinstance(value, ({numpy}.random.RandomState, {random}.Random)):
            value.seed(worker_seed)
"""
RESEED_RANDOM_OBJECTS = """        if isinstance(value, {random}.Random):
            value.seed(worker_seed)
"""


def seed_worker_source(ctx, objects: bool) -> str:
    """``seed_worker``; NumPy's lines only in a module that uses NumPy."""
    numpy = T.NUMPY in ctx.index.imported_roots
    source = SEED_WORKER + (SEED_NUMPY if numpy else "") + SEED_RANDOM
    if objects:
        source += RESEED_OBJECTS % (RESEED_NUMPY_OBJECTS if numpy else RESEED_RANDOM_OBJECTS)
    return source
