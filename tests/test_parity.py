"""Parity (issue 33): a fixture's code judged as an entry script, and moved into an imported
helper module with its entry kept (``parity_support.moved``), must get the same codes: the
contract judges runs, and moving a line to another file does not change the run.

Only fixtures that are runs take part (``parity_support.is_run``: an entry module under the
case's settings, docs/contract.md "Entry module (tightened)"): a module whose code writes, prints,
evaluates or trains nothing is a library, its module-level code import-time code, and moved
into a function it is another library (126 of the 244 fixture cases are runs).

The project fixtures are judged the same way, each entry's code moved into a module beside it.
Drift is a failing test, except the cases listed in ``KNOWN_DRIFT`` and ``KNOWN_PROJECT_DRIFT``,
each a strict xfail, so a fixed case must leave the list.
Their causes, by group: run-level rules still judged on the entry file alone (DET100's late
Trainer seeding and new heads, DET109's ``--seed`` option, DET203/DET210's shuffles and MindSpore
workers, DET403's evaluation case, DET301's evaluation-only run and benchmark, the DataLoader workers
that reseed a dataset's draws), switches the summaries do not
read (``Trainer.from_argparse_args(deterministic=True)``, mmengine's ``randomness=``), self-tests
and viewers recognised by the entry file's shape and calls, and module-level draws that become a helper's import-time
code.  Read through the summaries since: the nondeterministic CUDA ops (``analysis/kernels.py``),
DET110's resume and seeding-after-restore (checkpoint letters ``T``/``O``), a benchmark's timing
(``Times``/``Writes`` events).
"""

import pytest

import parity_support as P
from fixture_support import cases, fixture_name, settings_for
from project_support import projects
from project_support import settings_for as project_settings
from flake8_determinism.testcode import is_test_module

KNOWN_DRIFT = {
    ("det100/cross_encoder_new_head.py", "default"): "lost DET100",
    ("det100/hf_trainer_seeds_late.py", "default"): "lost DET100",
    ("det100/lightning_cli_random_seed.py", "default"): "lost DET104",
    ("det100/model_file_test_function.py", "default"): "gained DET104",
    ("det100/sentence_transformers_new_head.py", "default"): "lost DET100",
    ("det100/trl_subclass_seeds_late.py", "default"): "lost DET104",
    ("det100/trl_value_head.py", "default"): "lost DET100",
    ("det100/trl_value_head.py", "strict"): "lost DET100",
    ("det101/after_assert_false.py", "default"): "gained DET101 (the summaries do not know dead code)",
    ("det102/library_seeds_at_import.py", "strict"): "gained DET102 (import-time seeding moved into a function)",
    ("det104/self_test_main.py", "default"): "lost DET104; gained DET100",
    ("det104/self_test_main.py", "strict"): "gained DET100",
    ("det104/self_test_shapes.py", "default"): "gained DET104",
    ("det104/self_test_param_count.py", "default"): "gained DET104",
    ("det104/self_test_param_count.py", "strict"): "gained DET104",
    ("det101/worker_draws.py", "default"): "gained DET101 DET102",
    ("det104/speed_simple.py", "default"): "gained DET301",
    ("det104/viewer.py", "default"): "gained DET102",
    ("det104/spawned_workers.py", "default"): "lost DET104",
    ("det105/drawn_and_hashed_seeds.py", "default"): "lost DET109; gained DET101",
    # A library function's seed drawn from random: in the helper alone the caller may seed random
    # first, and the summaries do not carry DET105's question to the entry.
    ("det105/global_seed.py", "default"): "lost DET105",
    ("det105/global_seed.py", "strict"): "lost DET105",
    ("det202/spawned_process.py", "default"): "lost DET202 (a call-site rule judged on the helper alone)",
    ("det202/unseeded_run.py", "strict"): "gained DET104",
    ("det203/entry_seeded_by_helpers.py", "default"): "lost DET203; gained DET102",
    ("det210/mindspore_workers.py", "default"): "lost DET210",
    ("det301/evaluation_only.py", "default"): "gained DET301 (a helper's flag is judged on the helper alone; "
                                              "the evaluation-only run is read in the entry)",
    ("det303/trainer_deterministic_false.py", "default"): "lost DET303 (the framework's switch is read in the linted module only)",
    ("det403/evaluated_in_training_mode.py", "default"): "lost DET403 (the evaluation case is read in the entry only)",
    ("det403/sequential_with_dropout.py", "default"): "lost DET403 (the evaluation case is read in the entry only)",
    ("det403/sequential_with_dropout.py", "strict"): "lost DET403 (the evaluation case is read in the entry only)",
    ("det403/keras_training_true.py", "default"): "lost DET106; gained DET100",
}


