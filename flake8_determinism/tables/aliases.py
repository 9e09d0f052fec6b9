"""Spellings that reach the same object, rewritten to one canonical prefix.

Resolution turns ``import tensorflow as tf; tf.random.uniform`` into
``tensorflow.random.uniform``; these rewrites then fold re-exports and legacy
package names onto the names used in the other tables.
"""

# (prefix, canonical prefix); the longest matching prefix wins.
PREFIX_REWRITES = (
    ("tensorflow.keras.", "keras."),
    ("tf_keras.", "keras."),
    ("keras.src.", "keras."),
    ("pytorch_lightning.", "lightning.pytorch."),
    ("lightning_fabric.", "lightning.fabric."),
    ("lightning.pytorch.seed_everything", "lightning.seed_everything"),
    ("lightning.fabric.seed_everything", "lightning.seed_everything"),
    ("lightning.fabric.utilities.seed.seed_everything", "lightning.seed_everything"),
    ("lightning.pytorch.utilities.seed.seed_everything", "lightning.seed_everything"),
    ("torch.utils.data.dataloader.", "torch.utils.data."),
    ("torch.utils.data.sampler.", "torch.utils.data."),
    ("torch.utils.data.dataset.", "torch.utils.data."),
    ("torch.random.", "torch."),
    ("torch.functional.", "torch."),
    ("torch.nn.modules.dropout.", "torch.nn."),
    ("torch.nn.modules.conv.", "torch.nn."),
    ("torch.nn.modules.pooling.", "torch.nn."),
    ("torch.nn.modules.padding.", "torch.nn."),
    ("torch.nn.modules.loss.", "torch.nn."),
    ("torch.nn.modules.sparse.", "torch.nn."),
    ("torch.nn.modules.upsampling.", "torch.nn."),
    ("torchvision.transforms.transforms.", "torchvision.transforms."),
    ("torchvision.transforms.autoaugment.", "torchvision.transforms."),
    ("mindspore.dataset.vision.c_transforms.", "mindspore.dataset.vision."),
    ("mindspore.dataset.vision.py_transforms.", "mindspore.dataset.vision."),
    ("mindspore.dataset.vision.transforms.", "mindspore.dataset.vision."),
    ("mindspore.dataset.transforms.c_transforms.", "mindspore.dataset.transforms."),
    ("mindspore.dataset.transforms.py_transforms.", "mindspore.dataset.transforms."),
    ("mindspore.dataset.transforms.transforms.", "mindspore.dataset.transforms."),
    ("mindspore.context.", "mindspore."),
    ("numpy.random.mtrand.", "numpy.random."),
    ("transformers.trainer_utils.", "transformers."),
    ("accelerate.utils.random.", "accelerate.utils."),
    ("mmengine.runner.utils.", "mmengine.runner."),
    ("mmengine.runner.runner.", "mmengine.runner."),
    ("mmengine.runner._flexible_runner.", "mmengine.runner."),
    ("timm.utils.random.", "timm.utils."),
    ("monai.utils.misc.", "monai.utils."),
    ("monai.set_determinism", "monai.utils.set_determinism"),
    ("fastai.torch_core.", "fastai."),
    ("mindspore.common.seed.", "mindspore."),
    ("mindspore.common.set_seed", "mindspore.set_seed"),
    ("mindspore.common.manual_seed", "mindspore.manual_seed"),
    ("mindspore.common.generator.", "mindspore."),
    ("mindspore.dataset.core.config.", "mindspore.dataset.config."),
    ("keras.utils.rng_utils.", "keras.utils."),
    ("mmcv.runner.utils.", "mmcv.runner."),
    ("mmdet.apis.train.", "mmdet.apis."),
    ("mindspore.ops.function.random_func.", "mindspore.ops."),
)

# Top-level packages whose names we know; a call resolving into one of them is
# judged by the tables only (never by the "name contains seed" heuristic).
KNOWN_ROOTS = frozenset(
    {
        "random", "numpy", "torch", "tensorflow", "keras", "mindspore", "jax",
        "sklearn", "lightning", "transformers", "accelerate", "mmengine", "mmcv",
        "mmdet", "detectron2", "timm", "fastai", "paddle", "os", "time", "datetime",
        "secrets", "uuid", "glob", "pathlib", "torchvision", "albumentations", "monai",
    }
)
