"""The metric values one run printed.

A *step* is one output line the metric regex matches and that carries a value: the
``value`` group when the regex has one, else the first number after the match.  Steps
are numbered from 0 in output order, stdout's lines first, then stderr's: the order of
lines within one stream is the program's, while how the two interleave depends on
buffering, which differs between runs.  A line a terminal would overwrite (``\\r``, as
progress bars write) counts as what the terminal finally shows.
"""

import math
import re
from typing import List, NamedTuple, Optional, Pattern

DEFAULT_METRIC = r"(?i)loss"
# A number as logs print it: 0.6931, -1, .5, 6.9e-01, nan, inf; not digits inside a name
# ("loss_fn2") or after a decimal point already passed.
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|(?i:nan|inf(?:inity)?)\b)")


class Step(NamedTuple):
    text: str  # the value as printed
    value: Optional[float]  # None when the text is not a number (only with --exact)
    line: str  # the whole line, for the report
    stream: str  # "stdout" | "stderr"
    lineno: int  # 1-based, within its stream


class MetricError(ValueError):
    """A value the comparison cannot use: the message says which line and what to do."""


def visible_lines(output: str) -> List[str]:
    """The lines of ``output`` as a terminal finally shows them (``\\r`` overwrites)."""
    lines = []
    for line in output.split("\n"):
        segments = [segment for segment in line.split("\r") if segment.strip()]
        lines.append(segments[-1] if segments else "")
    if lines and lines[-1] == "":
        lines.pop()  # the text after the final line break
    return lines


def value_of(metric: Pattern, line: str) -> Optional[str]:
    """The value text the metric finds on ``line``, or None."""
    match = metric.search(line)
    if match is None:
        return None
    if "value" in metric.groupindex:
        return match.group("value")
    number = NUMBER.search(line, match.end())
    return number.group() if number else None


def to_float(text: str) -> Optional[float]:
    try:
        return float(text)
    except ValueError:
        return None


def extract(metric: Pattern, stdout: str, stderr: str, exact: bool) -> List[Step]:
    """The steps of one run.  Without ``exact`` every value must be a number."""
    steps = []
    for stream, output in (("stdout", stdout), ("stderr", stderr)):
        for lineno, line in enumerate(visible_lines(output), 1):
            text = value_of(metric, line)
            if text is None:
                continue
            value = to_float(text)
            if value is None and not exact:
                raise MetricError(
                    "the metric's value %r on %s line %d is not a number: %r; compare text with --exact, or put"
                    " (?P<value>...) around the number" % (text, stream, lineno, line.strip()))
            steps.append(Step(text, value, line.strip(), stream, lineno))
    return steps


def same_value(value: float, reference: float, atol: float, rtol: float) -> bool:
    """``numpy.isclose(value, reference, atol, rtol, equal_nan=True)`` without numpy: a
    run that gives NaN at the same step each time is reproducible."""
    if math.isnan(value) or math.isnan(reference):
        return math.isnan(value) and math.isnan(reference)
    if math.isinf(value) or math.isinf(reference):
        return value == reference
    return abs(value - reference) <= atol + rtol * abs(reference)


def is_step(metric: Pattern, line: str) -> bool:
    """Whether one raw output line counts as a step (for live progress)."""
    shown = visible_lines(line)
    return bool(shown) and value_of(metric, shown[-1]) is not None
