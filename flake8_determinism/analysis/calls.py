"""What a call does, answered once for every module.

The linted file is read with libcst (``analysis/index.py``), every other project module with
``ast`` (``analysis/project/summary.py``).  Both read each call into a ``Call`` of plain values
(``from_site``, ``summary.call_of``) and ask the questions here, so a line judged in the entry
script and the same line moved into a helper module get the same answer
(``tests/test_parity.py``).  Nothing here looks at a tree.
"""

from typing import Callable, FrozenSet, NamedTuple, Optional, Tuple

from ..tables import data_order as DO
from ..tables import determinism as D
from ..tables import entry as E
from ..tables import seeding as T
from ..tables.cuda_ops import TENSOR_OP_METHODS
from ..tables.rng_draws import MINDSPORE_DRAWS, NUMPY_LEGACY, PYTHON_RANDOM, TF_DRAWS, TORCH_GLOBAL
from ..tables.rng_draws import TORCH_IGNORES_GENERATOR
from ..tables.run_uses import (
    EVAL_METHODS,
    GPU_KEYWORDS,
    GPU_PICKING,
    TRAIN_MODE_METHODS,
    TRAINING_SWITCHES,
    names_gpu,
)
from ..tables.sklearn import SKLEARN_RANDOM_STATE

# The values a branch test sees for a literal argument or default that is not a string:
# ``FALSE_LITERAL`` for ``False``/``None``/``0`` (``if perturb:``, ``if perturb > 0:`` skip their
# body), ``TRUE_LITERAL`` for ``True`` or another number.  Both front ends spell a call's literals
# with them (``literal_flag``), so ``render(rays, perturb=0)`` skips the same draws in every module.
FALSE_LITERAL = "\x00false"
TRUE_LITERAL = "\x00true"


def literal_flag(value) -> Optional[str]:
    """``FALSE_LITERAL``/``TRUE_LITERAL`` for a literal's Python value (``None``, a bool, a number);
    None otherwise."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if value is None or value is False or (number and value == 0):
        return FALSE_LITERAL
    if value is True or isinstance(value, (int, float)):
        return TRUE_LITERAL
    return None


# mmengine's runners: building one starts a training run (``runner.train()`` follows).
RUNNERS = frozenset({"mmengine.runner.Runner", "mmengine.runner.Runner.from_cfg"})
# Lightning's command line: built with its default ``run=True``, it runs the subcommand (``fit``).
CLI = "LightningCLI"
# The methods whose receiver decides what the call does (``scaler.fit`` does not train, an
# optimizer's ``step`` does; a tensor's ``cumsum`` may have a nondeterministic CUDA kernel, a
# DataFrame's has none): only for these do the front ends resolve the receiver.
RECEIVER_METHODS = frozenset({"fit", "step"}) | TENSOR_OP_METHODS


class Arg(NamedTuple):
    """One argument as written: a literal's value, or the dotted name it spells."""

    known: bool  # a literal constant (``0``, ``"cuda"``, ``True``, ``None``)
    value: object  # its value when known
    spelled: str = ""  # ``args.mode`` for a name or attribute chain, "*" for ``*args``, else ""
    # A ``{"k": v}`` display or ``dict(k=v)`` call: its entries with literal string keys, in order;
    # None for anything else, or a mapping with a key that is not a literal (``**other``).
    entries: Optional[Tuple[Tuple[str, "Arg"], ...]] = None


UNKNOWN_ARG = Arg(False, None)
STARRED = Arg(False, None, "*")  # ``*args``: the positions after it are unknown


class Call(NamedTuple):
    name: str  # the qualified name (``torch.optim.Adam``, ``lightning.Trainer``); "" when unresolved
    method: str  # the called name as written: ``cuda`` in ``x.cuda()``, ``Trainer`` in ``L.Trainer()``
    is_method: bool  # called on something (``a.b()``), not a bare name
    receiver: str = ""  # the receiver as written (``self.optimizer``), "" when not a name chain
    receiver_name: str = ""  # its qualified name, resolved for ``RECEIVER_METHODS`` only
    args: Tuple[Arg, ...] = ()  # positional arguments, in order
    keywords: Tuple[Tuple[str, Arg], ...] = ()  # (keyword, value); "**" for ``**kwargs``

    def every_argument(self) -> Tuple[Arg, ...]:
        return self.args + tuple(arg for _, arg in self.keywords)


