"""Calls that draw from a framework's global (hidden) RNG.  Catalog §1.1(a), §2, §3, §4, §6."""

# Python's ``random`` module-level functions: bound methods of the hidden
# ``random._inst`` (facts §3).
PYTHON_RANDOM = frozenset(
    "random." + n
    for n in (
        "random uniform triangular randint choice randrange sample shuffle choices "
        "normalvariate lognormvariate expovariate vonmisesvariate gammavariate gauss "
        "betavariate paretovariate weibullvariate getrandbits randbytes binomialvariate"
    ).split()
)

# NumPy's 47 legacy global-state functions (facts §2).
NUMPY_LEGACY = frozenset(
    "numpy.random." + n
    for n in (
        "beta binomial bytes chisquare choice dirichlet exponential f gamma geometric "
        "gumbel hypergeometric laplace logistic lognormal logseries multinomial "
        "multivariate_normal negative_binomial noncentral_chisquare noncentral_f normal "
        "pareto permutation poisson power rand randint randn random random_integers "
        "random_sample ranf rayleigh sample shuffle standard_cauchy standard_exponential "
        "standard_gamma standard_normal standard_t triangular uniform vonmises wald "
        "weibull zipf"
    ).split()
)

# torch functions drawing from the global generator unless ``generator=`` is
# passed (facts §1.1(a)); nn.init's random initializers included.
TORCH_GLOBAL = frozenset(
    [
        "torch." + n
        for n in (
            "rand rand_like randn randn_like randint randint_like randperm normal "
            "bernoulli multinomial poisson binomial _standard_gamma _sample_dirichlet"
        ).split()
    ]
    + [
        "torch.nn.init." + n
        for n in (
            "uniform_ normal_ trunc_normal_ xavier_uniform_ xavier_normal_ "
            "kaiming_uniform_ kaiming_normal_ orthogonal_ sparse_ uniform normal "
            "xavier_uniform xavier_normal kaiming_uniform kaiming_normal orthogonal sparse"
        ).split()
    ]
)

# ``nn.init.sparse_`` calls ``torch.randperm`` without the generator (facts §1.1(a)).
TORCH_IGNORES_GENERATOR = frozenset({"torch.nn.init.sparse_", "torch.nn.init.sparse"})

# Tensor methods drawing from the global generator; matched by method name in
# modules that import torch, since the receiver's type is not known statically.
# Only names no other common library uses for a method (``multinomial`` is
# also a NumPy Generator method, so it is left out).
TENSOR_METHODS = frozenset(
    "uniform_ normal_ random_ bernoulli bernoulli_ exponential_ geometric_ cauchy_ log_normal_".split()
)

# TensorFlow stateful random ops and Keras random functions/initializers:
# name -> position of the ``seed`` argument (None: keyword only).  Catalog §4.
TF_DRAWS = {
    "tensorflow.random.uniform": 4,
    "tensorflow.random.normal": 4,
    "tensorflow.random.truncated_normal": 4,
    "tensorflow.random.categorical": 3,
    "tensorflow.random.shuffle": 1,
    "tensorflow.random.gamma": 4,
    "tensorflow.random.poisson": 3,
    "tensorflow.random.uniform_candidate_sampler": 5,
    "tensorflow.random.log_uniform_candidate_sampler": 5,
    "tensorflow.random.learned_unigram_candidate_sampler": 5,
    "tensorflow.random.fixed_unigram_candidate_sampler": None,
    "tensorflow.random.all_candidate_sampler": 3,
    "tensorflow.random.get_global_generator": None,
    "tensorflow.data.Dataset.random": 0,
    "tensorflow.data.Dataset.sample_from_datasets": None,
    "tensorflow.data.experimental.sample_from_datasets": None,
    "keras.random.beta": None,
    "keras.random.binomial": None,
    "keras.random.categorical": None,
    "keras.random.gamma": None,
    "keras.random.normal": None,
    "keras.random.randint": None,
    "keras.random.shuffle": None,
    "keras.random.truncated_normal": None,
    "keras.random.uniform": None,
}
for _name in (
    "RandomNormal RandomUniform TruncatedNormal VarianceScaling GlorotNormal GlorotUniform "
    "HeNormal HeUniform LecunNormal LecunUniform Orthogonal random_normal random_uniform "
    "truncated_normal variance_scaling glorot_normal glorot_uniform he_normal he_uniform "
    "lecun_normal lecun_uniform orthogonal"
).split():
    TF_DRAWS["keras.initializers." + _name] = None

# MindSpore random ops: legacy ops seeded by ``mindspore.set_seed`` and the
# ``mint`` ops on the Generator system (facts §6).  name -> seed position.
MINDSPORE_DRAWS = {
    "mindspore.ops." + n: None
    for n in (
        "uniform standard_normal standard_laplace gamma poisson random_gamma "
        "random_poisson random_categorical multinomial shuffle choice_with_mask "
        "uniform_candidate_sampler log_uniform_candidate_sampler rand randn randint "
        "rand_like randn_like randint_like bernoulli normal laplace randperm "
        "StandardNormal StandardLaplace UniformReal UniformInt Gamma Poisson "
        "RandomCategorical Multinomial RandomChoiceWithMask"
    ).split()
}
MINDSPORE_DRAWS.update(
    {
        "mindspore.mint." + n: None
        for n in "rand randn randint randperm normal multinomial bernoulli rand_like randn_like randint_like".split()
    }
)

# Draws that make random inputs for a self-test (``analysis/demos.py``);
# ``nn.init`` initialises weights, it makes no input.
RANDOM_INPUTS = frozenset(
    name for name in PYTHON_RANDOM | NUMPY_LEGACY | TORCH_GLOBAL | frozenset(TF_DRAWS) | frozenset(MINDSPORE_DRAWS)
    if not name.startswith("torch.nn.init.")
)


def _draw_frameworks() -> dict:
    from .seeding import NUMPY, RANDOM, TORCH

    found = {name: RANDOM for name in PYTHON_RANDOM}
    found.update((name, NUMPY) for name in NUMPY_LEGACY)
    found.update((name, TORCH) for name in TORCH_GLOBAL if not name.startswith("torch.nn.init."))
    return found


# A global draw -> the framework whose RNG it draws from (DET105: a seed drawn before that RNG is seeded).
DRAW_FRAMEWORK = _draw_frameworks()
