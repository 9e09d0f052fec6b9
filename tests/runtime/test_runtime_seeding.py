"""Runtime proof for the seeding rules (DET101-DET105).

The linter's claims are only worth something if they match real behaviour.
For each rule this file lints a flagged snippet and its seeded variant, then
runs each of them in two fresh interpreters: the flagged snippet must print
different values, the seeded one must print the same values both times.
Values are printed at full precision (``repr``/``tolist``) so that a
difference is real and not a rounding artefact.
"""

import functools
import subprocess
import sys
from typing import List, Tuple

import pytest

from flake8_determinism.checker import check_source

pytestmark = pytest.mark.slow  # the slow tier (real interpreters run flagged and fixed programs)


def lint_codes(src: str) -> List[str]:
    """The codes the checker reports for ``src``."""
    return [finding.code for finding in check_source(src)]


def run_once(src: str) -> str:
    """Stdout of ``src`` run in a fresh interpreter."""
    result = subprocess.run(
        [sys.executable, "-c", src], capture_output=True, text=True, check=True, timeout=120
    )
    return result.stdout.strip()


@functools.lru_cache(maxsize=None)
def run_twice(src: str) -> Tuple[str, str]:
    """Stdout of ``src`` from two separate interpreters (cached: torch imports are slow)."""
    return run_once(src), run_once(src)


# The seeded torch snippet is shared by both DET104 cases, so it only runs twice.
TORCH_SEEDED = "import torch\ntorch.manual_seed(0)\nx = torch.randn(3)\nprint(x.tolist())\n"

CASES = [
    pytest.param(
        "DET101",
        "import random\nprint(repr(random.random()))\n",
        "import random\nrandom.seed(0)\nprint(repr(random.random()))\n",
        id="DET101-random-module",
    ),
    pytest.param(
        "DET102",
        "import numpy as np\nprint(np.random.rand(3).tolist())\n",
        "import numpy as np\nnp.random.seed(0)\nprint(np.random.rand(3).tolist())\n",
        id="DET102-numpy-legacy-global",
    ),
    pytest.param(
        "DET103",
        "import numpy as np\nprint(np.random.default_rng().random(3).tolist())\n",
        "import numpy as np\nprint(np.random.default_rng(0).random(3).tolist())\n",
        id="DET103-numpy-default-rng",
    ),
    pytest.param(
        "DET103",
        "import random\nprint(repr(random.Random().random()))\n",
        "import random\nprint(repr(random.Random(0).random()))\n",
        id="DET103-random-Random",
    ),
    pytest.param(
        "DET104",
        "import torch\nx = torch.randn(3)\nprint(x.tolist())\n",
        TORCH_SEEDED,
        id="DET104-torch-global",
    ),
    pytest.param(
        "DET104",
        "import torch\nx = torch.randn(3)\ntorch.manual_seed(0)\nprint(x.tolist())\n",
        TORCH_SEEDED,
        id="DET104-torch-seeded-after-use",
    ),
    pytest.param(
        "DET105",
        "import random\nimport time\nrandom.seed(time.time_ns())\nprint(repr(random.random()))\n",
        "import random\nimport time\nrandom.seed(0)\nprint(repr(random.random()))\n",
        id="DET105-random-seed-from-time",
    ),
    pytest.param(
        "DET105",
        "import torch\ntorch.seed()\nprint(torch.rand(2).tolist())\n",
        "import torch\ntorch.manual_seed(0)\nprint(torch.rand(2).tolist())\n",
        id="DET105-torch-seed",
    ),
]


@pytest.mark.parametrize("code, flagged, seeded", CASES)
def test_seeding_rule_matches_runtime(code: str, flagged: str, seeded: str) -> None:
    # 1. The linter flags the unseeded snippet and not the seeded one.
    assert code in lint_codes(flagged)
    assert code not in lint_codes(seeded)

    # 2. The flagged snippet really prints different values in two runs.
    first, second = run_twice(flagged)
    assert first and second
    assert first != second, f"{code}: flagged snippet printed the same value twice: {first}"

    # 3. The seeded snippet really reproduces.
    first, second = run_twice(seeded)
    assert first
    assert first == second, f"{code}: seeded snippet is not reproducible: {first} != {second}"
