"""Smoke test for ``python -m flake8_determinism.benchmark``: it runs and its report parses.

No timing assertions: the numbers depend on the machine.
"""

import importlib.metadata
import importlib.util
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # the slow tier (runs the speed benchmark)

NUMBER = r"([0-9][0-9,]*(?:\.[0-9]+)?)"


def _torchfix_installed() -> bool:
    try:
        importlib.metadata.distribution("torchfix")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@pytest.fixture(scope="module")
def report() -> str:
    if importlib.util.find_spec("torch") is None:
        pytest.skip("the default benchmark directory is the installed torch package")
    done = subprocess.run(
        [sys.executable, "-m", "flake8_determinism.benchmark", "--limit", "30", "--chunks", "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _numbers(report: str, pattern: str) -> list:
    match = re.search(pattern, report, re.MULTILINE)
    assert match, "no line matching %r in:\n%s" % (pattern, report)
    return [float(group.replace(",", "")) for group in match.groups()]


def test_header_counts_the_limited_files(report):
    files, lines = _numbers(report, r"^files: %s  lines: %s " % (NUMBER, NUMBER))
    assert files == 30
    assert lines > 0


@pytest.mark.parametrize("label", [
    "flake8 -j1 without plugin", "flake8 -j1 with DET, cold", "flake8 -j1 with DET, warm"])
def test_flake8_rows(report, label):
    pattern = r"^%s\s*: wall\s+%s s  cpu\s+%s s  peak RSS\s+%s MB" % (re.escape(label), NUMBER, NUMBER, NUMBER)
    wall, cpu, rss = _numbers(report, pattern)
    assert wall > 0 and cpu > 0 and rss > 0


@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_ratio_rows(report, cache):
    # Cold: no summaries or findings on disk yet; warm: the same command again.
    wall, cpu = _numbers(report, r"^ratio %s/without\s*: wall %sx  cpu %sx" % (cache, NUMBER, NUMBER))
    assert wall > 0 and cpu > 0


def test_torchfix_row(report):
    if _torchfix_installed():
        _numbers(report, r"^torchfix overhead\s*: wall\s+[+-]%s s" % NUMBER)
        assert re.search(r"^DET / torchfix overhead\s*: wall ", report, re.MULTILINE)
    else:
        assert re.search(r"^torchfix\s*: not installed", report, re.MULTILINE)


def test_in_process_rows(report):
    pattern = r"^files reaching libcst parse: %s / %s \(%s %%\)" % (NUMBER, NUMBER, NUMBER)
    reached, total, share = _numbers(report, pattern)
    assert total == 30 and 0 <= reached <= 30 and 0 <= share <= 100
    if reached:
        median, p95 = _numbers(report, r"median %sx  p95 %sx" % (NUMBER, NUMBER))
        assert 1.0 <= median <= p95
    _numbers(report, r"^in-process totals: precheck %s s" % NUMBER)
    (in_process,) = _numbers(report, r"^findings \(in-process\)\s*: %s" % NUMBER)
    (via_flake8,) = _numbers(report, r"^DET reports via flake8\s*: %s" % NUMBER)
    # Same files, same settings; only a ``# noqa`` in the linted code can hide a report from flake8.
    assert via_flake8 <= in_process


def test_launcher_hides_the_named_plugin():
    def versions(*flags):
        command = [sys.executable, "-m", "flake8_determinism._flake8_launcher", *flags, "--version"]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout

    assert "flake8-determinism" in versions()
    assert "flake8-determinism" not in versions("--without-determinism")
