"""``determinism-verify --locate`` on planted causes (``tests/locate_scripts``): each script
differs between runs for one reason, and the first difference of the two traces must name it,
where it is, and its codes.  The traced pairs run as the CLI runs them (``locate.traced_env``);
a few cases go through the whole command.

Every script is copied out of ``tests/`` first, so the linter sees training scripts."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from flake8_determinism.verify import locate
from run_support import fresh_environment

pytestmark = [pytest.mark.torch, pytest.mark.slow]

SCRIPTS = Path(__file__).parent / "locate_scripts"
TIMEOUT = 300


@pytest.fixture
def folder(tmp_path):
    for script in SCRIPTS.glob("*.py"):
        shutil.copyfile(str(script), str(tmp_path / script.name))
    return tmp_path


def traced_pair(folder, script, steps=3, hash_seeds=("0", "0")):
    traces = []
    for number, hash_seed in enumerate(hash_seeds, 1):
        env = dict(fresh_environment(), PYTHONHASHSEED=hash_seed)
        out = str(folder / ("trace-%d.json" % number))
        result = subprocess.run([sys.executable, script], cwd=str(folder), capture_output=True, text=True,
                                env=locate.traced_env(env, out, steps), timeout=TIMEOUT)
        assert result.returncode == 0, result.stderr
        trace = locate.read_trace(out)
        assert trace is not None and not trace.errors, trace
        traces.append(trace)
    return traces


def located(folder, script, **kwargs):
    return locate.explain(*traced_pair(folder, script, **kwargs))


def verify(cwd, *args):
    return subprocess.run([sys.executable, "-m", "flake8_determinism.verify", *args], cwd=str(cwd),
                          env=fresh_environment(), capture_output=True, text=True, timeout=TIMEOUT)


def test_unseeded_weights_name_the_layer_and_its_line(folder):
    found = located(folder, "unseeded_weights.py")
    assert found.headline.startswith("Initial weights differ: Net.body.0.weight, a parameter of a Linear")
    assert "common.py:9" in found.headline  # where the layer is built, not Net's super().__init__()
    assert found.codes[:2] == ["DET104", "DET100"]


def test_shuffled_order_is_told_from_values(folder):
    found = located(folder, "shuffled_order.py")
    assert found.headline.startswith("Batch order differs: DataLoader 1 yields other samples at step 1")
    assert "DET202" in found.codes


def test_noisy_samples_keep_their_order_and_change_their_values(folder):
    found = located(folder, "noisy_samples.py")
    assert found.headline.startswith(
        "Batch values differ at step 1: DataLoader 1 yields the same samples ([0, 1, 2, 3])")
    assert "DET204" in found.codes


def test_an_extra_draw_shows_as_the_rng_state_before_the_model(folder):
    found = located(folder, "extra_draw.py")
    assert found.headline.startswith("The torch CPU RNG state differs before Net runs")
    assert found.codes[0] == "DET100"


def test_an_output_that_differs_with_equal_input_and_rng_names_the_module(folder):
    found = located(folder, "own_generator.py")
    assert found.headline.startswith("Sequential.1's output differs at step 1 while its input and RNG states"
                                     " agree (a Jitter built at ")
    assert found.headline.endswith("own_generator.py:20).")
    assert "DET103" in found.codes and "DET304" in found.codes


def test_a_racy_backward_is_traced_to_its_op_after_equal_forwards(folder):
    found = located(folder, "racy_backward.py")
    # torch's DebugMode (2.10+) names the op: the custom backward's add of a varying amount
    assert found.headline.startswith("The backward pass first differs at step 1, aten.add.Tensor (op ")
    assert "while every forward output agreed" in found.headline
    assert found.codes[0] == "DET304"


def test_without_op_tracing_gradients_are_compared(folder):
    first, second = traced_pair(folder, "racy_backward.py")
    strip = [trace._replace(events=[e for e in trace.events if e.kind != "bwop"]) for trace in (first, second)]
    found = locate.explain(*strip)
    assert found.headline.startswith("Gradients differ at step 1 for Sequential.0.")


def test_set_order_differs_only_with_another_hash_seed(folder):
    assert locate.first_difference(*traced_pair(folder, "set_order.py", hash_seeds=("1", "1")))[1] is None
    first, second = traced_pair(folder, "set_order.py", hash_seeds=("1", "2"))
    found = locate.explain(first, second, hash_seed_only=True)
    assert "only when PYTHONHASHSEED differs" in found.headline
    assert found.codes[:2] == ["DET207", "DET209"]


def test_a_program_without_torch_gets_its_rng_states_and_no_modules(folder):
    first, second = traced_pair(folder, "numpy_only.py")
    assert first.torch is None
    found = locate.explain(first, second)
    assert found.headline == "No modules to trace."
    assert any("NumPy global RNG state differs" in line for line in found.lines)
    assert found.codes[0] == "DET102"


def test_workers_tuples_dicts_and_repeated_calls_trace_alike(folder):
    first, second = traced_pair(folder, "workers_and_outputs.py")
    assert locate.first_difference(first, second)[1] is None
    names = [event.name for event in first.events if event.kind == "out" and event.step == 0]
    assert names == ["Model.pair.shared", "Model.pair.shared#2", "Model.pair.head", "Model.pair", "Model"]
    assert first.steps_done == 3
    assert sorted(p.name for p in folder.glob("trace-*.json")) == ["trace-1.json", "trace-2.json"]  # not the workers


def test_tracing_stops_after_k_steps(folder):
    first, _ = traced_pair(folder, "unseeded_weights.py", steps=1)
    assert first.steps_done == 1
    assert {event.step for event in first.events} == {0}


def test_the_command_reports_the_first_difference_and_the_linter_findings(folder):
    result = verify(folder, "--locate", "--steps", "2", "--", sys.executable, "unseeded_weights.py")
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert "Where the runs first differ (--locate, 2 steps traced):" in out
    assert "Initial weights differ: Net.body.0.weight" in out
    assert "Matching codes: DET104, DET100" in out
    assert "Tracing: 2 steps traced; the hooks took" in out
    assert "unseeded_weights.py:1:1: DET100" in out


def test_env_diff_locates_a_set_order(folder):
    result = verify(folder, "--locate", "--env-diff", "--", sys.executable, "set_order.py")
    assert result.returncode == 1, result.stderr
    assert "only when PYTHONHASHSEED differs" in result.stdout


def test_a_command_that_fails_under_the_tracer_exits_2_without_our_traceback(folder):
    result = verify(folder, "--locate", "--", sys.executable, "crashes_when_traced.py")
    assert result.returncode == 2
    assert "traced run 1 failed" in result.stderr and "exited with status 3" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_command_that_runs_no_python_writes_no_trace(folder):
    result = verify(folder, "--locate", "--", "sh", "-c", "echo step 0 loss 1.0")
    assert result.returncode == 2
    assert "wrote no trace" in result.stderr


def test_verify_itself_never_imports_torch():
    code = ("import sys, flake8_determinism.verify.cli, flake8_determinism.verify.locate;"
            "print('torch' in sys.modules, 'numpy' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=fresh_environment())
    assert result.stdout.split() == ["False", "False"]


def test_a_trace_is_plain_json(folder):
    traced_pair(folder, "unseeded_weights.py", steps=1)
    raw = json.loads((folder / "trace-1.json").read_text())
    assert raw["version"] == 1 and raw["steps"] == 1 and isinstance(raw["events"], list)
    assert not os.path.exists(str(folder / "trace-1.json.part"))
