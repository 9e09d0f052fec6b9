"""What a run uses from the global RNGs besides the draw functions: layers whose constructor
initialises weights from it, library functions that draw from it, and the methods a framework
calls later on the objects a run builds.  Catalog §1.1(a), §4, §6; leads verified as noted."""

import re

from .seeding import MS, MS_DATASET, NUMPY, RANDOM, TF, TORCH
from .stochastic import KERAS, KERAS_SEEDED_BY

# MindSpore's weight initializers take their seed from ``np.random.randint`` unless
# ``mindspore.set_seed`` set the initializer seed: reproducible when either is seeded
# (facts §6, common/initializer.py:99-119).
MS_INIT = "mindspore.init"
# Uses seeded by any one of several global RNGs.
SEEDED_BY = {KERAS: KERAS_SEEDED_BY, MS_INIT: (MS, NUMPY)}

INITIALIZES = "initializes weights"  # what a weight-initializing use does, in messages
INIT_PREFIX = "torch.nn.init."  # its functions draw a layer's initial weights

# Layers whose constructor draws the initial weights from the framework's global RNG
# (torch: measured with ``torch.get_rng_state()`` before and after construction, facts
# §1.1(a); ``nn.Lazy*`` draw at their first forward instead, which the run reaches too).
_TORCH_LAYERS = (
    "Linear Bilinear LazyLinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d "
    "LazyConv1d LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d LazyConvTranspose3d "
    "RNN LSTM GRU RNNCell LSTMCell GRUCell Embedding EmbeddingBag MultiheadAttention "
    "TransformerEncoderLayer TransformerDecoderLayer Transformer AdaptiveLogSoftmaxWithLoss"
)
# Keras layers with a random default kernel initializer (``glorot_uniform``, ``seed=None``):
# drawn from the seed generator Keras seeds from ``random``/TF (facts §4).
_KERAS_LAYERS = (
    "Dense EinsumDense Conv1D Conv2D Conv3D Conv1DTranspose Conv2DTranspose Conv3DTranspose "
    "DepthwiseConv1D DepthwiseConv2D SeparableConv1D SeparableConv2D Embedding SimpleRNN LSTM GRU "
    "SimpleRNNCell LSTMCell GRUCell ConvLSTM1D ConvLSTM2D ConvLSTM3D MultiHeadAttention"
)
# MindSpore layers whose default initializers draw (``MS_INIT``).
_MINDSPORE_LAYERS = (
    "Dense Conv1d Conv2d Conv3d Conv1dTranspose Conv2dTranspose Conv3dTranspose Embedding "
    "LSTM GRU RNN LSTMCell GRUCell RNNCell BiDense"
)

WEIGHT_LAYERS = {}
for _n in _TORCH_LAYERS.split():
    WEIGHT_LAYERS["torch.nn." + _n] = TORCH
for _n in _KERAS_LAYERS.split():
    WEIGHT_LAYERS["keras.layers." + _n] = KERAS
for _n in _MINDSPORE_LAYERS.split():
    WEIGHT_LAYERS["mindspore.nn." + _n] = MS_INIT

# Model builders that initialise a model's weights from torch's RNG (torchvision builders
# without ``weights=``/``pretrained=`` draw every weight; timm's ``create_model`` likewise).
TORCH_MODEL_BUILDER_PREFIXES = ("torchvision.models.",)
TORCH_MODEL_BUILDERS = frozenset({"timm.create_model"})
PRETRAINED_KEYWORDS = frozenset({"weights", "pretrained"})

# Library functions that draw from a global RNG themselves: name -> (framework, what it does).
LIBRARY_DRAWS = {
    # torch_geometric.utils.negative_sampling samples with ``random.sample`` (read in
    # torch_geometric/utils/_negative_sampling.py).
    "torch_geometric.utils.negative_sampling": (RANDOM, "samples negatives"),
    "torch_geometric.utils.batched_negative_sampling": (RANDOM, "samples negatives"),
    "torch_geometric.utils.structured_negative_sampling": (TORCH, "samples negatives"),
    "torch.svd_lowrank": (TORCH, "draws a random projection"),
    "torch.pca_lowrank": (TORCH, "draws a random projection"),
    "torch.nn.utils.prune.random_unstructured": (TORCH, "prunes at random"),
    "torch.nn.utils.prune.random_structured": (TORCH, "prunes at random"),
}

