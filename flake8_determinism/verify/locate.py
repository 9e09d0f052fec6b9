"""``determinism-verify --locate``: run the command twice more with the tracer injected
(``inject/determinism_trace.py``), compare the two traces event by event, and say where the
runs first differ, what that means, and which DET codes apply.

Nothing here imports torch or NumPy: the traces are JSON written by the child processes.
"""

import json
import os
import tempfile
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence

from ..console import plural

INJECT = str(Path(__file__).with_name("inject"))
DEFAULT_STEPS = 3


class Event(NamedTuple):
    kind: str  # param | order | batch | rng | in | out | bwop | grad | update | step | exit
    name: str
    step: int
    fingerprint: object  # a hex digest, or {generator: digest} for RNG states
    where: str
    detail: str

    @property
    def key(self) -> tuple:
        return self.kind, self.name, self.step


class Trace(NamedTuple):
    events: List[Event]
    steps_done: int
    sampled: bool
    sample: int
    errors: List[str]
    cost: float
    seconds: float
    torch: Optional[str]
    start: Dict[str, str] = {}  # generator -> its state when first seen


class Finding(NamedTuple):
    """What the comparison found: a headline, the lines that explain it, the codes that match."""
    headline: str
    lines: List[str]
    codes: List[str]
    files: List[str]  # source files the explanation points into


def traced_env(base: Dict[str, str], out: str, steps: int) -> Dict[str, str]:
    env = dict(base)
    env["PYTHONPATH"] = INJECT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["DETERMINISM_TRACE_OUT"] = out
    env["DETERMINISM_TRACE_STEPS"] = str(steps)
    env.pop("DETERMINISM_TRACE_PID", None)
    return env


def trace_path(directory: str, number: int) -> str:
    return os.path.join(directory, "trace-%d.json" % number)


def new_directory() -> str:
    return tempfile.mkdtemp(prefix="determinism-locate-")


def read_trace(path: str) -> Optional[Trace]:
    """The trace a traced run wrote; None when it wrote none (it never got to Python, or ended
    with ``os._exit``)."""
    try:
        with open(path) as handle:
            raw = json.load(handle)
    except (OSError, ValueError):
        return None
    events = [Event(*event) for event in raw.get("events", ())]
    return Trace(events, raw.get("steps_done", 0), bool(raw.get("sampled")), raw.get("sample", 0),
                 list(raw.get("errors", ())), float(raw.get("cost", 0.0)), float(raw.get("seconds", 0.0)),
                 raw.get("torch"), dict(raw.get("start") or {}))


# -- comparing ----------------------------------------------------------------------------------
def first_difference(first: Trace, second: Trace):
    """(index, event in run 1, event in run 2) of the first event that differs; the weights a
    model starts from are compared first (they were built before it ran).  The two events have
    different keys when the runs took different paths; (None, None, None) when all agree."""
    ours, theirs = _in_order(first), _in_order(second)
    used = used_generators(first) | used_generators(second)
    for index, (a, b) in enumerate(zip(ours, theirs)):
        if a.key != b.key or _state(a, used) != _state(b, used):
            return index, a, b
    if len(ours) != len(theirs):
        index = min(len(ours), len(theirs))
        return index, ours[index] if index < len(ours) else None, theirs[index] if index < len(theirs) else None
    return None, None, None


def differs(first: Trace, second: Trace) -> bool:
    """Some event differs, or one run recorded events the other did not."""
    return first_difference(first, second)[0] is not None


_RNG_EVENTS = ("rng", "step", "exit")


def _in_order(trace: Trace) -> List[Event]:
    """The events as they are compared: a model's weights first (they were built before it ran)."""
    return [e for e in trace.events if e.kind == "param"] + [e for e in trace.events if e.kind != "param"]


def used_generators(trace: Trace) -> set:
    """The global RNGs the traced steps drew from: their state left the one first seen.  An RNG
    never drawn from (unseeded, so different in every run) decides nothing."""
    used = set()
    for event in trace.events:
        if event.kind in _RNG_EVENTS:
            for generator, state in event.fingerprint.items():
                if generator not in trace.start or trace.start[generator] != state:
                    used.add(generator)
    return used


