"""RNG objects created without a seed draw fresh OS entropy (DET103).  Catalog §2, §3, §4, §5.

name -> (seed keyword, seed position); the object is unseeded when that argument
is missing or the literal ``None``.  ``torch.Generator()`` is absent on purpose:
it starts from a fixed default seed (facts §1.0).
"""

UNSEEDED_CONSTRUCTORS = {
    "numpy.random.default_rng": ("seed", 0),
    "numpy.random.RandomState": ("seed", 0),
    "numpy.random.SeedSequence": ("entropy", 0),
    "numpy.random.PCG64": ("seed", 0),
    "numpy.random.PCG64DXSM": ("seed", 0),
    "numpy.random.MT19937": ("seed", 0),
    "numpy.random.Philox": ("seed", 0),
    "numpy.random.SFC64": ("seed", 0),
    "random.Random": ("x", 0),
    "jax.experimental.random.stateful_rng": ("seed", 0),
    # Optuna's samplers hold a RandomState of their own (``LazyRandomState(seed)``: none given,
    # ``np.random.RandomState()``; optuna/samplers/_lazy_random_state.py, _tpe/sampler.py).
    "optuna.samplers.TPESampler": ("seed", None),
    "optuna.samplers.RandomSampler": ("seed", None),
    "optuna.samplers.CmaEsSampler": ("seed", None),
    "optuna.samplers.NSGAIISampler": ("seed", None),
    "optuna.samplers.NSGAIIISampler": ("seed", None),
    "optuna.samplers.QMCSampler": ("seed", None),
    "optuna.samplers.GPSampler": ("seed", None),
}

# ``optuna.create_study()`` without ``sampler=`` builds ``TPESampler()``: unseeded
# (optuna/study/study.py ``Study.__init__``: ``sampler or samplers.TPESampler()``).
STUDY_FACTORIES = frozenset({"optuna.create_study"})
DEFAULT_SAMPLER = "{optuna}.samplers.TPESampler(seed={SEED})"

# albumentations >= 1.4.21: every ``Compose`` keeps its own ``np.random.default_rng(seed)`` and
# ``random.Random(seed)`` (albumentations/core/composition.py ``BaseCompose.__init__``/
# ``set_random_seed``); without ``seed=`` they draw OS entropy and no global seed reaches them.
# 1.4.20 and older draw from the global ``random``/NumPy RNGs (``random.random() < self.p``).
ALBUMENTATIONS_COMPOSE = frozenset({"albumentations.Compose", "albumentations.core.composition.Compose"})
ALBUMENTATIONS_DISTRIBUTION = "albumentations"
ALBUMENTATIONS_OWN_RNG_SINCE = (1, 4, 21)
# Transforms that draw nothing at their default ``p`` (1.0): a Compose of only these is not random
# (albumentations 1.4.21, the ``__init__`` defaults in augmentations/ and pytorch/transforms.py).
ALBUMENTATIONS_DETERMINISTIC = frozenset({
    "Normalize", "ToRGB", "ToFloat", "FromFloat", "Lambda", "CenterCrop", "Crop", "LongestMaxSize",
    "SmallestMaxSize", "Resize", "PadIfNeeded", "ToTensorV2", "NoOp",
})
# Containers: random only through what they hold (``OneOf``/``SomeOf`` choose, so they draw).
ALBUMENTATIONS_CONTAINERS = frozenset({"Compose", "Sequential"})
# Names gone before 1.4.21 (absent from its wheel): a module using them targets an older release,
# whose Compose draws from the global ``random``/NumPy RNGs that the run seeds.
ALBUMENTATIONS_REMOVED = frozenset({"RandomContrast", "RandomBrightness", "Cutout", "ToTensor", "JpegCompression"})
ALBUMENTATIONS_REMOVED_PREFIX = "IAA"  # IAASharpen, IAAAdditiveGaussianNoise, ...
# ``Compose.set_random_seed(seed)`` (1.4.21 core/composition.py) reseeds it and its transforms.
ALBUMENTATIONS_SEEDING_METHODS = frozenset({"set_random_seed"})

# MONAI (1.6): ``Randomizable.R = np.random.RandomState()`` (monai/transforms/transform.py), made
# from OS entropy at import and shared by every transform not yet seeded.  A ``Compose`` (and its
# random subclasses) seeds its transforms when built, from the seed of the last ``set_determinism``
# (monai/transforms/compose.py ``set_random_state(seed=get_seed())``, monai/utils/misc.py), and a
# MONAI ``Dataset`` wraps any other transform in a ``Compose`` (monai/data/dataset.py);
# ``monai.data.DataLoader`` reseeds the dataset's transforms (monai/data/dataloader.py,
# monai/data/utils.py ``set_rnd``), a torch DataLoader does not.
_MONAI_RANDOM_COMPOSES = ("OneOf", "SomeOf", "RandomOrder")
MONAI_RANDOM_TRANSFORMS = ("monai.transforms.Rand",) + tuple(  # RandFlip, RandCropByPosNegLabeld, ...
    "monai.transforms." + name for name in _MONAI_RANDOM_COMPOSES)
MONAI_COMPOSE = frozenset({"monai.transforms.Compose", "monai.transforms.compose.Compose"} | {
    "monai.transforms." + name for name in _MONAI_RANDOM_COMPOSES})
MONAI_TRANSFORM_PREFIXES = frozenset({"monai.transforms."})
MONAI_DATASETS = frozenset({"monai.data.", "monai.apps."})  # Dataset, CacheDataset, DecathlonDataset, ...
MONAI_SEEDING_METHOD = "set_random_state"
MONAI_SET_DETERMINISM = "monai.utils.set_determinism"
MONAI_WORKER_INIT = frozenset({"monai.data.worker_init_fn", "monai.data.utils.worker_init_fn"})
TORCH_DATALOADER = "torch.utils.data.DataLoader"

# Constructors that are unseeded whatever their arguments.
ALWAYS_UNSEEDED = frozenset({"tensorflow.random.Generator.from_non_deterministic_state"})

# Reinforcement-learning environments: each holds its own RNG (``env.np_random``), seeded only
# by ``env.reset(seed=...)`` (gymnasium; gym >= 0.22) or ``env.seed(...)`` (older gym); the first
# reset without a seed draws OS entropy (gymnasium/core.py ``Env.reset``, utils/seeding.py).
# Vector environments seed their copies ``seed + i`` from one ``reset(seed=...)``
# (gymnasium/vector/sync_vector_env.py ``reset``), and draw fresh entropy without one.
ENV_MAKERS = frozenset({"gymnasium.make", "gym.make", "gymnasium.make_vec", "gym.vector.make",
                        "gymnasium.vector.make", "gym.vector.SyncVectorEnv", "gym.vector.AsyncVectorEnv",
                        "gymnasium.vector.SyncVectorEnv", "gymnasium.vector.AsyncVectorEnv"})
ENV_SEEDING_METHODS = frozenset({"seed"})  # ``env.seed(s)``: older gym
