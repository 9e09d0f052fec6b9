"""Every codemod fixture: ``tests/fixtures/fix/NAME.in.py`` fixed is ``NAME.out.py``.

A first line ``# fix-options: unsafe torch=2.8 strict`` sets the options.  Each
fixture is also fixed a second time: nothing may change, and no code that the
first run fixed is reported again: the second run finds what the first left.
"""

import ast
from pathlib import Path

import pytest

from flake8_determinism.rules.common import installed
from flake8_determinism.fix.config import Flake8Config
from flake8_determinism.fix.transform import fix_source
from flake8_determinism.settings import Settings

FIXTURES = Path(__file__).parent / "fixtures" / "fix"
CASES = sorted(p.name[: -len(".in.py")] for p in FIXTURES.glob("*.in.py"))


def _options(source: str) -> dict:
    first = source.splitlines()[0] if source else ""
    words = first.split(":", 1)[1].split() if first.startswith("# fix-options:") else []
    values = dict(word.split("=", 1) if "=" in word else (word, True) for word in words)
    return {"unsafe": bool(values.get("unsafe")), "strict": bool(values.get("strict")),
            "torch": values.get("torch", "2.13")}


@pytest.fixture(autouse=True)
def frameworks_installed(monkeypatch):
    """Framework-native fixes as where today's transformers, Lightning, accelerate and mmengine
    are installed (the suite has none of them); ``tests/test_fix_installed.py`` covers the rest."""
    monkeypatch.setattr(installed, "accepts", lambda name, keyword, frameworks=None: True)


@pytest.fixture(scope="module")
def noqa_options():
    return Flake8Config().noqa_options()


def fix(source: str, name: str, noqa_options, numpy_importable: bool = True):
    """The outputs seed NumPy's global RNG as where NumPy is installed (``.ci/run`` also runs
    these on Pythons without it); ``test_numpy_seeded_only_where_importable`` covers the rest."""
    options = _options(source)
    settings = Settings.from_values(strict=options["strict"], torch_version=options["torch"],
                                    numpy_importable=numpy_importable)
    return fix_source(source, settings, 0, options["unsafe"], noqa=noqa_options, filename=name)


def test_every_fixture_has_its_output():
    assert CASES
    for name in CASES:
        assert (FIXTURES / (name + ".out.py")).exists(), name


@pytest.mark.parametrize("name", CASES)
def test_fix(name, noqa_options):
    source = (FIXTURES / (name + ".in.py")).read_text()
    expected = (FIXTURES / (name + ".out.py")).read_text()
    result = fix(source, name + ".py", noqa_options)
    assert result.source == expected
    ast.parse(result.source)
    again = fix(result.source, name + ".py", noqa_options)
    assert again.source == result.source, "a second run changed the output"
    assert len(result.left) < len(result.found), "the fixture fixes nothing"
    assert [p.finding for p in again.found] == [p.finding for p in result.left], "what was fixed is reported again"


def test_numpy_seeded_only_where_importable(noqa_options):
    """A run that never names NumPy still gets ``np.random.seed`` (libraries draw from it), but
    only where NumPy can be imported: elsewhere the added import would break the script."""
    source = (FIXTURES / "main_parses_options.in.py").read_text()
    assert "np.random.seed(opt.manualSeed)" in fix(source, "main_parses_options.py", noqa_options).source
    fixed = fix(source, "main_parses_options.py", noqa_options, numpy_importable=False).source
    assert "numpy" not in fixed and "random.seed(opt.manualSeed)" in fixed