def trains(call: Call) -> bool:
    """The call trains (docs/contract.md, "training entry module"): ``.backward()``, ``.fit(`` of a
    model, an optimizer's ``.step()``, MindSpore's ``Model(...).train(epochs, data)``, or it builds a
    ``Trainer`` (Lightning, Hugging Face, trl, sentence-transformers, accelerate) or an mmengine
    ``Runner``."""
    if call.is_method:
        if call.method == "backward":
            return True
        if call.method == "fit":
            return _fits_a_model(call)
        if call.method == "step":
            return _steps_an_optimizer(call)
        if call.method == "train" and len(call.args) >= 2:
            return True
    name = _built(call)
    last = name.rsplit(".", 1)[-1]
    return (name.split(".", 1)[0] in T.TRAINER_ROOTS and last.endswith("Trainer")) or name in RUNNERS


def does_work(call: Call, roots: FrozenSet[str] = frozenset()) -> bool:
    """The call trains (``trains``, ``trains_tensorflow``: ``roots`` are the module's imported
    packages), evaluates, generates or writes a result: what makes a module whose code runs it an
    entry module (docs/contract.md "Entry module (tightened)").  Building a model, seeding,
    configuring or switching a layer's mode is not work."""
    if call.method in E.WORK_METHODS and (call.is_method or call.method == "print"):
        return True
    if call.name.rsplit(".", 1)[-1] == CLI and call.name.split(".", 1)[0] in T.TRAINER_ROOTS:
        return True
    if call.is_method and call.method == "train" and any(not arg.known for arg in call.every_argument()):
        return True  # ``estimator.train(input_fn, steps=2)``: not a mode switch (``train(True)``)
    return call.name in E.WORK_FUNCTIONS or trains(call) or trains_tensorflow(call, roots)


def may_work(method: str) -> bool:
    """Can a call of this name do work?  (Read cheaply before the call is read into values.)"""
    return method in E.WORK_METHODS or method in _WORK_LAST or may_train(method)


def may_train(method: str) -> bool:
    return method in _TRAINING_METHODS or method.endswith("Trainer") or method in _RUNNER_LAST or \
        method.startswith("from_") or method == CLI or method in D.TF_TRAINING_METHODS or \
        method == _TAPE_LAST


_WORK_LAST = frozenset(name.rsplit(".", 1)[-1] for name in E.WORK_FUNCTIONS)
_TRAINING_METHODS = frozenset({"backward", "fit", "step", "train"})
_RUNNER_LAST = frozenset(name.rsplit(".", 1)[-1] for name in RUNNERS)
_TAPE_LAST = D.TF_GRADIENT_TAPE.rsplit(".", 1)[-1]


def trains_tensorflow(call: Call, roots) -> bool:
    """A TensorFlow training step (DET306): a ``GradientTape``, or ``.fit``/``.train_on_batch``/
    ``.apply_gradients`` in a module that imports TensorFlow (``roots``: its imported packages)
    and is no JAX module (flax's ``state.apply_gradients``) nor a torch one whose ``fit`` is not
    seen to be TensorFlow's (DeepCTR-Torch's examples import TensorFlow for ``pad_sequences``)."""
    if not roots & D.TF_TRAINING_ROOTS:
        return False
    if call.name == D.TF_GRADIENT_TAPE:
        return True
    if roots & D.JAX_ROOTS and "keras" not in roots and not call.name.startswith("tensorflow.keras"):
        return False
    if "torch" in roots and "keras" not in roots and not call.name.startswith(("tensorflow", "keras")):
        return False  # ``model.fit`` of a torch wrapper, TensorFlow imported for a utility (pad_sequences)
    if call.receiver_name.startswith(_NOT_TENSORFLOW):
        return False  # ``LogisticRegression(...).fit(features, y)`` on features a TF model extracted
    return call.is_method and call.method in D.TF_TRAINING_METHODS


