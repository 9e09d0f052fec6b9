"""``determinism-verify``'s parts in process: which lines are steps and what their values
are, the comparison and its diagnosis, the table, the script a command runs."""

import io
import math
import re

import pytest
from hypothesis import given, settings, strategies as st

from flake8_determinism.verify.cli import _hash_seed_notes, parse, run_env
from flake8_determinism.verify.compare import Tolerance, compare, diagnose
from flake8_determinism.verify.metrics import (DEFAULT_METRIC, MetricError, Step, extract, is_step, same_value,
                                               value_of, visible_lines)
from flake8_determinism.verify.report import MAX_DIVERGENT_ROWS, marks, script_of, table, verdict

METRIC = re.compile(DEFAULT_METRIC)


@pytest.mark.parametrize("line, value", [
    ("epoch 0 loss 0.6931", "0.6931"),
    ("Loss: 6.93e-01", "6.93e-01"),
    ("step 3, train_loss=-0.25, val_loss=0.3", "-0.25"),  # the first number after the first "loss"
    ("{'loss': 0.6931, 'learning_rate': 5e-05, 'epoch': 0.5}", "0.6931"),  # Hugging Face Trainer
    ("Epoch 0: 100%|##########| 32/32 [00:00<00:00, 95.47it/s, v_num=0, train_loss=0.693]", "0.693"),  # Lightning
    ("loss tensor(0.6931, grad_fn=<NllLossBackward0>)", "0.6931"),
    ("loss: nan", "nan"),
    ("loss inf", "inf"),
    ("loss_fn2 value 0.5", "0.5"),  # not the 2 inside a name
    ("computing the loss", None),  # no number: not a step
    ("accuracy 0.9", None),  # no "loss"
    ("loss info .5", ".5"),  # "info" is not inf
])
def test_default_metric_takes_the_first_number_after_loss(line, value):
    assert value_of(METRIC, line) == value


def test_value_group_overrides_the_first_number():
    metric = re.compile(r"acc(uracy)?[=:] *(?P<value>\S+)")
    assert value_of(metric, "epoch 3 loss 0.1 accuracy: 0.875") == "0.875"
    assert value_of(re.compile(r"val(?P<value>_loss)? (\d+)"), "val 3") is None  # the group did not take part


def test_steps_are_stdout_lines_then_stderr_lines_as_a_terminal_shows_them():
    stdout = "epoch 0 loss 1.0\nno metric here\nepoch 1 loss 0.5\n"
    stderr = "train: 10%| loss=0.9\r train: 100%| loss=0.4\r\nWARNING loss 2.0"  # a progress bar, no final \n
    steps = extract(METRIC, stdout, stderr, exact=False)
    assert [(s.text, s.stream, s.lineno) for s in steps] == [
        ("1.0", "stdout", 1), ("0.5", "stdout", 3), ("0.4", "stderr", 1), ("2.0", "stderr", 2)]
    assert steps[2].line == "train: 100%| loss=0.4"
    assert visible_lines("a\rb\n\n") == ["b", ""]
    assert is_step(METRIC, "progress loss=1\rdone\n") is False and is_step(METRIC, "x\rloss 1\n") is True


def test_a_value_that_is_not_a_number_needs_exact():
    metric = re.compile(r"digest (?P<value>\w+)")
    with pytest.raises(MetricError, match=r"'abc1' on stdout line 2 is not a number.*--exact"):
        extract(metric, "start\ndigest abc1\n", "", exact=False)
    assert [s.value for s in extract(metric, "digest abc1\ndigest 12\n", "", exact=True)] == [None, 12.0]


# As the other property tests: the same examples every CI run, and no deadline (the first
# example imports numpy, which took over hypothesis' 200 ms once on a loaded machine).
@settings(derandomize=True, database=None, deadline=None, max_examples=300)
@given(st.floats(allow_nan=True, allow_infinity=True, width=32), st.floats(allow_nan=True, width=32),
       st.sampled_from([0.0, 1e-3, 0.5]), st.sampled_from([0.0, 1e-5, 0.1]))
