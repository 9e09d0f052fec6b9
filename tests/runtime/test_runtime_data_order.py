"""Runtime proof for the data-order rules (DET202, DET204, DET205, DET207).

These rules claim that a piece of code makes the order or content of the data
nondeterministic even when the program "is seeded". That claim is only worth
something if real torch/Python behaves that way, so for each rule this file
runs a flagged snippet and its fixed variant in fresh interpreters and
compares what they print:

* DET204: a numpy Generator held by a Dataset is copied into every DataLoader
  worker, so all workers draw the same "random" numbers.
* DET202: ``DataLoader(shuffle=True)`` without ``generator=`` takes its
  shuffle seed from the global torch RNG, so one more random draw elsewhere
  (e.g. a model layer added) silently changes the data order.
* DET205: ``random_split`` without ``generator=`` has the same problem for
  the train/validation split.
* DET207: iterating a ``set`` of strings gives an order that depends on
  ``PYTHONHASHSEED``, i.e. changes from one run to the next.

The ``test_linter_*`` functions check that the linter flags the same snippets
(and not their fixes). They are kept apart from the ``test_runtime_*``
functions so the runtime proof stands on its own whatever the linter does.
"""

import functools
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from flake8_determinism.checker import check_source
from flake8_determinism.settings import Settings

pytestmark = pytest.mark.slow  # the slow tier (real interpreters run flagged and fixed programs)

# --------------------------------------------------------------------------
# Snippets: the exact text that is both linted and run.
# --------------------------------------------------------------------------

# DET204: the Dataset's Generator is copied (forked or pickled) into each
# worker with the same state. Each item reports which worker drew it so the
# per-worker sequences can be compared.
DET204_FLAGGED = '''\
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class NoisyDataset(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return get_worker_info().id, float(self.rng.random())


if __name__ == "__main__":
    torch.manual_seed(0)
    loader = DataLoader(NoisyDataset(), batch_size=1, num_workers=2)
    draws = {}
    for worker_id, value in loader:
        draws.setdefault(int(worker_id.item()), []).append(value.item())
    for worker_id in sorted(draws):
        print(f"{worker_id}: {draws[worker_id]!r}")
'''

# Fix: reseed each worker's copy from the per-worker torch seed, which torch
# derives from the (seeded) main process, so it differs per worker yet
# reproduces from run to run.
DET204_FIXED = '''\
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class NoisyDataset(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return 8

    def __getitem__(self, index):
        return get_worker_info().id, float(self.rng.random())


def seed_worker(worker_id):
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(torch.initial_seed() % 2**32)


if __name__ == "__main__":
    torch.manual_seed(0)
    loader = DataLoader(NoisyDataset(), batch_size=1, num_workers=2, worker_init_fn=seed_worker)
    draws = {}
    for worker_id, value in loader:
        draws.setdefault(int(worker_id.item()), []).append(value.item())
    for worker_id in sorted(draws):
        print(f"{worker_id}: {draws[worker_id]!r}")
'''

# DET202/DET205: "--extra-draw" mimics the rest of the program consuming one
# more number from the global torch RNG (say, one more layer in the model).
DET202_FLAGGED = '''\
import sys

import torch
from torch.utils.data import DataLoader

torch.manual_seed(0)
if "--extra-draw" in sys.argv:
    torch.rand(1)
loader = DataLoader(list(range(10)), batch_size=10, shuffle=True)
for batch in loader:
    print(batch.tolist())
'''

DET202_FIXED = '''\
import sys

import torch
from torch.utils.data import DataLoader

torch.manual_seed(0)
if "--extra-draw" in sys.argv:
    torch.rand(1)
loader = DataLoader(
    list(range(10)), batch_size=10, shuffle=True, generator=torch.Generator().manual_seed(0)
)
for batch in loader:
    print(batch.tolist())
'''

DET205_FLAGGED = '''\
import sys

import torch
from torch.utils.data import random_split

torch.manual_seed(0)
if "--extra-draw" in sys.argv:
    torch.rand(1)
train, val = random_split(range(10), [5, 5])
print(list(train.indices))
'''

DET205_FIXED = '''\
import sys

import torch
from torch.utils.data import random_split

torch.manual_seed(0)
if "--extra-draw" in sys.argv:
    torch.rand(1)
train, val = random_split(range(10), [5, 5], generator=torch.Generator().manual_seed(0))
print(list(train.indices))
'''

DET207_FLAGGED = '''\
labels = ["cat", "dog", "bird", "fish", "horse", "cow"]
classes = list(set(labels))
class_to_index = {name: i for i, name in enumerate(classes)}
print(class_to_index)
'''

DET207_FIXED = '''\
labels = ["cat", "dog", "bird", "fish", "horse", "cow"]
classes = sorted(set(labels))
class_to_index = {name: i for i, name in enumerate(classes)}
print(class_to_index)
'''

LINT_CASES = [
    pytest.param("DET204", DET204_FLAGGED, DET204_FIXED, id="DET204"),
    pytest.param("DET202", DET202_FLAGGED, DET202_FIXED, id="DET202"),
    pytest.param("DET205", DET205_FLAGGED, DET205_FIXED, id="DET205"),
    pytest.param("DET207", DET207_FLAGGED, DET207_FIXED, id="DET207"),
]

# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def lint_codes(src: str, strict: bool = False) -> List[str]:
    """The codes the checker reports for ``src``."""
    return [finding.code for finding in check_source(src, Settings.from_values(strict=strict))]


# A seeded run's loader and split repeat on rerun: only tied to earlier draws, which the runs
# above show. Default mode leaves that to strict (docs/contract.md "DataLoader and sampler seeds").
STRICT_ONLY = {"DET202", "DET205"}


def _run(argv: List[str], hash_seed: Optional[str] = None) -> str:
    env = dict(os.environ)
    if hash_seed is not None:
        env["PYTHONHASHSEED"] = hash_seed
    result = subprocess.run(
        argv, capture_output=True, text=True, check=True, timeout=300, env=env
    )
    return result.stdout.strip()


@functools.lru_cache(maxsize=None)
def run_once(src: str, *args: str, hash_seed: Optional[str] = None) -> str:
    """Stdout of ``src`` run with ``python -c`` in a fresh interpreter (cached: torch is slow)."""
    return _run([sys.executable, "-c", src, *args], hash_seed=hash_seed)


def run_script(tmp_path: Path, name: str, src: str) -> str:
    """Stdout of ``src`` run as a script file.

    DataLoader workers need an importable ``__main__`` (under spawn/forkserver
    the Dataset class is looked up there), which ``python -c`` does not give.
    """
    path = tmp_path / f"{name}.py"
    path.write_text(src)
    return _run([sys.executable, str(path)])


def worker_draws(output: str) -> Dict[int, str]:
    """Parse ``"<worker id>: [values]"`` lines into {worker id: values text}."""
    draws = {}
    for line in output.splitlines():
        worker_id, values = line.split(": ", 1)
        draws[int(worker_id)] = values
    return draws


def with_and_without_extra_draw(src: str) -> Tuple[str, str]:
    """Output of ``src`` without and with one extra draw from the global torch RNG."""
    return run_once(src), run_once(src, "--extra-draw")


# --------------------------------------------------------------------------
# Runtime proof
# --------------------------------------------------------------------------


def test_runtime_det204_workers_draw_identical_sequences(tmp_path: Path) -> None:
    draws = worker_draws(run_script(tmp_path, "det204_flagged", DET204_FLAGGED))
    assert sorted(draws) == [0, 1], draws
    # The bug: both workers got a copy of the same Generator state.
    assert draws[0] == draws[1], f"workers drew different values: {draws}"


def test_runtime_det204_worker_init_fn_gives_distinct_reproducible_draws(
    tmp_path: Path,
) -> None:
    first = run_script(tmp_path, "det204_fixed_a", DET204_FIXED)
    second = run_script(tmp_path, "det204_fixed_b", DET204_FIXED)
    draws = worker_draws(first)
    assert sorted(draws) == [0, 1], draws
    assert draws[0] != draws[1], f"reseeded workers still drew the same values: {draws}"
    assert first == second, f"reseeded workers are not reproducible: {first!r} != {second!r}"


@pytest.mark.parametrize("code, flagged", [("DET202", DET202_FLAGGED), ("DET205", DET205_FLAGGED)])
def test_runtime_det202_det205_order_follows_global_rng(code: str, flagged: str) -> None:
    plain, extra = with_and_without_extra_draw(flagged)
    assert plain
    assert plain != extra, f"{code}: one extra global draw did not change the order: {plain}"


@pytest.mark.parametrize("code, fixed", [("DET202", DET202_FIXED), ("DET205", DET205_FIXED)])
def test_runtime_det202_det205_generator_makes_order_independent(code: str, fixed: str) -> None:
    plain, extra = with_and_without_extra_draw(fixed)
    assert plain
    assert plain == extra, f"{code}: order changed despite generator=: {plain} != {extra}"


def test_runtime_det207_set_order_depends_on_hash_seed() -> None:
    first = run_once(DET207_FLAGGED, hash_seed="1")
    second = run_once(DET207_FLAGGED, hash_seed="2")
    assert first
    assert first != second, f"set order did not depend on PYTHONHASHSEED: {first}"


def test_runtime_det207_sorted_set_is_stable() -> None:
    first = run_once(DET207_FIXED, hash_seed="1")
    second = run_once(DET207_FIXED, hash_seed="2")
    assert first
    assert first == second, f"sorted order changed with PYTHONHASHSEED: {first} != {second}"


# --------------------------------------------------------------------------
# Lint checks (need the DET2xx rules in the linter)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("code, flagged, fixed", LINT_CASES)
def test_linter_flags_data_order_snippet(code: str, flagged: str, fixed: str) -> None:
    assert code in lint_codes(flagged, strict=code in STRICT_ONLY)
    if code in STRICT_ONLY:
        assert code not in lint_codes(flagged)


@pytest.mark.parametrize("code, flagged, fixed", LINT_CASES)
def test_linter_accepts_fixed_data_order_snippet(code: str, flagged: str, fixed: str) -> None:
    assert code not in lint_codes(fixed, strict=code in STRICT_ONLY)