def _state(event: Event, used: set):
    if event.kind in _RNG_EVENTS:
        return {k: v for k, v in event.fingerprint.items() if k in used}
    return event.fingerprint


def _differing(a: Event, b: Event, first: Trace, second: Trace) -> List[str]:
    used = used_generators(first) | used_generators(second)
    return sorted(k for k in used if a.fingerprint.get(k) != b.fingerprint.get(k))


def explain(first: Trace, second: Trace, hash_seed_only: bool = False) -> Finding:
    """The first difference of two traces, in words."""
    index, a, b = first_difference(first, second)
    steps = min(first.steps_done, second.steps_done)
    if not any(e.kind in ("in", "out") for e in first.events):
        return _no_modules(first, second)
    if a is None and b is None:
        return Finding(
            "The traced %s agree: every fingerprint matches." % plural(max(steps, 1), "step"),
            ["The runs part later: rerun with a larger --steps (the table above shows the first step"
             " whose logged value differs), or the difference comes from after the optimizer steps"
             " (evaluation, logging)."], [], [])
    if a is None or b is None or a.key != b.key:
        return _other_path(a, b)
    explainer = _EXPLAIN.get(a.kind, _explain_other)
    found = explainer(a, b, first, second, index)
    if hash_seed_only:
        found = found._replace(
            headline=found.headline + " — only when PYTHONHASHSEED differs",
            lines=["With the same PYTHONHASHSEED the traced runs agree: the order of a set or dict of"
                   " strings, or a hash() of a string, decides this (DET207, DET209)."] + found.lines,
            codes=["DET207", "DET209"] + [c for c in found.codes if c not in ("DET207", "DET209")])
    return found