@pytest.mark.torch  # numpy comes with the test extra
def test_same_value_is_numpy_isclose_with_equal_nan(value, reference, atol, rtol):
    numpy = pytest.importorskip("numpy")
    with numpy.errstate(all="ignore"):
        expected = bool(numpy.isclose(value, reference, atol=atol, rtol=rtol, equal_nan=True))
    assert same_value(value, reference, atol, rtol) == expected


def test_same_value_edges():
    assert same_value(0.6751, 0.6741, 1e-3, 1e-5)  # |Δ| = 0.001 <= atol + rtol*|ref|
    assert not same_value(0.6761, 0.6741, 1e-3, 1e-5)
    assert same_value(math.nan, math.nan, 0, 0) and not same_value(math.nan, 1.0, 1e9, 0)
    assert same_value(math.inf, math.inf, 0, 0) and not same_value(math.inf, -math.inf, 1e9, 1e9)


def steps(*values, stream="stdout"):
    return [Step(str(v), None if v is None else float(v), "loss %s" % v, stream, i + 1) for i, v in enumerate(values)]


@pytest.mark.parametrize("run_2, first, diagnosis", [
    ([9, 2, 3, 4], 0, "step 0 differs: the forward pass is not deterministic — seeding or data"),
    ([1, 9, 3, 4], 1, "step 0 matches, step 1 differs: backward pass or data order"),
    ([1, 2, 3, 9], 3, "steps 0–2 match, step 3 differs: the start is deterministic"),
    ([1, 2], 2, "steps 0–1 match, then the runs logged different numbers of steps (run 1: 4, run 2: 2)"),
])
def test_the_first_divergent_step_and_its_diagnosis(run_2, first, diagnosis):
    comparison = compare([steps(1, 2, 3, 4), steps(*run_2)], Tolerance())
    assert not comparison.reproducible
    assert comparison.divergent[0].index == first
    assert diagnose(comparison).startswith(diagnosis)


def test_every_run_is_compared_with_the_first():
    comparison = compare([steps(1, 2), steps(1, 2.0005), steps(1.0009, 2.002)], Tolerance())
    assert [row.agrees for row in comparison.rows] == [True, False]
    assert comparison.rows[1].max_diff == pytest.approx(0.002)
    assert compare([steps(1), steps(1.0009)], Tolerance(exact=True)).reproducible is False
    assert diagnose(compare([steps(1), steps(1.0009)], Tolerance())) is None


def test_table_shows_the_ends_and_every_divergent_row():
    run_1 = list(range(100))
    run_2 = [v + (1 if v in (40, 41, 70) else 0) for v in run_1]
    lines = table(compare([steps(*run_1), steps(*run_2)], Tolerance()), io.StringIO())
    shown = [line.split()[0] for line in lines[1:]]
    assert shown == ["0", "1", "2", "⋮", "40", "41", "⋮", "70", "⋮", "97", "98", "99"]
    assert lines[4].endswith("37 steps not shown (all match)")
    assert lines[7].endswith("28 steps not shown (all match)")
    assert lines[6].split() == ["41", "41", "42", "1", "✗"]


def test_table_counts_the_divergent_rows_it_leaves_out():
    run_1 = list(range(60))
    lines = table(compare([steps(*run_1), steps(*[v + 1 for v in run_1])], Tolerance()), io.StringIO())
    assert len(lines) == 1 + MAX_DIVERGENT_ROWS + 1 + 3
    assert lines[MAX_DIVERGENT_ROWS + 1].endswith("37 steps not shown (all differ)")