# Libraries whose estimators have a ``.fit`` of their own.
_NOT_TENSORFLOW = ("sklearn.", "xgboost.", "lightgbm.", "catboost.")


def sets_training_mode(call: Call, in_constructor: bool) -> bool:
    """``model.train()``, MindSpore's ``net.set_train()``, ``model.train(mode)`` with a training
    flag: the run trains a model (MindSpore's loop has no ``.backward()``).  Not in a constructor,
    where it only sets a layer's mode (a ``TrainStepWrap`` built for an export never steps), and
    not ``index.train(vectors)`` (FAISS clustering its data)."""
    if not call.is_method or call.method not in TRAIN_MODE_METHODS or in_constructor:
        return False
    arguments = call.every_argument()
    if len(arguments) != 1:
        return True
    only = arguments[0]
    if only.known:
        return bool(only.value)
    spelled = only.spelled.rsplit(".", 1)[-1].lower()
    return bool(spelled) and (spelled in TRAINING_SWITCHES or "mode" in spelled or "train" in spelled)


def to_evaluation_mode(call: Call) -> bool:
    """``model.eval()``, ``model.train(False)``, MindSpore's ``net.set_train(False)``."""
    if not call.is_method:
        return False
    arguments = call.every_argument()
    if call.method in EVAL_METHODS:
        return not arguments
    return (call.method in TRAIN_MODE_METHODS and len(arguments) == 1 and arguments[0].known
            and arguments[0].value is False)


def uses_gpu(call: Call, other_accelerator: Callable[[], bool] = lambda: False) -> bool:
    """``x.cuda()``, ``torch.cuda.*`` (not its seeding: the seeding block has it), a ``"cuda"`` or
    ``"gpu"`` argument, ``device_ids=`` (unless the module names another accelerator, an XPU), or a
    framework that picks the GPU when there is one (Lightning's and Hugging Face's ``Trainer``,
    accelerate's ``Accelerator``, mmengine's ``Runner``): the run can use CUDA (DET303).
    ``other_accelerator()`` says whether the module names an XPU device; asked only when needed."""
    name = call.name
    if call.method == "cuda" or (name.startswith("torch.cuda.") and name not in T.SEEDERS):
        return True
    name = _built(call)
    if name.startswith(GPU_PICKING) or (name.endswith("Trainer") and name.split(".", 1)[0] in T.TRAINER_ROOTS):
        return True
    for keyword, _ in call.keywords:
        if keyword in GPU_KEYWORDS:
            return not other_accelerator()  # ``DDP(model, device_ids=[f"xpu:{rank}"])``
    return any(arg.known and isinstance(arg.value, str) and names_gpu(arg.value) for arg in call.every_argument())


def _built(call: Call) -> str:
    """The class a ``from_*`` constructor builds (``Trainer.from_argparse_args(args)``), else the name."""
    if call.method.startswith("from_") and call.name.count("."):
        return call.name.rsplit(".", 1)[0]
    return call.name


def _fits_a_model(call: Call) -> bool:
    """``.fit`` trains, except on a scikit-learn object that draws nothing (``StandardScaler``)."""
    receiver = call.receiver_name or (call.name[: -len(".fit")] if call.name.endswith(".fit") else "")
    if not receiver.startswith("sklearn."):
        return True
    return receiver.replace("()", "") in SKLEARN_RANDOM_STATE


def _steps_an_optimizer(call: Call) -> bool:
    if call.receiver_name.startswith("torch.optim."):
        return True
    last = call.receiver.rsplit(".", 1)[-1].lower()
    return "optim" in last or last in ("opt", "optimiser") or last.startswith("opt_")


