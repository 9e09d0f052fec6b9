"""Seeding calls and ecosystem helpers: what each one really seeds.  Catalog §1.1(b), §2-§4, §6, §8.

Frameworks are the global RNGs the draw rules track: ``random``, ``numpy``,
``torch`` (CPU default generator), ``tensorflow``, ``mindspore``; ``cuda`` marks
calls that seed only CUDA generators (a seeding event, but not of torch's CPU RNG).
"""

import re

RANDOM, NUMPY, TORCH, TF, MS, CUDA = "random", "numpy", "torch", "tensorflow", "mindspore", "cuda"
MS_DATASET = "mindspore.dataset"  # the pipeline seed of mindspore.dataset
FRAMEWORKS = (RANDOM, NUMPY, TORCH, TF, MS)
# Imports of these give the seeding block something to seed (``determinism-fix``): the
# frameworks, and the libraries whose own helper the block calls.
SEEDABLE_ROOTS = frozenset(FRAMEWORKS) | {"keras", "lightning", "pytorch_lightning", "accelerate"}
ALL_FRAMEWORKS = frozenset(FRAMEWORKS) | {CUDA, MS_DATASET}

_PY_NP_TORCH = frozenset({RANDOM, NUMPY, TORCH, CUDA})

# qualified name -> frameworks seeded when called (with a seed argument).
SEEDERS = {
    "random.seed": frozenset({RANDOM}),
    "random.setstate": frozenset({RANDOM}),
    "numpy.random.seed": frozenset({NUMPY}),
    "numpy.random.set_state": frozenset({NUMPY}),
    "torch.manual_seed": frozenset({TORCH, CUDA}),  # also seeds every CUDA device
    "torch.set_rng_state": frozenset({TORCH}),
    "torch.seed": frozenset({TORCH, CUDA}),  # nondeterministic: DET105
    "torch.cuda.manual_seed": frozenset({CUDA}),
    "torch.cuda.manual_seed_all": frozenset({CUDA}),
    "torch.cuda.set_rng_state": frozenset({CUDA}),
    "torch.cuda.set_rng_state_all": frozenset({CUDA}),
    "torch.cuda.seed": frozenset({CUDA}),
    "torch.cuda.seed_all": frozenset({CUDA}),
    "torch.mps.manual_seed": frozenset({CUDA}),
    "torch.xpu.manual_seed": frozenset({CUDA}),
    "torch.xpu.manual_seed_all": frozenset({CUDA}),
    "tensorflow.random.set_seed": frozenset({TF}),
    "tensorflow.set_random_seed": frozenset({TF}),
    "tensorflow.compat.v1.set_random_seed": frozenset({TF}),
    "tensorflow.compat.v1.random.set_random_seed": frozenset({TF}),
    "tensorflow.random.set_global_generator": frozenset({TF}),
    # Keras 3 seeds random, NumPy, TF (if installed) and torch (torch backend).
    "keras.utils.set_random_seed": frozenset({RANDOM, NUMPY, TF, TORCH}),
    # mindspore.set_seed also seeds NumPy and mindspore.dataset (which seeds random).
    "mindspore.set_seed": frozenset({MS, NUMPY, RANDOM, MS_DATASET}),
    "mindspore.manual_seed": frozenset({MS}),
    "mindspore.seed": frozenset({MS}),  # nondeterministic: DET105
    "mindspore.dataset.config.set_seed": frozenset({RANDOM, NUMPY, MS_DATASET}),
    "lightning.seed_everything": _PY_NP_TORCH,
    "torch_geometric.seed_everything": _PY_NP_TORCH,  # torch_geometric/seed.py (PyG 2.8)
    # transformers 4.x also seeds TF; 5.x does not.  Precision first: assume 4.x.
    "transformers.set_seed": _PY_NP_TORCH | {TF},
    "transformers.enable_full_determinism": _PY_NP_TORCH | {TF},
    "accelerate.utils.set_seed": _PY_NP_TORCH,
    "mmengine.runner.set_random_seed": _PY_NP_TORCH,
    "mmcv.runner.set_random_seed": _PY_NP_TORCH,
    "mmdet.apis.set_random_seed": _PY_NP_TORCH,
    "detectron2.utils.env.seed_all_rng": _PY_NP_TORCH,
    # detectron2's default_setup(cfg, args) calls seed_all_rng(None if cfg.SEED < 0 else
    # cfg.SEED + rank) (detectron2/engine/defaults.py): a seeding event, from the clock unless
    # the config sets SEED (a config value: unknown).
    "detectron2.engine.default_setup": _PY_NP_TORCH,
    "detectron2.engine.defaults.default_setup": _PY_NP_TORCH,
    "timm.utils.random_seed": _PY_NP_TORCH,
    # Ultralytics' trainer seeds random, NumPy and torch with ``seed`` (default 0) before it
    # builds anything: engine/trainer.py BaseTrainer calls utils/torch_utils.py ``init_seeds``.
    **{"ultralytics.%s().train" % _model: _PY_NP_TORCH for _model in ("YOLO", "YOLOWorld", "YOLOE", "RTDETR")},
    # MONAI: torch (+CUDA), random and NumPy; with seed=None a random seed (still an event).
    # monai/utils/misc.py set_determinism (MONAI 1.x).
    "monai.utils.set_determinism": _PY_NP_TORCH,
    "fastai.set_seed": _PY_NP_TORCH,
    "fastai.vision.all.set_seed": _PY_NP_TORCH,
    "fastai.text.all.set_seed": _PY_NP_TORCH,
    "fastai.tabular.all.set_seed": _PY_NP_TORCH,
    "fastai.collab.all.set_seed": _PY_NP_TORCH,
    "fastai.basics.set_seed": _PY_NP_TORCH,
    # mmengine's Runner seeds through ``randomness=dict(seed=...)`` when it is built
    # (a seed of None draws a random one: still a seeding event, as for the helpers).
    "mmengine.runner.Runner": _PY_NP_TORCH,
    "mmengine.runner.Runner.from_cfg": _PY_NP_TORCH,
    "mmengine.runner.FlexibleRunner": _PY_NP_TORCH,
    "mmengine.runner.FlexibleRunner.from_cfg": _PY_NP_TORCH,
    "paddle.seed": frozenset(),
    # speechbrain/utils/seed.py seed_everything: random, NumPy, torch and every CUDA device.
    "speechbrain.utils.seed_everything": _PY_NP_TORCH,
    "speechbrain.utils.seed.seed_everything": _PY_NP_TORCH,
    # SpeechBrain recipes seed in the hparams file they load first thing in ``__main__``
    # (``__set_seed: !apply:speechbrain.utils.seed_everything [!ref <seed>]``: 207 of the 242
    # recipe files at speechbrain 9c826ef); see CONFIG_FILE_SEEDERS.
    "hyperpyyaml.load_hyperpyyaml": _PY_NP_TORCH,
}