def test_table_and_verdict_on_a_terminal_without_unicode():
    ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    comparison = compare([steps(1, 2), steps(1, 3)], Tolerance())
    assert marks(ascii_out) == ("ok", "DIFF", "d", "...")
    lines = table(comparison, ascii_out)
    assert lines[0].split() == ["step", "run", "1", "run", "2", "max", "|d|"]
    assert lines[2].endswith("DIFF") and lines[1].endswith("ok")
    assert verdict(comparison, Tolerance())[-1] == (
        "Diagnosis: step 0 matches, step 1 differs: backward pass or data order")


def test_script_of_finds_the_python_file_a_command_runs(tmp_path):
    (tmp_path / "train.py").write_text("")
    (tmp_path / "pkg" / "cli").mkdir(parents=True)
    (tmp_path / "pkg" / "cli" / "__main__.py").write_text("")
    (tmp_path / "run").write_text("#!/usr/bin/env python3\n")
    (tmp_path / "run.sh").write_text("#!/bin/sh\n")
    base = str(tmp_path)
    assert script_of(["python", "train.py", "--lr", "1"], base) == tmp_path / "train.py"
    assert script_of(["torchrun", "--nproc_per_node", "2", "train.py"], base) == tmp_path / "train.py"
    assert script_of(["python", "-m", "pkg.cli", "fit"], base) == tmp_path / "pkg" / "cli" / "__main__.py"
    assert script_of(["python", "-m", "torch.distributed.run", "other.py"], base) is None
    assert script_of(["run"], base) == tmp_path / "run"
    assert script_of(["sh", "run.sh"], base) is None
    assert script_of(["python", "missing.py"], base) is None


def test_env_diff_gives_later_runs_other_hash_seeds():
    assert run_env(1, True, {"PYTHONHASHSEED": "0"}) == {"PYTHONHASHSEED": "0"}
    assert run_env(2, True, {"PYTHONHASHSEED": "0"})["PYTHONHASHSEED"] == "1"
    assert run_env(3, True, {"PYTHONHASHSEED": "4294967295"})["PYTHONHASHSEED"] == "1"
    assert run_env(2, True, {"PYTHONHASHSEED": "random"})["PYTHONHASHSEED"] == "1"
    assert run_env(2, True, {})["PYTHONHASHSEED"] == "1"
    assert run_env(2, False, {"A": "b"}) == {"A": "b"}


def test_a_fixed_hash_seed_is_mentioned_only_when_it_is_a_number():
    assert _hash_seed_notes(False, ["0", "0"], True)[0].startswith("PYTHONHASHSEED is fixed in this environment (0)")
    assert _hash_seed_notes(False, ["random", "random"], True) == []
    assert _hash_seed_notes(False, ["unset", "unset"], True) == []
    assert _hash_seed_notes(True, ["0", "1"], False)[0].startswith("The runs differed in PYTHONHASHSEED (0, 1)")


def test_the_command_starts_after_double_dash_or_at_the_first_word():
    args = parse(["--runs", "3", "--", "python", "train.py", "--runs", "9"])
    assert args.runs == 3 and args.command == ["python", "train.py", "--runs", "9"]
    args = parse(["--atol", "0.01", "python", "train.py", "--lr", "1"])
    assert args.atol == 0.01 and args.command == ["python", "train.py", "--lr", "1"]
    with pytest.raises(SystemExit) as stop:
        parse(["python", "--", "train.py"])
    assert stop.value.code == 2


def test_traces_differ_also_when_one_run_records_more():
    from flake8_determinism.verify.locate import Event, Trace, differs

    def trace(*events):
        return Trace(list(events), 1, False, 0, [], 0.0, 0.0, None, {})

    out = Event("out", "Net", 0, "ab", "", "Linear")
    assert not differs(trace(out), trace(out))
    assert differs(trace(out), trace(out, out._replace(name="Net#2")))  # run 1 ends first
    assert differs(trace(out, out._replace(name="Net#2")), trace(out))
    assert differs(trace(out), trace(out._replace(fingerprint="cd")))
