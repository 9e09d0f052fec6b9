"""Deterministic-mode switches and the calls that flip them.  Catalog §1.1(c)(d), §4, §6, §8.

A *switch* is a process-wide setting the DET3xx rules ask about ("does this
module enable deterministic algorithms?", "is CUBLAS_WORKSPACE_CONFIG set before
this call?").  Flipping one is an event at a point of the module, tracked like
seeding (order, local helper functions), see ``analysis/facts.py``.
"""

from typing import FrozenSet, NamedTuple, Optional, Tuple

# -- switches -------------------------------------------------------------------
ALGORITHMS = "torch.use_deterministic_algorithms"  # on, raising on nondeterministic ops
ALGORITHMS_WARN_ONLY = "torch.use_deterministic_algorithms(warn_only)"  # on, only warning
CUDNN_DETERMINISTIC = "torch.backends.cudnn.deterministic"
CUBLAS_CONFIG = "CUBLAS_WORKSPACE_CONFIG"  # set to a deterministic value
TF_OP_DETERMINISM = "tensorflow op determinism"
MS_DETERMINISTIC = "mindspore deterministic"
# The author handles determinism some way we cannot read: the flag is not a
# literal (``use_deterministic_algorithms(args.det)``) or a helper defined
# elsewhere is named for it (``set_determinism()``).  Quiets DET303 only.
DETERMINISM_UNREAD = "determinism (not a literal)"

SWITCHES: FrozenSet[str] = frozenset(
    {ALGORITHMS, ALGORITHMS_WARN_ONLY, CUDNN_DETERMINISTIC, CUBLAS_CONFIG, TF_OP_DETERMINISM,
     MS_DETERMINISTIC, DETERMINISM_UNREAD}
)
# Any of these means "this module turns a deterministic mode on" (DET303).
TORCH_DETERMINISM = frozenset({ALGORITHMS, ALGORITHMS_WARN_ONLY, CUDNN_DETERMINISTIC, DETERMINISM_UNREAD})

# Called helpers (not imported from a known library) whose name contains one of
# these are assumed to turn deterministic mode on (DET303 stays quiet).
DETERMINISM_NAME_PARTS = ("determinis", "reproducib")


class Enabler(NamedTuple):
    """A call that turns ``switches`` on when its argument ``keyword``/``position``
    is a literal in ``on`` (``keyword`` None: always).  ``warn``: literal values
    meaning warn-only; ``warn_keyword``: a separate warn-only argument."""

    switches: FrozenSet[str]
    keyword: Optional[str] = None
    position: Optional[int] = None
    on: Tuple[object, ...] = (True,)
    warn: Tuple[object, ...] = ()
    warn_keyword: Optional[str] = None


_TORCH_ALL = frozenset({ALGORITHMS, CUDNN_DETERMINISTIC})