# Loaders of configuration files that can seed: the file comes from the command line, so the
# project's files of that kind beside the entry script (its folder and the folders in it)
# decide.  Loading one seeds what those files name (``__set_seed: !apply:torch.manual_seed``
# seeds torch only); when there are such files and none seeds, loading seeds nothing; with none
# found (or no project), it counts as the table above says.
# loader -> (file suffixes, {word: frameworks it seeds}).
CONFIG_FILE_SEEDERS = {
    "hyperpyyaml.load_hyperpyyaml": ((".yaml", ".yml"), {
        "seed_everything": _PY_NP_TORCH,
        "torch.manual_seed": frozenset({TORCH, CUDA}),
        "np.random.seed": frozenset({NUMPY}),
        "numpy.random.seed": frozenset({NUMPY}),
        "random.seed": frozenset({RANDOM}),
    }),
}
CONFIG_FILES_READ = 64  # at most this many files are read per entry script

# Methods that seed whatever object they are called on: Lightning Fabric's
# ``fabric.seed_everything(...)`` (facts §8) seeds like the function.
SEEDING_METHODS = {"seed_everything": _PY_NP_TORCH}

# Hugging Face ``Trainer`` (and trl's trainers, its subclasses) seed random, NumPy
# and torch when built: ``set_seed(args.seed)`` (or ``enable_full_determinism``),
# ``TrainingArguments.seed`` defaulting to 42 (facts §8).  Anything built before
# the Trainer (the model, its new head, a PEFT adapter) is initialised unseeded.
# sentence-transformers' SentenceTransformerTrainer (and CrossEncoderTrainer, SparseEncoderTrainer)
# subclass it (sentence_transformers/trainer.py).
SEEDING_TRAINER_ROOTS = frozenset({"transformers", "trl", "sentence_transformers"})
SEEDING_TRAINER_SUFFIX = "Trainer"
TRAINER_SEEDS = _PY_NP_TORCH
SEEDABLE_ROOTS |= SEEDING_TRAINER_ROOTS  # a Trainer script: the block calls transformers.set_seed
# Libraries whose ``*Trainer`` a run builds to train (and which pick the GPU when there is one).
TRAINER_ROOTS = SEEDING_TRAINER_ROOTS | {"lightning", "accelerate"}
MODEL_INIT_KEYWORD = "model_init"  # a Trainer that builds the model itself, after seeding
# What draws new weights before such a Trainer seeds: a PEFT adapter (LoRA's A is
# random), a pretrained model with a new head, a model built from a config.
PEFT_CONFIG_KEYWORD = "peft_config"  # trl trainers wrap the model in an adapter first
# sentence-transformers' Dense, LSTM and CNN modules hold new nn.Linear / nn.LSTM / nn.Conv1d.
NEW_WEIGHTS_CALLS = frozenset({
    "peft.get_peft_model", "peft.inject_adapter_in_model", "sentence_transformers.models.Dense",
    "sentence_transformers.models.LSTM", "sentence_transformers.models.CNN",
})
NEW_HEAD_SUFFIXES = ("ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering",
                     "ForMultipleChoice", "ForImageClassification", "ForAudioClassification",
                     "ForAudioFrameClassification", "ForSemanticSegmentation", "ForObjectDetection",
                     # trl's value-head wrappers add a fresh ``nn.Linear`` value head
                     # (trl/experimental/ppo/modeling_value_head.py ``ValueHead.summary``).
                     "WithValueHead")
