"""Optuna's scikit-learn example: a study over SVC and RandomForest on Iris (bundled with
scikit-learn: no download).  Unseeded: the TPE sampler and the forests draw fresh entropy."""

from real_runs import replace

REPO = "optuna/optuna-examples"
COMMIT = "2e0b10bc54501e801687e114de3cbe1b6d2407dc"
FILES = {"sklearn/sklearn_simple.py": "05f139b8edea8db431b7ad41aeff2251ecc601a6"}
REQUIRES = ("optuna", "scikit-learn")
WORKDIR = "sklearn"
COMMAND = ("sklearn_simple.py",)
# Optuna logs each trial to stderr: "Trial 3 finished with value: 0.96 and parameters: ...".
VERIFY_ARGS = ("--metric", r"finished with value: (?P<value>[-0-9.e]+)")


def adapt(root):
    # Size only: 20 trials instead of 100.
    replace(root / "sklearn/sklearn_simple.py", "n_trials=100", "n_trials=20")