def argument(call: Call, keyword: Optional[str], position: Optional[int] = None) -> Optional[Arg]:
    """The argument given as ``keyword=`` or at ``position``; None when surely not given;
    ``UNKNOWN_ARG`` when ``*args``/``**kwargs`` may carry it."""
    hidden = False
    for name, arg in call.keywords:
        if name == keyword and keyword is not None:
            return arg
        hidden = hidden or name == "**"
    if position is not None:
        for index, arg in enumerate(call.args):
            if arg is STARRED:
                return UNKNOWN_ARG
            if index == position:
                return arg
    return UNKNOWN_ARG if hidden else None


# -- deterministic-mode switches (tables/determinism.py) --------------------------------------
FROM_ARGPARSE = ".from_argparse_args"
ON, OFF, WARN, UNREAD = "on", "off", "warn", "unread"
_NONE: FrozenSet[str] = frozenset()


def switches(call: Call) -> FrozenSet[str]:
    """The deterministic-mode switches running ``call`` turns on: an ``ENABLERS`` helper with its
    flag (``use_deterministic_algorithms(True)``, ``Trainer(deterministic=True)``, also through
    ``Trainer.from_argparse_args(args, deterministic=True)`` and ``TrainingArguments`` subclasses),
    an environment variable set (``os.environ.setdefault``, ``os.environ.update``), mmengine's
    ``Runner(randomness=dict(deterministic=True))``.  ``DETERMINISM_UNREAD`` when the flag is not
    a literal."""
    name = D.TRAINING_ARGUMENTS if D.is_training_arguments(call.name) else call.name
    if name.endswith(FROM_ARGPARSE):
        built = name[: -len(FROM_ARGPARSE)]
        if built in D.ENABLERS:  # the keywords go to the class it builds
            keyword = D.ENABLERS[built].keyword
            if keyword is not None and argument(call, keyword) is not None:
                return switches_for(*enabler_state(built, call))
        return _NONE
    if name in D.ENABLERS:
        return switches_for(*enabler_state(name, call))
    if name in D.ENV_SETTERS:
        return _env_switches(argument(call, "key", 0), argument(call, "value", 1))
    if name == D.ENV_UPDATE:
        found = _NONE
        for key, value in _environ_items(call):
            found = found | _env_switches(key, value)
        return found
    if name in D.MMENGINE_RUNNERS:
        return randomness_switches(argument(call, D.MMENGINE_RANDOMNESS))
    return _NONE


def may_switch(name: str) -> bool:
    """Can a call of ``name`` turn a switch on (``switches``)?  Cheap: asked of every call."""
    return (name in D.ENABLERS or name in D.ENV_SETTERS or name == D.ENV_UPDATE or name in D.MMENGINE_RUNNERS
            or name.endswith(FROM_ARGPARSE) or D.is_training_arguments(name))


def flag_state(given: Optional[Arg], on=(True,), warn=()) -> str:
    """``ON``/``WARN``/``OFF`` for a literal flag, ``UNREAD`` when not a literal; absent: ``OFF``."""
    if given is None:
        return OFF
    if not given.known:
        return UNREAD
    if given.value in warn:
        return WARN
    return ON if given.value in on or (on == (True,) and given.value is not False and bool(given.value)) else OFF


def enabler_state(name: str, call: Call) -> Tuple[str, FrozenSet[str]]:
    """(state, switches) of a call to an ``ENABLERS`` helper."""
    enabler = D.ENABLERS[name]
    state = ON
    if enabler.keyword is not None:
        state = flag_state(argument(call, enabler.keyword, enabler.position), enabler.on, enabler.warn)
    if state == ON and enabler.warn_keyword is not None:
        warn_only = flag_state(argument(call, enabler.warn_keyword))
        state = WARN if warn_only == ON else UNREAD if warn_only == UNREAD else ON
    return state, enabler.switches


def switches_for(state: str, turned: FrozenSet[str]) -> FrozenSet[str]:
    if state == ON:
        return turned
    if state == WARN:
        return (turned - {D.ALGORITHMS}) | {D.ALGORITHMS_WARN_ONLY}
    if state == UNREAD:
        return frozenset({D.DETERMINISM_UNREAD})
    return _NONE


