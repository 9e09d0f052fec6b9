"""Runtime proof for DET304's op lists on torch CPU.

DET304 reads its lists from ``tables/cuda_ops.py`` (catalog §1.1(c)).  Most
entries concern CUDA kernels, which a CPU machine cannot run, but a few show
on CPU: under ``torch.use_deterministic_algorithms(True)``, ``Tensor.put_``
with ``accumulate=False`` and ``F.max_unpool2d`` raise ``RuntimeError`` there
(torch 2.13), while ops the data lists as made deterministic by the flag run.
Each snippet is run in a fresh interpreter with the flag on, and linted: the
raising ones must be reported by default (the module turns the flag on), the
others must not be -- and the table must put each in the group reality shows.
"""

import subprocess
import sys

import pytest

from flake8_determinism.checker import check_source
from flake8_determinism.settings import Settings
from flake8_determinism.tables import cuda_ops

pytestmark = pytest.mark.slow  # the slow tier (real interpreters run flagged and fixed programs)

PRELUDE = (
    "import torch\n"
    "import torch.nn.functional as F\n"
    "torch.use_deterministic_algorithms(True)\n"
    "torch.manual_seed(0)\n"
    "x = torch.zeros(4)\n"
    "index = torch.tensor([0, 1])\n"
    "values = torch.tensor([1.0, 2.0])\n"
    "pooled, where = F.max_pool2d(torch.arange(16.0).view(1, 1, 4, 4), 2, return_indices=True)\n"
)
OP_LINE = PRELUDE.count("\n") + 1

# (statement, qualified name in the table, raises on CPU under the flag)
CASES = [
    ("x.put_(index, values)", "torch.Tensor.put_", True),
    ("F.max_unpool2d(pooled, where, 2)", "torch.nn.functional.max_unpool2d", True),
    ("x.index_put_((index,), values)", "torch.Tensor.index_put_", False),
    ("x.index_copy_(0, index, values)", "torch.Tensor.index_copy_", False),
    ("x.index_add_(0, index, values)", "torch.Tensor.index_add_", False),
    ("x.scatter_add_(0, index, values)", "torch.Tensor.scatter_add_", False),
]
IDS = [c[0].split("(")[0] for c in CASES]
VERSION = (2, 13)


def run(statement: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", PRELUDE + statement + "\n"], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("statement,name,raises", CASES, ids=IDS)
def test_runtime_matches_the_table(statement, name, raises):
    result = run(statement)
    if raises:
        assert result.returncode != 0
        assert "RuntimeError" in result.stderr and "deterministic" in result.stderr, result.stderr
    else:
        assert result.returncode == 0, result.stderr
    groups = {op.group for op in cuda_ops.names_by_version(VERSION)[name]}
    assert groups == {cuda_ops.THROWS if raises else cuda_ops.MADE_DETERMINISTIC}


@pytest.mark.parametrize("statement,name,raises", CASES, ids=IDS)
def test_linter_reports_exactly_the_raising_ops(statement, name, raises):
    settings = Settings.from_values(torch_version="2.13")
    findings = [(f.line, f.code) for f in check_source(PRELUDE + statement + "\n", settings)]
    assert ((OP_LINE, "DET304") in findings) == raises, findings


@pytest.mark.parametrize("statement,name,raises", CASES, ids=IDS)
def test_strict_reports_every_listed_op_without_the_flag(statement, name, raises):
    source = (PRELUDE + statement + "\n").replace("torch.use_deterministic_algorithms(True)\n", "")
    settings = Settings.from_values(strict=True, torch_version="2.13")
    findings = [(f.line, f.code) for f in check_source(source, settings)]
    assert (OP_LINE - 1, "DET304") in findings, findings


def test_flag_off_lets_the_raising_op_run():
    """Without the flag, put_ runs: the RuntimeError comes from the flag, as DET304's message says."""
    result = subprocess.run(
        [sys.executable, "-c", PRELUDE.replace("(True)", "(False)") + "x.put_(index, values)\n"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
