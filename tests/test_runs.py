"""The run of an entry module (``rules/common/runs.py``): which uses it reaches, in what order, and
the messages of its one report per cause."""

import textwrap

from flake8_determinism.checker import analyse_source, check_source
from flake8_determinism.positions import start_positions
from flake8_determinism.rules.common.runs import run_of
from flake8_determinism.settings import Settings
from fixture_support import FIXTURES


def run_for(source: str):
    ctx, _ = analyse_source(textwrap.dedent(source), Settings.from_values(torch_version="2.13"),
                            filename="script.py", use_precheck=False)
    return run_of(ctx)


def use_lines(run, framework: str):
    nodes = [use.node for use in run.uses.get(framework, ())]
    positions = start_positions(run.ctx.module, nodes)
    return sorted(positions[id(node)][0] for node in nodes)


def test_the_run_reaches_what_entry_code_calls_or_passes_on():
    run = run_for((FIXTURES / "det101" / "reachability.py").read_text())
    # Not never_reached (24), nor UsedOnlyByUnreached (42): library code no run reaches.
    assert use_lines(run, "random") == [16, 20, 28, 32, 37, 53, 63]


def test_uses_are_ordered_as_the_run_makes_them():
    run = run_for('''\
        import torch
        import torch.nn as nn


        def evaluate(model):
            return model(torch.randn(1, 2))


        if __name__ == "__main__":
            print(evaluate(nn.Linear(2, 1)))
    ''')
    # nn.Linear(2, 1) is built (line 10) before evaluate() draws (line 6).
    assert [u.what.split(" (")[0] for u in run.uses["torch"]] == ["initializes weights", "draws"]


def test_the_cause_report_names_up_to_three_uses_grouped_by_what_they_do():
    found = check_source(textwrap.dedent('''\
        import torch
        import torch.nn as nn

        if __name__ == "__main__":
            a = nn.Linear(2, 2)
            b = nn.Linear(2, 2)
            c = nn.Dropout(0.5)
            d = torch.randn(2)
            print(c(a(d)) + b(d))
    '''), filename="script.py")
    assert [f.code for f in found] == ["DET104"]
    # Three of the four uses, in run order; the first is where the report is.
    assert (found[0].line, found[0].message) == (5, (
        "DET104 torch's RNG is never seeded in this run; it initializes weights (nn.Linear at script.py:5, "
        "nn.Linear at script.py:6) and masks dropout (nn.Dropout at script.py:7) — seed it at start-up: "
        "torch.manual_seed(SEED)"
    ))


def test_a_use_before_the_seed_is_reported_where_it_is():
    found = check_source(textwrap.dedent('''\
        import numpy as np

        noise = np.random.rand(3)
        np.random.seed(0)
        print(noise + np.random.rand(3))
    '''), filename="script.py")
    assert [(f.line, f.code) for f in found] == [(3, "DET102")]
    assert "np.random.rand() draws with NumPy's global RNG before the run seeds it" in found[0].message


def test_a_run_that_seeds_nothing_and_uses_several_rngs_gets_one_det100():
    found = check_source(textwrap.dedent('''\
        import random

        import numpy as np

        if __name__ == "__main__":
            print(random.random(), np.random.rand())
    '''), filename="script.py")
    assert [(f.line, f.code) for f in found] == [(5, "DET100")]
    assert "this run seeds no RNG" in found[0].message
    assert "Python's random draws (random.random() at script.py:6)" in found[0].message
    assert "NumPy's global RNG draws (np.random.rand() at script.py:6)" in found[0].message


def test_a_library_module_has_no_run():
    ctx, _ = analyse_source("import random\n\n\ndef pick(xs):\n    return random.choice(xs)\n",
                            filename="lib.py", use_precheck=False)
    assert ctx is None or run_of(ctx) is None
    assert check_source("import random\n\n\ndef pick(xs):\n    return random.choice(xs)\n", filename="lib.py") == []