def randomness_switches(config: Optional[Arg]) -> FrozenSet[str]:
    """mmengine's ``randomness=dict(seed=..., deterministic=True)``."""
    if config is None:
        return _NONE
    if config.entries is None:  # ``randomness=cfg.randomness``, ``dict(**other)``: not read
        return frozenset({D.DETERMINISM_UNREAD})
    value = dict(config.entries).get("deterministic")
    if value is None:
        return _NONE
    state = (ON if value.value is True else OFF) if value.known else UNREAD
    return switches_for(state, frozenset({D.ALGORITHMS, D.CUDNN_DETERMINISTIC}))


def assigned_switches(target: str, key: Optional[Arg], value: Optional[Arg]) -> FrozenSet[str]:
    """The switches an assignment turns on: ``cudnn.deterministic = True`` (``target`` the
    qualified name assigned), ``os.environ[KEY] = value`` (``target`` ``"os.environ[]"``, ``key``
    the index); ``value`` None: an augmented assignment, not read."""
    if target == D.CUDNN_DETERMINISTIC:
        state = UNREAD if value is None or not value.known else ON if value.value is True else OFF
        return switches_for(state, frozenset({D.CUDNN_DETERMINISTIC}))
    if target == D.ENVIRON + "[]":
        return _env_switches(key, value)
    return _NONE


def env_switches(name: object, value: Arg) -> FrozenSet[str]:
    """``CUBLAS_WORKSPACE_CONFIG``/``TF_DETERMINISTIC_OPS`` set to ``value``."""
    if name == D.CUBLAS_VARIABLE and (not value.known or value.value in D.CUBLAS_VALUES):
        return frozenset({D.CUBLAS_CONFIG})
    if name in D.TF_DETERMINISM_VARIABLES and (not value.known or str(value.value) not in D.TF_DETERMINISM_OFF):
        return frozenset({D.TF_OP_DETERMINISM})
    return _NONE


def _env_switches(key: Optional[Arg], value: Optional[Arg]) -> FrozenSet[str]:
    if key is None or value is None or not key.known:
        return _NONE
    return env_switches(key.value, value)


def _environ_items(call: Call):
    """(key, value) of ``os.environ.update({...})`` / ``update(KEY=value)``."""
    for name, value in call.keywords:
        if name != "**":
            yield Arg(True, name), value
    for arg in call.args:
        for name, value in arg.entries or ():
            yield Arg(True, name), value


# -- shuffles that draw their order from a global RNG (DET203, and a use of that RNG in the run) --
LIST_FILES, TF_SHUFFLE, HF_DATASETS, MINDSPORE = "list_files", "tf.data", "datasets", "mindspore"


def unseeded_shuffle(call: Call, discarded: bool = False) -> Optional[Tuple[str, str]]:
    """(the global RNG it draws its order from, which kind of shuffle) for a shuffle outside torch
    given no seed of its own: tf.data's ``list_files``/``shuffle`` (TF's seed), Hugging Face
    ``datasets``' ``shuffle``/``train_test_split`` (a seed drawn from NumPy's global RNG), a
    MindSpore dataset that shuffles by default or ``.shuffle()`` (MindSpore's dataset seed);
    None otherwise.  ``discarded``: the call is a statement of its own (``ds.shuffle(64)`` alone
    returns a new dataset and leaves this one as it was)."""
    name, method = call.name, call.method
    if not name:
        return None
    if name == DO.TF_LIST_FILES:
        if _given_false(argument(call, "shuffle", 1), hidden=False):
            return None
        return (T.TF, LIST_FILES) if _absent_or_none(call, "seed", 2) else None
    if name.startswith("tensorflow.data.") and method in DO.TF_DATASET_SHUFFLES:
        return (T.TF, TF_SHUFFLE) if _absent_or_none(call, "seed", DO.TF_DATASET_SHUFFLES[method]) else None
    if name.startswith(DO.HF_DATASETS_ROOT) and method in DO.HF_SEEDED_FROM_NUMPY:
        seed, generator, shuffle = DO.HF_SEEDED_FROM_NUMPY[method]
        if shuffle is not None and _given_false(argument(call, *shuffle)):
            return None  # ``shuffle=False``: the first rows are the train split, no draw
        if _absent_or_none(call, *seed) and _absent_or_none(call, *generator):
            return T.NUMPY, HF_DATASETS
        return None
    if name in DO.MINDSPORE_SHUFFLING_DATASETS or (name.startswith("mindspore.dataset.") and method == "shuffle"):
        if method == "shuffle":
            return None if discarded else (T.MS_DATASET, MINDSPORE)
        if _given_false(argument(call, "shuffle")):
            return None
        sampler = argument(call, "sampler")
        if sampler is UNKNOWN_ARG or (sampler is not None and not (sampler.known and sampler.value is None)):
            return None  # the sampler decides the order (``SequentialSampler()``)
        return T.MS_DATASET, MINDSPORE
    return None