NEW_WEIGHTS_METHODS = frozenset({"from_config"})
# Models built with a keyword that sizes a new head: ``CrossEncoder("bert-base-uncased", num_labels=1)``.
NEW_HEAD_KEYWORDS = {
    "sentence_transformers.CrossEncoder": "num_labels",
    "sentence_transformers.cross_encoder.CrossEncoder": "num_labels",
}

# Library classes that seed when built, whose top-level package name a project often uses for a
# module of its own (``trainer.py``): they count only when the project does not define the name.
# coqui's ``trainer.Trainer.__init__`` calls ``setup_torch_training_env(training_seed=
# config.training_seed)``, which seeds random, NumPy and torch (coqui-ai/Trainer
# trainer/trainer.py ``setup_training_environment``; trainer/trainer_utils.py).
SEEDING_LIBRARY_CLASSES = {
    "trainer.Trainer": _PY_NP_TORCH,
    "trainer.trainer.Trainer": _PY_NP_TORCH,
}

# Classes that seed when built with a seed keyword: Lightning's ``LightningCLI`` calls
# ``seed_everything(seed_everything_default, workers=True)`` unless the value is a bool (True picks
# a random seed every run; False seeds nothing): lightning/pytorch/cli.py ``LightningCLI._set_seed``.
SEEDING_KEYWORDS = {
    "lightning.pytorch.cli.LightningCLI": ("seed_everything_default", _PY_NP_TORCH),
    "lightning.pytorch.LightningCLI": ("seed_everything_default", _PY_NP_TORCH),
    "pytorch_lightning.cli.LightningCLI": ("seed_everything_default", _PY_NP_TORCH),
    "pytorch_lightning.utilities.cli.LightningCLI": ("seed_everything_default", _PY_NP_TORCH),
}

# A TensorFlow Estimator builds its model in a graph of its own and seeds it with its
# ``RunConfig(tf_random_seed=...)`` (tensorflow_estimator estimator.py ``_train_model_default``:
# ``random_seed.set_random_seed(self._config.tf_random_seed)``); the default graph's seed never
# reaches it.  The TPU ``RunConfig`` passes the keyword on to ``tf.estimator.RunConfig``.
ESTIMATOR_SEED_KEYWORD = "tf_random_seed"


def is_estimator_config(qualname: str) -> bool:
    """``tf.estimator.RunConfig``, ``tf.estimator.tpu.RunConfig``, ``tf.contrib.tpu.RunConfig``,
    ``tensorflow_estimator``'s."""
    return qualname.startswith("tensorflow") and qualname.endswith(".RunConfig") and (
        "estimator" in qualname or ".tpu." in qualname)


