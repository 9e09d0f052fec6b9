"""Self-tests: modules whose ``__main__`` block tries their own code on random inputs.

A self-test is a module that defines functions or classes and whose ``__main__``
block draws random inputs to try them (``img = torch.randn(1, 3, 224, 224);
print(ViT(...)(img).shape)``), while its entry code neither trains (a single
``.backward()`` to check gradients is allowed) nor writes a result: a smoke test
kept beside a library, random on purpose.  Its ``__main__`` block is treated
like test code and its functions as library code (the scope policy); strict
mode reports them as usual.  Tables: ``tables/entry.py``.

A script that trains on data it makes up (``x = torch.randn(...)`` in the
training loop) is *not* a self-test: that is the plainest unseeded training
script there is.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple, Set

from .._lazy import cst
from ..tables.entry import (
    BENCHMARK_FOLDERS, BENCHMARK_NAME, DISPLAY_METHODS, DISPLAYS, times_work, writes_result,
)
from ..tables.rng_draws import RANDOM_INPUTS, TENSOR_METHODS
from ..tables.run_uses import loads_weights
from .calls import to_evaluation_mode
from .nodes import calls_in
from .project.layout import isfile


def main_block_calls(index) -> Set[int]:
    """Ids of the calls inside the module's ``__main__`` blocks."""
    return calls_in(guard.body for guard in index.main_guards)


def is_self_test(facts, main_calls: Set[int]) -> bool:
    """The ``__main__`` block of a module that defines code tries it -- on random inputs, or
    showing nothing but shapes (``print(model(x).shape)``) -- and neither trains nor writes
    a result."""
    index = facts.index
    if not index.main_guards:
        return False
    in_main = [site for site in index.calls if id(site.node) in main_calls]
    # ``if __name__ == "__main__": test()``: the module's own test function the block calls is
    # the block (not ``main()``: that is the run).
    called = {id(fn.node) for fn in (facts.local_callee.get(id(site.node)) for site in in_main)
              if fn is not None and fn.parent_scope is index.module_scope and _TEST_FUNCTION.match(fn.name)}
    in_main += [site for site in index.calls if site.fn is not None and id(site.fn.node) in called]
    if not any(_draws_input(facts, site) for site in in_main) and \
            not _shows_only_shapes(in_main, _main_assignments(index)):
        return False
    if not _defines_code(index):
        return False
    if facts.trains(backward_counts=False):
        return False
    return not any(writes_result(site.method_name or "") and facts.reaches(site.fn) for site in index.calls)


_TEST_FUNCTION = re.compile(r"_?(test|demo|smoke|sanity|check)(_|$)", re.IGNORECASE)
# What a value's shape and type are, whatever the RNG drew: a parameter count included
# (``sum(p.numel() for p in model.parameters())``).
_SHAPE_ATTRIBUTES = frozenset({"shape", "dtype", "size", "ndim", "device", "numel"})
_SHAPE_CALLS = frozenset({"len", "type", "str"})


def _main_assignments(index) -> dict:
    """``name -> value`` of the plain assignments in the ``__main__`` blocks (the last wins)."""
    found = {}
    for guard in index.main_guards:
        for statement in guard.body.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                        and isinstance(small.targets[0].target, cst.Name):
                    found[small.targets[0].target.value] = small.value
    return found


def _shows_only_shapes(in_main, assigned) -> bool:
    """The block prints, and everything it prints is a shape, a size, a type, a parameter count or
    a constant (directly or through a variable the block assigned): the values it computes are
    never shown (a smoke test of the module's code)."""
    prints = _prints(in_main)
    return bool(prints) and _prints_only_shapes(prints, assigned)


def _prints(sites) -> list:
    return [site for site in sites if isinstance(site.node.func, cst.Name) and site.node.func.value == "print"]


def _prints_only_shapes(prints, assigned) -> bool:
    return all(_shape_like(arg.value, assigned) for site in prints for arg in site.node.args)


def _shape_like(expr, assigned=None, depth: int = 0) -> bool:
    assigned = assigned or {}
    if depth > 4:
        return False

    def like(part) -> bool:
        return _shape_like(part, assigned, depth + 1)

    if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in assigned and like(assigned[expr.value])
    if isinstance(expr, cst.FormattedString):
        return all(like(part.expression) for part in expr.parts if isinstance(part, cst.FormattedStringExpression))
    if isinstance(expr, cst.BinaryOperation):
        return like(expr.left) and like(expr.right)
    if isinstance(expr, cst.Attribute):
        return expr.attr.value in _SHAPE_ATTRIBUTES
    if isinstance(expr, cst.Subscript):
        return like(expr.value)  # ``x.shape[0]``
    if isinstance(expr, cst.Call):
        func = expr.func
        if isinstance(func, cst.Attribute):
            return func.attr.value in _SHAPE_ATTRIBUTES
        if isinstance(func, cst.Name) and func.value == "sum" and len(expr.args) == 1 \
                and isinstance(expr.args[0].value, cst.GeneratorExp):
            return like(expr.args[0].value.elt)  # ``sum(p.numel() for p in net.parameters())``
        return isinstance(func, cst.Name) and func.value in _SHAPE_CALLS
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(like(e.value) for e in expr.elements)
    return False