def _absent_or_none(call: Call, keyword: Optional[str], position: Optional[int] = None) -> bool:
    """The argument is certainly not given, or given as ``None``."""
    given = argument(call, keyword, position)
    return given is None or (given is not UNKNOWN_ARG and given.known and given.value is None)


def _given_false(given: Optional[Arg], hidden: bool = True) -> bool:
    """A flag given as a literal ``False`` (or, when ``hidden``, possibly given by ``**kwargs``);
    absent, or written any other way (a name: the shuffle may happen), it is not."""
    if given is UNKNOWN_ARG:
        return hidden
    return given is not None and given.known and given.value is False


# -- draws from a global RNG (DET101-DET107's tables) ------------------------------------------
def global_draw(call: Call) -> Optional[str]:
    """The global RNG a library call draws from: Python's ``random`` functions, NumPy's legacy
    ``np.random.*``, torch's without ``generator=`` (``nn.init.sparse_`` ignores it), TensorFlow's
    and MindSpore's without a ``seed=`` of their own; None otherwise.  (A tensor's
    ``.uniform_()``/``.normal_()`` is judged by its receiver: the front ends ask that.)"""
    name = call.name
    if name in PYTHON_RANDOM:
        return T.RANDOM
    if name in NUMPY_LEGACY:
        return T.NUMPY
    if name in TF_DRAWS:
        return T.TF if _absent_or_none(call, "seed", TF_DRAWS[name]) else None
    if name in MINDSPORE_DRAWS:
        return T.MS if _absent_or_none(call, "seed") else None
    if name in TORCH_GLOBAL and (name in TORCH_IGNORES_GENERATOR or argument(call, "generator") is None):
        return T.TORCH
    return None


# Calls that import the module they name (a config runner loading ``configs.exp``); the pre-check
# looks for them in modules that import importlib (``views.imports_project_module``).
IMPORTERS = frozenset({"importlib.import_module", "__import__"})


def dynamic_import(name: str, call: Call) -> str:
    """``importlib.import_module("configs.exp")``: the module a call imports by a literal name
    ("" for any other call, or a name that is not a literal)."""
    if name not in IMPORTERS or not call.args or not call.args[0].known or not isinstance(call.args[0].value, str):
        return ""
    return call.args[0].value


# A tensor drawn into in place through one of these attributes is a layer's weights being
# initialized (``m.weight.data.normal_(0, 0.02)``): a checkpoint loaded later overwrites it.
WEIGHT_ATTRIBUTES = frozenset({"weight", "bias"})


def initializes_weights(receiver: str) -> bool:
    """Is an in-place draw on ``receiver`` (as written: ``m.weight.data``) a weight initialization?"""
    return any(part in WEIGHT_ATTRIBUTES or part.endswith(("_weight", "_bias")) for part in receiver.split("."))


def fallback_seed(target: str, alternative: str = "", test: str = "") -> bool:
    """An assignment to ``target`` that draws a seed only when none is given (docs/contract.md: one
    cause, DET105's at the draw, never also DET101/DET102): ``seed = seed or draw()``
    (``alternative``: the left of the ``or``), ``seed = draw() if seed is None else seed`` or
    ``if seed is None: seed = draw()`` (``test``: the condition's text).  Both front ends ask it."""
    if "seed" not in target.lower():
        return False
    return alternative == target or (bool(test) and target in test)
