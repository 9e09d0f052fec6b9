"""What one body of a project module does, in evaluation order: named records.

The summary (``summary.py``) makes them from the ``ast``; the cache stores each as a plain tuple
led by its kind's letter (``pack``: ``marshal`` takes no classes, and tuples are compact); the
project model (``model.py``) gets them back as records (``unpack``) and composes their effects.
A reference (``ref``) is a qualified name as the module spells it (``utils.set_seed``,
``.data.Images``, ``models.Net().forward``); ``#f``/``#C.m`` name the module's own definitions;
``#C^.m`` looks ``m`` up in ``C``'s bases (``super().m()``); ``?name`` is a call on an object we
cannot see, kept only when its name says ``seed``.
"""

from typing import Dict, NamedTuple, Optional, Tuple, Type


class Seed(NamedTuple):
    """Seeds these global RNGs, or turns these deterministic-mode switches on."""

    line: int
    column: int
    frameworks: Tuple[str, ...]
    guard: Optional[str] = None  # seeds only when this parameter is given (``if seed is not None:``)


class Use(NamedTuple):
    """Uses a global RNG: a draw, a layer that initialises weights, dropout, a random transform,
    a shuffling DataLoader."""

    line: int
    column: int
    framework: str
    what: str  # "initializes weights (nn.Linear)"
    deferred: bool  # it draws when applied, later (a layer or transform object)


class Call(NamedTuple):
    """Calls something the project may define."""

    line: int
    column: int
    ref: str
    # What it passes (``summary.signature``): how many positional arguments (-1: unknown), which
    # keywords, which of them are a literal False/None/0, and the string literals it passes.
    positional: int = -1
    keywords: Tuple[str, ...] = ("**",)
    off: Tuple[str, ...] = ()
    texts: Tuple[Tuple[str, str], ...] = ()
    known: bool = False  # the four fields above were read from the call

    @property
    def signature(self) -> Optional[tuple]:
        return (self.positional, self.keywords, self.off, self.texts) if self.known else None


class Passed(NamedTuple):
    """Passes a function on, to be run by someone else (``Process(target=f)``, ``fire.Fire(main)``)."""

    line: int
    column: int
    ref: str


class Import(NamedTuple):
    """Imports a module: its import-time code runs."""

    line: int
    column: int
    module: str


class Trains(NamedTuple):
    """Trains (``calls.trains``): ``.backward()``, an optimizer step, ``.fit``, a Trainer built."""

    line: int
    column: int
    tensorflow: bool = False  # a TensorFlow training step (``calls.trains_tensorflow``)


class TrainingMode(NamedTuple):
    """Puts a model in training mode (``calls.sets_training_mode``)."""

    line: int
    column: int


class Loads(NamedTuple):
    """Loads weights from a checkpoint."""

    line: int
    column: int
    conditional: bool = False  # under an ``if`` (``if args.resume:``): a fresh run may not load


class Evaluates(NamedTuple):
    """Puts a model in evaluation mode."""

    line: int
    column: int


class Works(NamedTuple):
    """Evaluates, generates or writes a result (``calls.does_work``, training aside)."""

    line: int
    column: int


class UsesGpu(NamedTuple):
    line: int
    column: int


class Times(NamedTuple):
    """Times its work (``demos.is_benchmark``: ``time.perf_counter``, ``timeit``)."""

    line: int
    column: int


class Writes(NamedTuple):
    """Writes a result (``tables.entry.writes_result``: ``save``, ``to_csv``, ``save_mesh``...)."""

    line: int
    column: int


class Kernel(NamedTuple):
    """Calls an op with a nondeterministic CUDA kernel (``kernels.ops_any_version``: the indexes
    of the ops in ``tables.cuda_ops.TORCH_OPS`` it may make, the torch version picks)."""

    line: int
    column: int
    spelled: str  # ``index_add_()``, as the messages name it
    ops: Tuple[int, ...]


_KINDS: Dict[str, Type] = {
    "S": Seed, "U": Use, "C": Call, "P": Passed, "I": Import, "T": Trains, "M": TrainingMode, "L": Loads, "E": Evaluates, "G": UsesGpu,
    "W": Works, "K": Kernel, "Z": Times, "O": Writes,
}
_LETTERS = {kind: letter for letter, kind in _KINDS.items()}
# What a branch that does not run leaves out: all it does but seeding and importing (its seeds
# stay: a seed assumed is a report left out, never one made up).
SKIPPABLE = (Use, Call, Passed, Trains, TrainingMode, Loads, Evaluates, Works, UsesGpu, Kernel, Times,
             Writes)


def pack(event) -> tuple:
    """The stored form: the kind's letter and the fields."""
    return (_LETTERS[type(event)],) + tuple(event)


def unpack(stored: tuple):
    """The record back from its stored form."""
    return _KINDS[stored[0]](*stored[1:])