def _defines_code(index) -> bool:
    """The module defines a function or class at module level: a library with a demo, not a
    script that is all ``__main__`` block."""
    module = index.module_scope
    return any(info.parent_scope is module for info in index.functions.values()) or any(
        body.parent is module for _, body, _ in index.classes
    )


def _draws_input(facts, site) -> bool:
    if facts.qualname(site) in RANDOM_INPUTS:
        return True
    func = site.node.func
    return (
        isinstance(func, cst.Attribute)
        and func.attr.value in TENSOR_METHODS
        and "torch" in facts.index.imported_roots
    )


def is_benchmark(facts, filename: str) -> bool:
    """A program nobody reruns for its numbers: a timing benchmark, named so (``bench_gcn.py``,
    ``speed_test.py``), under a ``benchmarks/`` folder, or a script whose run times its work
    (``time.perf_counter``, ``timeit``, ``torch.utils.benchmark``) -- its output is a time, which
    no seed makes repeatable; or a viewer whose only output is a picture shown on the screen.
    Neither trains nor saves a result."""
    parts = re.split(r"[\\/]", filename or "")
    name = parts[-1].rsplit(".", 1)[0] if parts else ""
    if BENCHMARK_NAME.search(name) or any(part.lower() in BENCHMARK_FOLDERS for part in parts[:-1]):
        return True
    reached = [site for site in facts.index.calls if facts.reaches(site.fn)]
    work = _work(facts, reached)
    if work.writes or work.trains:
        return False
    return work.times or _only_shows(facts, reached)


def is_library_demo(facts, path: str) -> bool:
    """The ``__main__`` block of a package's module (its folder holds ``__init__.py``) that
    defines code, and neither trains nor writes a result, directly or through the project
    functions it calls: a demo or check of library code (a viewer of the dataset class, a model
    built and printed), which nobody reruns for its numbers.  A package's training script
    (``basicsr/train.py``) trains; its data preparation (``create_infos``) writes."""
    if not facts.index.main_guards or not path or path in ("-", "stdin"):
        return False
    if not isfile(os.path.join(os.path.dirname(os.path.abspath(path)), "__init__.py")):  # witnessed
        return False
    if not _defines_code(facts.index):
        return False
    reached = [site for site in facts.index.calls if facts.reaches(site.fn)]
    work = _work(facts, reached)
    # An evaluation script (a model put in evaluation mode, or weights loaded): its printed
    # metric is a result.
    return not (work.writes or work.trains or work.evaluates)


class _Work(NamedTuple):
    times: bool
    writes: bool
    trains: bool
    evaluates: bool  # a model put in evaluation mode, or weights loaded


def _work(facts, reached) -> _Work:
    """What the reached calls do, with what the project functions they call do (the summaries'
    Times/Writes/trains/Evaluates/Loads): one pass over their effects."""
    times = any(times_work(facts.qualname(site) or "") for site in reached)
    writes = any(writes_result(site.method_name or "") for site in reached)
    evaluates = any(loads_weights(site.method_name or "") or to_evaluation_mode(facts.call(site)) for site in reached)
    trains = facts.trains()
    for site in reached:
        effects = facts.project_effects(facts.qualname(site), site.method_name or "", site)
        if effects is not None:
            times, writes, trains = times or effects.times, writes or effects.writes, trains or effects.trains
            evaluates = evaluates or effects.evaluates or effects.loads
    return _Work(times, writes, trains, evaluates)


def _only_shows(facts, reached) -> bool:
    """The run shows a picture (``plt.show()``, ``cv2.imshow``) and prints nothing but constants
    and shapes: a viewer, whose output is on the screen (the caller has checked that it neither
    trains nor writes a result)."""
    shows = False
    for site in reached:
        name = facts.qualname(site) or ""
        if name in DISPLAYS or (site.method_name in DISPLAY_METHODS and name.startswith(("matplotlib", "cv2"))):
            shows = True
        elif site.method_name in DISPLAY_METHODS and not name and _plotting_receiver(site):
            shows = True
    return shows and _prints_only_shapes(_prints(reached), {})


def _plotting_receiver(site) -> bool:
    """``plt.imshow(...)``, ``ax.imshow(...)``, ``fig.show()``: a figure or its axes."""
    func = site.node.func
    receiver = func.value if isinstance(func, cst.Attribute) else None
    return isinstance(receiver, cst.Name) and receiver.value in ("plt", "ax", "axes", "fig", "figure", "pylab")
