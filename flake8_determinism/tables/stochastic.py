"""Stochastic layers (DET401: dropout and noise) and random transforms (DET402).  Catalog §1.1(a), §4, §6, §9.

Each name maps to the global RNG it draws from and to the arguments that make
it inert or seed it: a literal zero rate (``nn.Dropout(0.0)``), a literal
``training=False`` (``F.dropout(x, training=False)``), an op-level ``seed=``.
"""

from typing import NamedTuple, Optional, Tuple

from .seeding import MS, MS_DATASET, RANDOM, TF, TORCH

# Keras layers draw from a SeedGenerator whose seed Keras 3 takes from Python's
# ``random`` (tf.keras 2 from TF's global seed): seeded when either one is.
KERAS = "keras"
KERAS_SEEDED_BY = (RANDOM, TF)

ArgRef = Tuple[str, Optional[int]]  # (keyword, position or None for keyword-only)


class Stochastic(NamedTuple):
    framework: str
    seed: Optional[ArgRef] = None  # op-level seed argument
    rate: Optional[ArgRef] = None  # a literal 0 here makes the op inert
    training: Optional[Tuple[str, int, bool]] = None  # (keyword, position, default); literal False: inert


def _torch_dropout_functional(training_default=True):
    return Stochastic(TORCH, rate=("p", 1), training=("training", 2, training_default))


# -- DET401: dropout and noise layers ----------------------------------------------
DROPOUT = {}
for _n in ("Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"):
    DROPOUT["torch.nn." + _n] = Stochastic(TORCH, rate=("p", 0))
for _n in ("dropout", "dropout1d", "dropout2d", "dropout3d"):
    DROPOUT["torch.nn.functional." + _n] = _torch_dropout_functional()
# DET403: the functionals whose ``training`` defaults to True (always on, even after ``.eval()``).
ALWAYS_ON_IN_FORWARD = frozenset("torch.nn.functional." + n for n in ("dropout", "dropout1d", "dropout2d", "dropout3d"))
for _n in ("alpha_dropout", "feature_alpha_dropout"):
    DROPOUT["torch.nn.functional." + _n] = _torch_dropout_functional(training_default=False)
for _n in ("dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout"):
    DROPOUT["torch." + _n] = Stochastic(TORCH, rate=("p", 1), training=("train", 2, True))
for _n, _seed in (("Dropout", 2), ("AlphaDropout", 2), ("SpatialDropout1D", 1), ("SpatialDropout2D", 1),
                  ("SpatialDropout3D", 1), ("GaussianDropout", 1), ("GaussianNoise", 1)):
    DROPOUT["keras.layers." + _n] = Stochastic(KERAS, seed=("seed", _seed), rate=("rate", 0))
DROPOUT["keras.layers.GaussianNoise"] = Stochastic(KERAS, seed=("seed", 1), rate=("stddev", 0))
DROPOUT["keras.random.dropout"] = Stochastic(KERAS, seed=("seed", 3), rate=("rate", 1))
DROPOUT["tensorflow.nn.dropout"] = Stochastic(TF, seed=("seed", 3), rate=("rate", 1))
for _n in ("nn.Dropout", "nn.Dropout1d", "nn.Dropout2d", "nn.Dropout3d", "ops.dropout", "ops.dropout1d",
           "ops.dropout2d", "ops.dropout3d", "ops.Dropout", "ops.Dropout2D", "ops.Dropout3D",
           "mint.nn.Dropout", "mint.nn.functional.dropout"):
    DROPOUT["mindspore." + _n] = Stochastic(MS)