ENABLERS = {
    "torch.use_deterministic_algorithms": Enabler(
        frozenset({ALGORITHMS}), "mode", 0, warn_keyword="warn_only"
    ),
    "torch.backends.cudnn.flags": Enabler(frozenset({CUDNN_DETERMINISTIC}), "deterministic", 3),
    # transformers 4.x also enables TF op determinism (the SEEDERS table assumes 4.x too).
    "transformers.enable_full_determinism": Enabler(
        _TORCH_ALL | {CUBLAS_CONFIG, TF_OP_DETERMINISM}, warn_keyword="warn_only"
    ),
    "transformers.set_seed": Enabler(frozenset({ALGORITHMS, TF_OP_DETERMINISM}), "deterministic", 1),
    # MONAI's set_determinism(seed) sets cudnn.deterministic (and use_deterministic_algorithms
    # when asked): monai/utils/misc.py.
    "monai.utils.set_determinism": Enabler(frozenset({CUDNN_DETERMINISTIC})),
    # Trainer(args) with full_determinism=True calls enable_full_determinism.
    "transformers.TrainingArguments": Enabler(_TORCH_ALL | {CUBLAS_CONFIG}, "full_determinism"),
    "lightning.pytorch.Trainer": Enabler(
        frozenset({ALGORITHMS, CUBLAS_CONFIG}), "deterministic", None, warn=("warn",)
    ),
    "lightning.Trainer": Enabler(frozenset({ALGORITHMS, CUBLAS_CONFIG}), "deterministic", None, warn=("warn",)),
    "mmengine.runner.set_random_seed": Enabler(_TORCH_ALL, "deterministic", 1),
    "mmcv.runner.set_random_seed": Enabler(frozenset({CUDNN_DETERMINISTIC}), "deterministic", 1),
    "mmdet.apis.set_random_seed": Enabler(frozenset({CUDNN_DETERMINISTIC}), "deterministic", 1),
    "accelerate.utils.set_seed": Enabler(frozenset({ALGORITHMS}), "deterministic", 2),
    "fastai.set_seed": Enabler(frozenset({CUDNN_DETERMINISTIC}), "reproducible", 1),
    "fastai.vision.all.set_seed": Enabler(frozenset({CUDNN_DETERMINISTIC}), "reproducible", 1),
    "tensorflow.config.experimental.enable_op_determinism": Enabler(frozenset({TF_OP_DETERMINISM})),
    "mindspore.set_deterministic": Enabler(frozenset({MS_DETERMINISTIC}), "deterministic", 0),
    "mindspore.set_context": Enabler(frozenset({MS_DETERMINISTIC}), "deterministic", None, on=("ON",)),
}

# ``TrainingArguments`` and its subclasses (``Seq2SeqTrainingArguments``, trl's
# ``SFTConfig``/``GRPOConfig``/...) take ``full_determinism=`` alike.
TRAINING_ARGUMENTS = "transformers.TrainingArguments"


def is_training_arguments(qualname: str) -> bool:
    root = qualname.split(".", 1)[0]
    return (root == "transformers" and qualname.endswith("TrainingArguments")) or (
        root == "trl" and qualname.endswith("Config")
    )


# Parsers that put every TrainingArguments field on the command line
# (``--full_determinism``): like ``use_deterministic_algorithms(args.det)``, the
# choice is the user's, so DET303 stays quiet.
ARGUMENT_PARSERS = frozenset({"transformers.HfArgumentParser", "trl.TrlParser"})
NOT_TRAINING_CONFIGS = frozenset({"ModelConfig", "LoraConfig", "PeftConfig", "BitsAndBytesConfig", "AutoConfig"})


# mmengine's ``randomness=dict(seed=..., deterministic=True)`` (a Runner argument
# or a config-file variable) enables deterministic algorithms and cuDNN determinism.
MMENGINE_RANDOMNESS = "randomness"
MMENGINE_RUNNERS = frozenset({"mmengine.runner.Runner"})
LIGHTNING_TRAINERS = frozenset({"lightning.Trainer", "lightning.pytorch.Trainer"})  # Trainer(deterministic=True)

# -- cuDNN flags (DET301/DET302) --------------------------------------------------
CUDNN_BENCHMARK = "torch.backends.cudnn.benchmark"
# Calls that turn the cuDNN autotuner on: name -> (keyword, position).
BENCHMARK_ON = {
    "torch.backends.cudnn.flags": ("benchmark", 1),
    "lightning.pytorch.Trainer": ("benchmark", None),
    "lightning.Trainer": ("benchmark", None),
}
# mmengine's ``env_cfg=dict(cudnn_benchmark=True)`` (Runner argument or config variable).
MMENGINE_ENV_CFG = ("env_cfg", "cudnn_benchmark")

# -- environment variables ----------------------------------------------------------
ENVIRON = "os.environ"
ENV_SETTERS = frozenset({"os.environ.setdefault", "os.putenv"})  # (key, value)
ENV_UPDATE = "os.environ.update"
CUBLAS_VARIABLE = "CUBLAS_WORKSPACE_CONFIG"
CUBLAS_VALUES = frozenset({":4096:8", ":16:8"})
TF_DETERMINISM_VARIABLES = frozenset({"TF_DETERMINISTIC_OPS", "TF_CUDNN_DETERMINISTIC"})
TF_DETERMINISM_OFF = frozenset({"", "0", "false", "False"})
# torch releases from this one on no longer need CUBLAS_WORKSPACE_CONFIG (facts §1.1(d):
# the check was removed by PR #161749, first released in 2.10 [U]).
CUBLAS_CHECK_REMOVED = (2, 10)