# The frameworks' RNGs as the seeding rules name them.
RNG_NAMES = {
    RANDOM: "Python's random",
    NUMPY: "NumPy's global RNG",
    TORCH: "torch's RNG",
    TF: "TensorFlow's global seed",
    KERAS: "Keras's seed generator",
    MS: "MindSpore's global seed",
    MS_INIT: "MindSpore's initializer seed",
    MS_DATASET: "the mindspore.dataset seed",
}

# Methods a framework calls on the objects a run builds (a model's ``forward``, a dataset's
# ``__getitem__``): what they draw, they draw later, while the run trains.
MODEL_METHODS = frozenset({"forward", "__call__", "call", "construct"})  # construct: MindSpore's forward
# Context managers and decorators under which torch computes no gradients.
GRADIENTS_OFF = frozenset({"torch.no_grad", "torch.inference_mode"})
DATA_METHODS = frozenset({"__getitem__", "__getitems__", "__iter__", "__next__"})
DEFERRED_METHODS = MODEL_METHODS | DATA_METHODS

# Calls that load a model's weights from a checkpoint: a run that makes one overwrites the
# weights it initialized (an evaluation, export or resumed run), so their initialization is
# not one of its uses.
WEIGHT_LOADING_METHODS = frozenset({
    "load_state_dict", "load_param_into_net", "load_checkpoint", "load_weights", "load_from_checkpoint",
    "load_pretrained", "load_model",
})
# ... and functions named like them (``load_tf_weights_in_gpt2(model, ...)``).
WEIGHT_LOADING_NAME = re.compile(r"^load_\w*(?:weights|checkpoint|ckpt|state_dict|pretrained|network_pkl)")
# Dropout draws in training mode only: a run that never trains and puts its model in
# evaluation mode (``model.eval()``, ``model.train(False)``) draws no dropout mask.
MASKS_DROPOUT = "masks dropout"
# A random transform: in a run that only evaluates, augmentation is the training split's (behind a
# ``split``/``train`` switch the run's arguments turn off, often through a config or a factory
# the model cannot follow): not shown to run there ("Default mode reports facts about reruns").
AUGMENTS = "augments data"
EVAL_METHODS = frozenset({"eval"})
TRAIN_MODE_METHODS = frozenset({"train", "set_train"})  # with a literal False: evaluation mode
# A draw inside one of these builds a parameter: ``Parameter(Tensor(np.random.normal(...)))``
# initializes weights (a loaded checkpoint replaces them).
PARAMETER_CLASSES = frozenset({"Parameter"})


def loads_weights(method: str) -> bool:
    return method in WEIGHT_LOADING_METHODS or bool(WEIGHT_LOADING_NAME.match(method))

# Parameters that switch a function's training behaviour: called with a literal ``False`` (or
# ``None``/0) for one, the function draws nothing for training -- no augmentation, no
# shuffling (``create_dataset(path, train_mode=False)`` in an evaluation script).
TRAINING_SWITCHES = frozenset({
    "train", "training", "is_train", "is_training", "train_mode", "training_mode", "do_train", "for_training",
    "test_train", "train_flag", "augment", "augmentation", "do_augment", "shuffle", "random", "randomize",
    "random_sample",
})


# A run that can use CUDA (DET303 needs one): calls that pick the GPU when there is one
# (``torch_geometric.device('auto')``: cuda, else mps, else cpu -- torch_geometric/device.py),
# string arguments naming it, and keywords that only a GPU run passes (DDP's ``device_ids``).
GPU_PICKING = ("accelerate.Accelerator", "mmengine.runner.Runner", "mmengine.runner.FlexibleRunner",
               "torch_geometric.device")
GPU_KEYWORDS = frozenset({"device_ids"})
# A string naming the device: "cuda", "cuda:0", "gpu", "/gpu:0", "cuda:%d" -- not prose that
# mentions one (``ArgumentParser("multi-gpu training")``, ``help="GPU device ID"``).
_GPU_DEVICE = re.compile(r"^\s*/?(?:device:)?(?:cuda|gpu)(?::[\w%{}]*)?\s*$", re.IGNORECASE)


def names_gpu(text) -> bool:
    return isinstance(text, str) and _GPU_DEVICE.match(text) is not None
