"""The runs step by step: which steps agree, the first that does not, and what that says.

The criterion is the MindSpore guide's: ``numpy.allclose(atol=1e-3)`` (rtol keeps numpy's
default, 1e-5), each run against the first.  The first step's loss is computed by the
forward pass alone; the second's also depends on the first backward pass and update, and
on the second batch; so where the runs first diverge says where to look.
"""

import math
from typing import List, NamedTuple, Optional, Sequence

from .metrics import Step, same_value


class Tolerance(NamedTuple):
    atol: float = 1e-3
    rtol: float = 1e-5
    exact: bool = False  # compare the printed text instead

    def describe(self) -> str:
        if self.exact:
            return "identical text"
        return "allclose(atol=%g, rtol=%g)" % (self.atol, self.rtol)


class StepRow(NamedTuple):
    index: int
    steps: Sequence[Optional[Step]]  # per run; None where that run logged fewer steps
    max_diff: Optional[float]  # largest |run k - run 1|; None when a value is missing or not a number
    agrees: bool


class Comparison(NamedTuple):
    rows: List[StepRow]
    lengths: List[int]  # steps per run

    @property
    def divergent(self) -> List[StepRow]:
        return [row for row in self.rows if not row.agrees]

    @property
    def reproducible(self) -> bool:
        return not self.divergent


def compare(runs: Sequence[Sequence[Step]], tolerance: Tolerance) -> Comparison:
    lengths = [len(steps) for steps in runs]
    rows = []
    for index in range(max(lengths)):
        steps = [steps[index] if index < len(steps) else None for steps in runs]
        rows.append(StepRow(index, steps, _max_diff(steps), _agrees(steps, tolerance)))
    return Comparison(rows, lengths)


def _agrees(steps: Sequence[Optional[Step]], tolerance: Tolerance) -> bool:
    if any(step is None for step in steps):
        return False
    reference = steps[0]
    if tolerance.exact:
        return all(step.text == reference.text for step in steps)
    return all(same_value(step.value, reference.value, tolerance.atol, tolerance.rtol) for step in steps)


def _max_diff(steps: Sequence[Optional[Step]]) -> Optional[float]:
    if any(step is None or step.value is None for step in steps):
        return None
    reference = steps[0].value
    diffs = []
    for step in steps[1:]:
        if math.isnan(step.value) and math.isnan(reference) or step.value == reference:
            diffs.append(0.0)  # also inf == inf, where the subtraction gives nan
        else:
            diffs.append(abs(step.value - reference))
    return max(diffs)


def diagnose(comparison: Comparison) -> Optional[str]:
    """One line on where the runs first diverge, or None when they agree."""
    divergent = comparison.divergent
    if not divergent:
        return None
    first = divergent[0].index
    if first >= min(comparison.lengths):
        counts = ", ".join("run %d: %d" % (number, length) for number, length in enumerate(comparison.lengths, 1))
        return ("%s, then the runs logged different numbers of steps (%s): they stopped at different points —"
                " early stopping, a time limit or a loop that depends on random values" % (_matching(first), counts))
    if first == 0:
        return "step 0 differs: the forward pass is not deterministic — seeding or data"
    if first == 1:
        return "step 0 matches, step 1 differs: backward pass or data order"
    return ("%s, step %d differs: the start is deterministic; look at what changes later — a later epoch's data"
            " order, randomness drawn mid-training, or a nondeterministic kernel whose error accumulates"
            " (cuDNN autotuning, atomic adds on the GPU)" % (_matching(first), first))


def _matching(first: int) -> str:
    if first == 0:
        return "no step was logged by every run"
    return "step 0 matches" if first == 1 else "steps 0–%d match" % (first - 1)