# The project fixtures' entries moved the same way (each into ``moved_<name>.py`` beside it).
KNOWN_PROJECT_DRIFT = {
    ("hparams_seed/recipes/torch_only/train.py", "default"): "lost DET102",
    ("hparams_seed/recipes/torch_only/train.py", "strict"): "lost DET102",
    ("hparams_seed/recipes/unseeded/train.py", "default"): "lost DET100",
    ("hparams_seed/recipes/unseeded/train.py", "strict"): "lost DET100 DET104",
    ("replay_buffer_star/cyclegan.py", "default"): "lost DET101",
    ("seed_helper_prepare/train.py", "strict"): "gained DET101",
    # The entry's ``seed = random_seed()`` is DET105's cause there (the draw is the seed); moved into
    # a helper, the summary reads the project function's draw as a use of ``random`` (unmasked when
    # the project's other entries stopped reporting DET101 for a seed drawn when none is given).
    ("seed_from_project/train.py", "default"): "gained DET101",
    ("set_from_project/prepare.py", "default"): "lost DET207",
    ("set_from_project/prepare.py", "strict"): "lost DET207",
    ("transform_not_given/train.py", "strict"): "gained DET104",
}


def _case(known: dict, name: str, variant: str, *values):
    """One parametrized case, a strict xfail when ``known`` lists it as drifting."""
    reason = known.get((name, variant))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(*values, variant, id="%s-%s" % (name, variant), marks=marks)


def _parity_cases():
    found = []
    for source, _, variant in cases():
        name = fixture_name(source)
        if variant not in ("default", "strict") or is_test_module(name, None):
            continue  # a test module is judged by its name: moved, it is another module
        text = source.read_text()
        if P.moved(text) is None:
            continue  # nothing to move: only imports and definitions
        if not P.is_run(text, settings_for(variant), name):
            continue  # no run: module-level code is import-time code of a library
        found.append(_case(KNOWN_DRIFT, name, variant, source))
    return found


CASES = _parity_cases()


def _project_cases():
    found = []
    for project in projects():
        for entry in P.entries(project):
            if P.moved(entry.read_text(encoding="utf-8")) is None:
                continue
            name = project.name + "/" + entry.relative_to(project).as_posix()
            for variant in ("default", "strict"):
                found.append(_case(KNOWN_PROJECT_DRIFT, name, variant, project, entry))
    return found


PROJECT_CASES = _project_cases()


def test_the_cases_are_there():
    assert len(CASES) >= 120 and len(PROJECT_CASES) >= 60
    assert set(KNOWN_PROJECT_DRIFT) <= {tuple(p.id.rsplit("-", 1)) for p in PROJECT_CASES}
    assert set(KNOWN_DRIFT) <= {tuple(p.id.rsplit("-", 1)) for p in CASES}  # no stale entry


@pytest.mark.parametrize("source, variant", CASES)
def test_moving_the_code_into_a_helper_keeps_the_codes(source, variant, tmp_path):
    before, after = P.judged_both_ways(source.read_text(), settings_for(variant), tmp_path)
    assert set(after) == set(before)


@pytest.mark.parametrize("project, entry, variant", PROJECT_CASES)
def test_moving_an_entry_into_a_project_module_keeps_the_codes(project, entry, variant, tmp_path):
    before, after = P.project_moved(project, entry, project_settings(project, variant), tmp_path)
    assert set(after) == set(before)


def test_the_moved_trainer_example(tmp_path):
    """Issue 33's example: ``L.Trainer(max_epochs=1)`` in ``train.py`` gives DET303, and so does the
    same line moved into ``engine.make_trainer()``."""
    source = (
        "import lightning as L\nimport torch\n\n\n"
        "if __name__ == \"__main__\":\n"
        "    torch.manual_seed(0)\n"
        "    trainer = L.Trainer(max_epochs=1)\n"
    )
    # Strict: default mode reports the missing mode only where it sees a nondeterministic CUDA op.
    before, after = P.judged_both_ways(source, settings_for("strict"), tmp_path)
    assert before["DET303"] == 1 and after["DET303"] == 1


def test_a_draw_with_its_own_seed_in_a_helper_is_no_use(tmp_path):
    """``tf.random.normal(shape, seed=1)`` has an op seed: neither the script nor the same line in a
    helper is a use of TensorFlow's global seed (the summaries counted it before
    ``calls.global_draw``); without the seed both report."""
    seeded = 'import tensorflow as tf\n\n\nif __name__ == "__main__":\n    print(tf.random.normal([2], seed=1))\n'
    before, after = P.judged_both_ways(seeded, settings_for("default"), tmp_path / "seeded")
    assert "DET106" not in before and "DET106" not in after
    unseeded = seeded.replace(", seed=1", "")
    before, after = P.judged_both_ways(unseeded, settings_for("default"), tmp_path / "unseeded")
    assert "DET106" in before and "DET106" in after