def seeds_when_built(qualname: str) -> bool:
    """``transformers.Trainer``, ``trl.SFTTrainer``, ... (not ``TrainerCallback``)."""
    return qualname.split(".", 1)[0] in SEEDING_TRAINER_ROOTS and qualname.endswith(SEEDING_TRAINER_SUFFIX)

# Helpers whose seed argument falls back to a random seed when omitted or None
# (name -> (keyword, position)); DET105 at the call.  Catalog §8, §10.
SEED_REQUIRED = {
    "random.seed": ("a", 0),
    "numpy.random.seed": ("seed", 0),
    "tensorflow.random.set_seed": ("seed", 0),
    "mmengine.runner.set_random_seed": ("seed", 0),
    "mmdet.apis.init_random_seed": ("seed", 0),
    "detectron2.utils.env.seed_all_rng": ("seed", 0),
    "numpy.random.RandomState().seed": ("seed", 0),
    "random.Random().seed": ("a", 0),
}

# Calls that always reseed from OS entropy.
ALWAYS_NONDETERMINISTIC = frozenset(
    {
        "torch.seed",
        "torch.cuda.seed",
        "torch.cuda.seed_all",
        "torch.Generator().seed",
        "mindspore.seed",
        "mindspore.Generator().seed",
    }
)

# Where the seed argument sits for the seeding calls above (default: first
# positional or ``seed=``).
SEED_ARGUMENT = {
    "random.seed": ("a", 0),
    "torch.manual_seed": ("seed", 0),
    "torch.Generator().manual_seed": ("seed", 0),
    "keras.utils.set_random_seed": ("seed", 0),
}

# Names that contain "seed" but do not seed anything (the heuristic skips them).
NOT_SEEDING_NAMES = frozenset(
    {"initial_seed", "get_seed", "seed_worker", "worker_init_fn", "SeedSequence", "SeedGenerator"}
)
# A function we cannot see into is a seeding helper by its name: ``seed`` in it (``set_seed``,
# ``init_seeds``; the contract), and in default mode also one that sets or fixes ``randomness``
# (``zero.set_randomness``: whether it seeds is unknown, and default mode is quiet where a link is
# unknown; ``add_randomness`` is no such name).
SEEDING_WORD = "seed"
_SETS_RANDOMNESS = re.compile(r"^_*(set|fix|init|reset|control)_?randomness", re.IGNORECASE)


def named_like_seeding(name: str, strict: bool = False) -> bool:
    """Is ``name`` (the last part of a callee's name) a seeding helper's name?  The one answer
    for the linted file, the project summaries and the fixer's helper search."""
    if name in NOT_SEEDING_NAMES or name.startswith("get_"):
        return False
    return SEEDING_WORD in name.lower() or (not strict and _SETS_RANDOMNESS.match(name) is not None)


# Method names that, on an object we cannot resolve, seed that object only
# (a generator), not a framework's global RNG.
OBJECT_SEED_METHODS = frozenset({"manual_seed", "seed"})

# Sources whose value differs run to run (facts §10): a seed built from them is DET105.
ENTROPY_PREFIXES = ("time.", "secrets.", "uuid.")
ENTROPY_CALLS = frozenset(
    {
        "os.urandom",
        "os.getpid",
        "datetime.datetime.now",
        "datetime.datetime.utcnow",
        "datetime.datetime.today",
        "datetime.date.today",
        "random.SystemRandom",
    }
)

# Explicit seeds given as keyword arguments (DET100 treats them as "the author
# handled seeding": an sklearn script passing random_state=0 is not unseeded).
EXPLICIT_SEED_KEYWORDS = frozenset({"random_state", "seed"})
# Seeding an object (``RandomForestClassifier(random_state=0)``) is seeding in the run: a
# pseudo-framework the seeding events carry, so a run seeding only that way is no DET100 run.
EXPLICIT_SEED = "an explicit random_state= or seed="


# Where a run records its configuration, so a seed drawn as a fallback is kept with the run
# (DET105: ``wandb.config.update(args)`` after ``args.seed = random.randint(...)``).
RUN_RECORDERS = frozenset({
    "wandb.init", "wandb.config.update", "wandb.log", "mlflow.log_param", "mlflow.log_params",
    "rich.print", "pprint.pprint", "json.dump", "yaml.dump", "yaml.safe_dump",
})