def _a(noun: str) -> str:
    """``a Linear``, ``an Embedding``."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _at(event: Event) -> str:
    return "step %d" % (event.step + 1)


def _built(event: Event) -> str:
    return " built at %s" % _short(event.where) if event.where else ""


def _short(where: str) -> str:
    path, _, line = where.rpartition(":")
    try:
        shown = os.path.relpath(path)
    except ValueError:
        shown = path
    return "%s:%s" % (shown if not shown.startswith("..") else path, line)


def _files(*events: Optional[Event]) -> List[str]:
    return [e.where.rpartition(":")[0] for e in events if e is not None and e.where]


def _explain_param(a: Event, b: Event, first: Trace, second: Trace, index: int) -> Finding:
    return Finding(
        "Initial weights differ: %s, a parameter of %s%s." % (a.name, _a(a.detail or "layer"), _built(a)),
        ["The model starts from different weights in each run: torch's RNG is not seeded (or not the"
         " same way) before the model is built, or something draws from it a varying number of times"
         " first. Seed torch before building the model (torch.manual_seed(SEED)) and load the same"
         " checkpoint in both runs."],
        ["DET104", "DET100"], _files(a))


def _explain_order(a: Event, b: Event, first: Trace, second: Trace, index: int) -> Finding:
    return Finding(
        "Batch order differs: %s yields other samples at %s." % (a.name, _at(a)),
        ["run 1 takes samples %s, run 2 %s. The sampler shuffles with an RNG that is not seeded the"
         " same way (a DataLoader without generator=, a sampler drawing from an unseeded RNG), or the"
         " dataset lists its files in an order the file system chooses." % (a.detail or "?", b.detail or "?")],
        ["DET202", "DET205", "DET206", "DET207"], [])


def _explain_batch(a: Event, b: Event, first: Trace, second: Trace, index: int) -> Finding:
    ordered = _previous(first, index, "order", a.name)
    if ordered is not None:
        return Finding(
            "Batch values differ at %s: %s yields the same samples (%s) with other values." % (
                _at(a), a.name, ordered.detail or "same indices"),
            ["Loading or augmenting a sample draws from an RNG that differs between runs: a random"
             " transform or a draw in the Dataset, not reseeded in DataLoader workers, or an RNG object"
             " of its own without a seed."],
            ["DET201", "DET204", "DET103"], [])
    return Finding(
        "Batches differ at %s: %s yields other data (its sample order is not recorded: an iterable"
        " dataset)." % (_at(a), a.name),
        ["Either the order of the samples or their values differ: shuffling without a seeded RNG, or"
         " random augmentation."],
        ["DET202", "DET201", "DET204", "DET206"], [])


def _explain_rng(a: Event, b: Event, first: Trace, second: Trace, index: int) -> Finding:
    differing = _differing(a, b, first, second)
    before = _last_agreeing(first, index)
    since = " since %s %s" % (_KIND_WORDS.get(before.kind, before.kind), before.name) if before is not None else ""
    return Finding(
        "The %s state differs before %s runs (%s%s, %s)." % (
            _generators(differing), a.name, _a(a.detail), _built(a), _at(a)),
        ["Everything recorded before agrees, so something drew from %s a different number of times, or"
         " from an unseeded state,%s: an unseeded RNG, a seed that changes between runs, or a draw in"
         " code that only one run took." % (_generators(differing), since)],
        _RNG_CODES.get(differing[0], ["DET100"]) + ["DET105"], _files(a, before))


def _explain_forward(a: Event, b: Event, first: Trace, second: Trace, index: int) -> Finding:
    kind, _, mode = (a.detail or "").partition(":")
    random_layer = any(word in kind.lower() for word in ("dropout", "drop", "noise", "random"))
    if random_layer:
        lines = ["Its input and the RNG states agree, and %s draws: it is in training mode%s." % (
            _a(kind), " (model.train())" if mode == "training" else ""),
                 "Dropout at evaluation (DET403), or a random op with its own unseeded generator (DET103);"
                 " in training, seed torch and keep the same draws in both runs."]
        codes = ["DET403", "DET401", "DET103"]
    else:
        lines = ["Its input and the global RNG states agree, yet its output differs: a nondeterministic"
                 " kernel (atomic adds in index/scatter ops, cuDNN's autotuned algorithms) or a random"
                 " source of its own (an RNG object without a seed)."]
        codes = ["DET301", "DET304", "DET303", "DET103"]
    return Finding("%s's output differs at %s while its input and RNG states agree (%s%s)." % (
        a.name, _at(a), _a(kind or "module"), _built(a)), lines, codes, _files(a))


def _explain_input(a: Event, b: Event, first: Trace, second: Trace, index: int) -> Finding:
    return Finding(
        "%s gets a different input at %s, and nothing recorded before it differs (%s%s)." % (
            a.name, _at(a), _a(a.detail or "module"), _built(a)),
        ["The input comes from outside the traced modules and loaders: data made in the training"
         " loop (a random draw, a noise tensor, a random mask), or a cache read in another order."],
        ["DET100", "DET102", "DET101", "DET207"], _files(a))


def _explain_grad(a: Event, b: Event, first: Trace, second: Trace, index: int) -> Finding:
    return Finding(
        "Gradients differ at %s for %s, while every forward output agreed." % (_at(a), a.name),
        ["The backward pass is not deterministic: an op whose backward kernel accumulates with atomic"
         " adds (index_add_/scatter_add_/index_select/embedding backward, interpolate, CTC loss on CUDA)"
         " or a custom backward that draws. torch.use_deterministic_algorithms(True) makes torch"
         " raise at the op that has no deterministic version, which names it."],
        ["DET304", "DET301", "DET303"], [])


def _explain_backward_op(a: Event, b: Event, first: Trace, second: Trace, index: int) -> Finding:
    op = a.name.split(" ", 1)[0]
    return Finding(
        "The backward pass first differs at %s, %s, while every forward output agreed." % (_at(a), a.name),
        ["torch's op-level tracing (DebugMode) names the op whose output differs first: %s. A backward"
         " kernel that accumulates with atomic adds (index_add_/scatter_add_/index_select/embedding"
         " backward, interpolate, CTC loss on CUDA) or a custom backward that draws;"
         " torch.use_deterministic_algorithms(True) makes torch raise at it when it has no deterministic"
         " version." % op],
        ["DET304", "DET301", "DET303"], [])


def _explain_update(a: Event, b: Event, first: Trace, second: Trace, index: int) -> Finding:
    return Finding(
        "%s differs after the optimizer step at %s, while its gradient agreed." % (a.name, _at(a)),
        ["The optimizer's update differs: a fused or foreach kernel with atomic adds, or a stochastic"
         " optimizer step."], ["DET304"], [])


def _explain_step(a: Event, b: Event, first: Trace, second: Trace, index: int) -> Finding:
    differing = _differing(a, b, first, second)
    return Finding(
        "The %s state differs at the %s, while every module, batch and gradient agreed." % (
            _generators(differing), a.name),
        ["The training loop draws outside the traced modules and loaders (a random mask, noise, a"
         " sampled value) from an RNG that is not seeded the same way."],
        _RNG_CODES.get(differing[0], ["DET100"]) + ["DET105"], [])


def _explain_other(a: Event, b: Event, first: Trace, second: Trace, index: int) -> Finding:
    return Finding("The runs first differ at %s %s (%s)." % (a.kind, a.name, _at(a)), [], [], _files(a))


def _no_modules(first: Trace, second: Trace) -> Finding:
    ends = [e for e in first.events if e.kind == "exit"], [e for e in second.events if e.kind == "exit"]
    lines = ["No torch modules to trace (the program %s)." % (
        "uses torch without nn.Module forwards" if first.torch else "does not import torch")]
    codes: List[str] = []
    if ends[0] and ends[1]:
        a, b = ends[0][0], ends[1][0]
        differing = _differing(a, b, first, second)
        if differing:
            lines.append("At exit the %s state differs between the runs: it is not seeded, or seeded from"
                         " a value that changes." % _generators(differing))
            codes = _RNG_CODES.get(differing[0], ["DET100"]) + ["DET105"]
        else:
            lines.append("At exit the global RNG states (%s) agree: the difference comes from elsewhere (an RNG"
                         " object of its own, the clock, set or file order)." % ", ".join(sorted(a.fingerprint)))
            codes = ["DET103", "DET105", "DET206", "DET207"]
    return Finding("No modules to trace.", lines, codes, [])


def _other_path(a: Optional[Event], b: Optional[Event]) -> Finding:
    def said(event: Optional[Event]) -> str:
        return "ends" if event is None else "records %s %s at %s" % (
            _KIND_WORDS.get(event.kind, event.kind), event.name, _at(event))
    return Finding("The runs take different paths: run 1 %s where run 2 %s." % (said(a), said(b)),
                   ["Up to there every fingerprint agrees: a branch decided by a random value, the clock,"
                    " or an order (a set, a file listing)."], ["DET206", "DET207", "DET100"], _files(a, b))


def _previous(trace: Trace, index: int, kind: str, name: str) -> Optional[Event]:
    return _last_before(trace, index, lambda event: event.kind == kind and event.name == name)


def _last_agreeing(trace: Trace, index: int) -> Optional[Event]:
    return _last_before(trace, index, lambda event: event.kind in ("out", "batch", "step", "update"))


def _last_before(trace: Trace, index: int, matches) -> Optional[Event]:
    """The last event before the ``index``-th compared one that ``matches``."""
    return next((event for event in reversed(_in_order(trace)[:index]) if matches(event)), None)


def _generators(names: Sequence[str]) -> str:
    return " and ".join(_GENERATOR_NAMES.get(name, name) for name in names) or "RNG"


_GENERATOR_NAMES = {"random": "Python random", "numpy": "NumPy global RNG", "torch": "torch CPU RNG",
                    "cuda": "torch CUDA RNG"}
_RNG_CODES = {"random": ["DET101"], "numpy": ["DET102"], "torch": ["DET100"], "cuda": ["DET100"]}
_KIND_WORDS = {"out": "the output of", "batch": "the batch of", "step": "the", "update": "the update of",
               "param": "the weight", "order": "the order of", "in": "the input of", "grad": "the gradient of"}
_EXPLAIN = {"param": _explain_param, "order": _explain_order, "batch": _explain_batch, "rng": _explain_rng,
            "out": _explain_forward, "in": _explain_input, "grad": _explain_grad, "update": _explain_update,
            "step": _explain_step, "bwop": _explain_backward_op}
