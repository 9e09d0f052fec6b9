"""Seeding calls and ecosystem helpers: what each one really seeds.  Catalog §1.1(b), §2-§4, §6, §8.

Frameworks are the global RNGs the draw rules track: ``random``, ``numpy``,
``torch`` (CPU default generator), ``tensorflow``, ``mindspore``; ``cuda`` marks
calls that seed only CUDA generators (a seeding event, but not of torch's CPU RNG).
"""

RANDOM, NUMPY, TORCH, TF, MS, CUDA = "random", "numpy", "torch", "tensorflow", "mindspore", "cuda"
MS_DATASET = "mindspore.dataset"  # the pipeline seed of mindspore.dataset
FRAMEWORKS = (RANDOM, NUMPY, TORCH, TF, MS)
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
    # transformers 4.x also seeds TF; 5.x does not.  Precision first: assume 4.x.
    "transformers.set_seed": _PY_NP_TORCH | {TF},
    "transformers.enable_full_determinism": _PY_NP_TORCH | {TF},
    "accelerate.utils.set_seed": _PY_NP_TORCH,
    "mmengine.runner.set_random_seed": _PY_NP_TORCH,
    "mmcv.runner.set_random_seed": _PY_NP_TORCH,
    "mmdet.apis.set_random_seed": _PY_NP_TORCH,
    "detectron2.utils.env.seed_all_rng": _PY_NP_TORCH,
    "timm.utils.random_seed": _PY_NP_TORCH,
    "fastai.set_seed": _PY_NP_TORCH,
    "fastai.vision.all.set_seed": _PY_NP_TORCH,
    "paddle.seed": frozenset(),
}

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
# Method names that, on an object we cannot resolve, seed that object only
# (a generator), not a framework's global RNG.
OBJECT_SEED_METHODS = frozenset({"manual_seed", "seed"})

# Sources whose value differs run to run (catalog §10): a seed built from them is DET105.
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