# -- DET402: random transforms and augmentation layers ---------------------------------
_TORCHVISION_V1 = (
    "RandomApply RandomCrop RandomHorizontalFlip RandomVerticalFlip RandomResizedCrop "
    "RandomRotation RandomAffine RandomGrayscale RandomPerspective RandomErasing RandomInvert RandomPosterize "
    "RandomSolarize RandomAdjustSharpness RandomAutocontrast RandomEqualize ColorJitter GaussianBlur "
    "ElasticTransform AutoAugment RandAugment TrivialAugmentWide AugMix"
)
_TORCHVISION_V1_PYTHON_RANDOM = "RandomOrder RandomChoice"  # random.shuffle / random.choices
_TORCHVISION_V2 = (
    "RandomApply RandomChoice RandomOrder RandomAdjustSharpness RandomAffine RandomAutocontrast "
    "RandomChannelPermutation RandomCrop RandomEqualize RandomErasing RandomGrayscale RandomHorizontalFlip "
    "RandomInvert RandomIoUCrop RandomPerspective RandomPhotometricDistort RandomPosterize RandomResize "
    "RandomResizedCrop RandomRotation RandomShortestSize RandomSolarize RandomVerticalFlip RandomZoomOut "
    "ScaleJitter ColorJitter GaussianBlur GaussianNoise JPEG ElasticTransform AutoAugment RandAugment "
    "TrivialAugmentWide AugMix MixUp CutMix"
)
_KERAS_RANDOM_LAYERS = (
    "RandomBrightness RandomColorDegeneration RandomColorJitter RandomContrast RandomCrop "
    "RandomElasticTransform RandomErasing RandomFlip RandomGaussianBlur RandomGrayscale RandomHue RandomInvert "
    "RandomPerspective RandomPosterization RandomRotation RandomSaturation RandomSharpness RandomShear "
    "RandomTranslation RandomZoom RandAugment AugMix MixUp CutMix Solarization"
)
# tf.image.random_* -> position of ``seed``.
_TF_IMAGE = {
    "random_brightness": 2, "random_contrast": 3, "random_crop": 2, "random_flip_left_right": 1,
    "random_flip_up_down": 1, "random_hue": 2, "random_jpeg_quality": 3, "random_saturation": 3,
    "sample_distorted_bounding_box": 2,
}
_MINDSPORE_VISION = (
    "RandomAdjustSharpness RandomAffine RandomAutoContrast RandomColor RandomColorAdjust RandomCrop "
    "RandomCropDecodeResize RandomCropWithBBox RandomEqualize RandomErasing RandomGrayscale RandomHorizontalFlip "
    "RandomHorizontalFlipWithBBox RandomInvert RandomLighting RandomPerspective RandomPosterize RandomResize "
    "RandomResizeWithBBox RandomResizedCrop RandomResizedCropWithBBox RandomRotation RandomSelectSubpolicy "
    "RandomSharpness RandomSolarize RandomVerticalFlip RandomVerticalFlipWithBBox AutoAugment RandAugment "
    "TrivialAugmentWide UniformAugment CutMixBatch MixUp MixUpBatch CutOut"
)

RANDOM_TRANSFORMS = {}
for _n in _TORCHVISION_V1.split():
    RANDOM_TRANSFORMS["torchvision.transforms." + _n] = Stochastic(TORCH)
for _n in _TORCHVISION_V1_PYTHON_RANDOM.split():
    RANDOM_TRANSFORMS["torchvision.transforms." + _n] = Stochastic(RANDOM)
for _n in _TORCHVISION_V2.split():
    RANDOM_TRANSFORMS["torchvision.transforms.v2." + _n] = Stochastic(TORCH)
for _n in _KERAS_RANDOM_LAYERS.split():
    RANDOM_TRANSFORMS["keras.layers." + _n] = Stochastic(KERAS, seed=("seed", None))
for _n, _seed in _TF_IMAGE.items():
    RANDOM_TRANSFORMS["tensorflow.image." + _n] = Stochastic(TF, seed=("seed", _seed))
for _n in _MINDSPORE_VISION.split():
    RANDOM_TRANSFORMS["mindspore.dataset.vision." + _n] = Stochastic(MS_DATASET)
for _n in ("RandomApply", "RandomChoice", "RandomOrder"):
    RANDOM_TRANSFORMS["mindspore.dataset.transforms." + _n] = Stochastic(MS_DATASET)
