"""Parity (issue 33): a fixture's code judged as an entry script, and moved into an imported
helper module with its entry kept (``parity_support.moved``), must get the same codes: the
contract judges runs, and moving a line to another file does not change the run.

Drift is a failing test, except the cases listed in ``KNOWN_DRIFT``: measured when the test was
written (66 of 244 fixture cases), each a strict xfail, so a fixed case must leave the list.
Their causes, by group: run-level rules still judged on the entry file alone (DET100's late
Trainer seeding and new heads, DET306's TensorFlow training, DET109's ``--seed`` option, DET110's
resume path, DET203/DET210's shuffles and MindSpore workers), switches the summaries do not read
(``Trainer.from_argparse_args(deterministic=True)``, mmengine's ``randomness=``), self-tests and
benchmarks recognised by the entry file's name or shape, and module-level draws that become a
helper's import-time code.
"""

import pytest

import parity_support as P
from fixture_support import cases, fixture_name, settings_for
from flake8_determinism.testcode import is_test_module

KNOWN_DRIFT = {
    ("det100/configuration_only.py", "default"): "gained DET104",
    ("det100/cross_encoder_new_head.py", "default"): "lost DET100",
    ("det100/hf_trainer_seeds_late.py", "default"): "lost DET100",
    ("det100/lightning_cli_random_seed.py", "default"): "lost DET104",
    ("det100/model_file_test_function.py", "default"): "gained DET104",
    ("det100/pretrained_as_is.py", "default"): "gained DET303",
    ("det100/sentence_transformers_new_head.py", "default"): "lost DET100",
    ("det100/trl_subclass_seeds_late.py", "default"): "lost DET104",
    ("det100/trl_value_head.py", "default"): "lost DET100",
    ("det101/seed_drawn_then_used.py", "default"): "gained DET101",
    ("det102/optional_import.py", "default"): "lost DET102",
    ("det102/pytest_class.py", "default"): "gained DET102",
    ("det102/pytest_functions.py", "default"): "gained DET102",
    ("det102/star_import.py", "default"): "lost DET102",
    ("det103/albumentations_compose.py", "default"): "gained DET104",
    ("det104/self_test_main.py", "strict"): "gained DET100",
    ("det104/self_test_main.py", "default"): "lost DET104; gained DET100",
    ("det104/self_test_shapes.py", "default"): "gained DET104",
    ("det104/spawned_workers.py", "default"): "lost DET104",
    ("det105/drawn_and_hashed_seeds.py", "default"): "lost DET109; gained DET101",
    ("det105/drawn_seed_any_name.py", "default"): "lost DET105",
    ("det105/ecosystem_helpers.py", "default"): "gained DET303",
    ("det105/flexible_runner_only.py", "default"): "lost DET105; gained DET303",
    ("det105/seed_drawn_in_call.py", "default"): "gained DET102",
    ("det109/absl_flags.py", "default"): "lost DET109",
    ("det109/argparse_default_none.py", "default"): "lost DET109",
    ("det109/dataclass_field.py", "default"): "lost DET109",
    ("det109/no_default.py", "default"): "lost DET109",
    ("det109/passed_to_parameter.py", "default"): "lost DET109",
    ("det109/zero_default_fallback.py", "default"): "lost DET109",
    ("det109/zero_default_truthiness.py", "default"): "lost DET109",
    ("det110/resume_with_rng.py", "default"): "lost DET110",
    ("det110/resume_without_rng.py", "default"): "lost DET110",
    ("det203/entry_seeded_by_helpers.py", "default"): "lost DET203",
    ("det203/hf_split_of_a_dict.py", "default"): "lost DET203",
    ("det203/hf_train_test_split.py", "default"): "lost DET203",
    ("det203/shuffles.py", "default"): "lost DET102 DET106",
    ("det205/samplers.py", "default"): "gained DET104",
    ("det210/mindspore_unseeded.py", "strict"): "gained DET107",
    ("det210/mindspore_unseeded.py", "default"): "lost DET210; gained DET107",
    ("det210/mindspore_workers.py", "default"): "lost DET210",
    ("det301/compile_autotune.py", "default"): "gained DET104",
    ("det301/cudnn_benchmark.py", "default"): "lost DET105; gained DET303",
    ("det303/arguments_from_cli.py", "default"): "gained DET303",
    ("det303/enabled_by_mmengine_runner_randomness.py", "default"): "gained DET303",
    ("det303/lightning_from_argparse_deterministic.py", "default"): "gained DET303",
    ("det304/cudnn_deterministic.py", "strict"): "gained DET104",
    ("det304/cudnn_deterministic.py", "default"): "gained DET104",
    ("det304/embedding_2_14.py", "strict"): "gained DET104",
    ("det304/embedding_2_14.py", "default"): "gained DET104",
    ("det304/mindspore_ascend.py", "strict"): "gained DET107",
    ("det304/mindspore_ascend.py", "default"): "gained DET107",
    ("det304/mindspore_set_deterministic.py", "strict"): "gained DET107",
    ("det304/mindspore_set_deterministic.py", "default"): "gained DET107",
    ("det306/env_variable_off.py", "default"): "lost DET306",
    ("det306/gradient_tape.py", "default"): "lost DET306",
    ("det306/keras_fit.py", "default"): "lost DET306",
    ("det401/keras_layers.py", "strict"): "gained DET106",
    ("det401/keras_layers.py", "default"): "gained DET106",
    ("det401/mindspore_dropout.py", "default"): "gained DET107",
    ("det402/tensorflow_and_keras.py", "strict"): "gained DET106",
    ("det402/tensorflow_and_keras.py", "default"): "gained DET106",
    ("det402/torchvision_script.py", "strict"): "gained DET100",
    ("det402/torchvision_script.py", "default"): "gained DET100",
    ("det403/evaluated_in_training_mode.py", "default"): "lost DET403",
    ("det403/keras_training_true.py", "default"): "lost DET306",
}


def _parity_cases():
    found = []
    for source, _, variant in cases():
        name = fixture_name(source)
        if variant not in ("default", "strict") or is_test_module(name, None):
            continue  # a test module is judged by its name: moved, it is another module
        if P.moved(source.read_text()) is None:
            continue  # nothing to move: only imports and definitions
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_DRIFT[name, variant])] if (name, variant) in KNOWN_DRIFT else []
        found.append(pytest.param(source, variant, id="%s-%s" % (name, variant), marks=marks))
    return found


CASES = _parity_cases()


def test_the_cases_are_there():
    assert len(CASES) >= 200
    listed = {(p.id.rsplit("-", 1)[0], p.id.rsplit("-", 1)[1]) for p in CASES}
    assert set(KNOWN_DRIFT) <= listed  # no stale entry


@pytest.mark.parametrize("source, variant", CASES)
def test_moving_the_code_into_a_helper_keeps_the_codes(source, variant, tmp_path):
    before, after = P.judged_both_ways(source.read_text(), settings_for(variant), tmp_path)
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
    before, after = P.judged_both_ways(source, settings_for("default"), tmp_path)
    assert before["DET303"] == 1 and after["DET303"] == 1