# Packages whose training scripts train with torch (DET303 asks them for a deterministic mode).
TORCH_TRAINING_ROOTS = frozenset(
    {"torch", "lightning", "pytorch_lightning", "lightning_fabric", "transformers", "trl", "accelerate",
     "mmengine", "mmcv", "mmdet", "fastai", "timm", "detectron2", "torchvision"}
)
# DET303's fix in the words of the framework a script trains with: (qualified-name
# prefix of a call in the script, what to do), first match wins; else the torch call.
FRAMEWORK_SWITCHES = (
    ("accelerate.utils.set_seed", "call set_seed(SEED, deterministic=True)"),
    ("transformers.TrainingArguments", "pass TrainingArguments(..., full_determinism=True)"),
    ("transformers.Seq2SeqTrainingArguments", "pass TrainingArguments(..., full_determinism=True)"),
    ("trl.", "pass full_determinism=True in the trainer's config (it is a TrainingArguments)"),
    ("lightning.Trainer", "pass Trainer(deterministic=True)"),
    ("lightning.pytorch.Trainer", "pass Trainer(deterministic=True)"),
    ("mmengine.runner.Runner", "set randomness=dict(seed=SEED, deterministic=True) in the config"),
)
# Methods whose ``use_deterministic_algorithms(False)`` restores a state (DET303).
RESTORING_METHODS = frozenset({"__exit__", "__aexit__", "restore", "reset"})
# Functions that put defaults back after a run (Ultralytics ``unset_deterministic()``): their
# ``False`` is a teardown; the switch a user turns off is reported at the user's call.
RESTORING_PREFIXES = ("teardown", "unset", "restore", "reset")


def restores_defaults(function_name: str) -> bool:
    return function_name in RESTORING_METHODS or function_name.lower().lstrip("_").startswith(RESTORING_PREFIXES)


# Scripts importing these train on XLA devices (TPU), not on CUDA (DET303 stays quiet).
NOT_CUDA_ROOTS = frozenset({"torch_xla"})
# Packages whose training scripts train with TensorFlow (DET306).
TF_TRAINING_ROOTS = frozenset({"tensorflow", "tf_keras"})
# Calls that train a TensorFlow/Keras model (method names), and TF's tape.
TF_TRAINING_METHODS = frozenset({"fit", "fit_generator", "train_on_batch", "apply_gradients"})
TF_GRADIENT_TAPE = "tensorflow.GradientTape"
# A module importing these (and no Keras) trains with JAX: ``state.apply_gradients`` is flax's.
JAX_ROOTS = frozenset({"jax", "flax", "optax"})


# -- torch.compile autotuning (DET301) ----------------------------------------------
# ``mode="max-autotune"`` benchmarks kernel choices on the device and keeps the fastest (torch
# 2.13 torch/__init__.py compile, torch/_inductor/__init__.py list_mode_options);
# ``use_deterministic_algorithms(True)`` also turns Inductor's deterministic mode on, which
# skips that benchmarking (torch/__init__.py use_deterministic_algorithms sets
# ``torch._inductor.config.deterministic``).
TORCH_COMPILE = "torch.compile"
AUTOTUNE_MODES = ("max-autotune", "max-autotune-no-cudagraphs")
INDUCTOR_DETERMINISTIC = ("torch._inductor.config.deterministic", "TORCHINDUCTOR_DETERMINISTIC")

# -- Ultralytics (DET303) ----------------------------------------------------------------
# ``model.train(..., deterministic=False)`` turns off what Ultralytics turns on by default
# (ultralytics/cfg/default.yaml ``deterministic: True``; engine/trainer.py BaseTrainer calls
# ``init_seeds(self.args.seed + 1 + RANK, deterministic=self.args.deterministic)``).
ULTRALYTICS_ROOT = "ultralytics."
ULTRALYTICS_TRAIN = "train"