def test_a_study_optimized_in_parallel_keeps_its_sampler(noqa_options):
    """``n_jobs=4`` (or dask, ray, joblib): every copy of one seeded sampler would suggest the
    same values -- reported, not fixed."""
    source = '''import optuna


def objective(trial):
    return trial.suggest_float("x", -10, 10) ** 2


if __name__ == "__main__":
    study = optuna.create_study()
    study.optimize(objective, n_trials=20, {jobs})
    print(study.best_value)
'''
    serial = fix(source.format(jobs="n_jobs=1"), "study.py", noqa_options)
    assert "sampler=optuna.samplers.TPESampler(seed=SEED)" in serial.source
    parallel = fix(source.format(jobs="n_jobs=4"), "study.py", noqa_options)
    assert parallel.source == source.format(jobs="n_jobs=4")
    assert [p.finding.code for p in parallel.left] == ["DET103"]
    shared = source.format(jobs="n_jobs=1").replace("create_study()", 'create_study(storage="sqlite:///s.db")')
    assert fix(shared, "study.py", noqa_options).source == shared  # worker processes share the study
    resumed = source.format(jobs="n_jobs=1").replace(
        "create_study()", 'create_study(storage="sqlite:///s.db", sampler=optuna.samplers.TPESampler(),'
                          ' load_if_exists=True)')
    assert fix(resumed, "study.py", noqa_options).source == resumed  # a seed would restart its sequence


def test_a_study_shared_through_its_storage_gets_no_seeding(noqa_options):
    """Optuna's checkpoint example: the study resumes from a storage, so its sampler takes no
    seed, and seeding the weights or the loaders would reproduce nothing (trials differ anyway)."""
    source = '''import optuna
import torch
from torch.utils.data import DataLoader, TensorDataset


def objective(trial):
    model = torch.nn.Linear(1, 1)
    loader = DataLoader(TensorDataset(torch.ones(8, 1)), batch_size=2, shuffle=True)
    return sum(model(x).sum().item() for (x,) in loader) * trial.suggest_float("lr", 0.1, 1.0)


if __name__ == "__main__":
    study = optuna.create_study(storage="sqlite:///example.db", load_if_exists=True)
    study.optimize(objective, n_trials=3)
'''
    fixed = fix(source, "study.py", noqa_options)
    assert fixed.source == source
    assert {p.finding.code for p in fixed.left} >= {"DET103", "DET104"}
    alone = fix(source.replace('storage="sqlite:///example.db", load_if_exists=True', ""), "study.py", noqa_options)
    assert "generator=torch.Generator()" in alone.source and "TPESampler(seed=SEED)" in alone.source


def test_a_package_imported_after_set_up_lines_is_imported_again_there(noqa_options):
    """``os.environ["DGLBACKEND"] = "pytorch"`` must run before DGL is imported: ``import dgl``
    joins the file's own DGL imports after it, not the leading block."""
    source = '''import os

os.environ["DGLBACKEND"] = "pytorch"
import dgl.nn as dglnn
import torch


def main(graph):
    model = dglnn.GraphConv(4, 2)
    model(graph, torch.ones(4, 4)).sum().backward()


if __name__ == "__main__":
    main(None)
'''
    fixed = fix(source, "train.py", noqa_options).source
    assert fixed.index('os.environ["DGLBACKEND"]') < fixed.index("import dgl\n") < fixed.index("import dgl.nn"), fixed
    assert "dgl.seed(SEED)" in fixed


def test_a_benchmark_script_is_quiet_by_default_and_never_seeded(noqa_options):
    """``bench_rgcn.py`` measures a time (DGL's asv benchmarks): nobody reruns it for its numbers, so
    default mode is quiet (docs/contract.md "Programs nobody reruns for their numbers"), and strict
    mode reports it without seeding it (seeding answers nothing)."""
    source = '''import torch
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    model = torch.nn.Linear(1, 1)
    for (x,) in DataLoader(TensorDataset(torch.ones(8, 1)), batch_size=2, shuffle=True):
        model(x).sum().backward()
'''
    bench = fix(source, "bench_rgcn.py", noqa_options)
    assert bench.source == source and not bench.found
    strict = fix("# fix-options: strict\n" + source, "bench_rgcn.py", noqa_options)
    assert strict.source.endswith(source) and {p.finding.code for p in strict.left} >= {"DET100"}
    assert "torch.manual_seed(SEED)" in fix(source, "train.py", noqa_options).source
