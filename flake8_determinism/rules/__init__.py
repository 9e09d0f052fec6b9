"""Every rule, one class per module named after its code (``det104.py`` holds DET104)."""

from .det100 import UnseededTrainingScript
from .det101 import UnseededPythonRandom
from .det102 import UnseededNumpyGlobal
from .det103 import UnseededRngObject
from .det104 import UnseededTorchGlobal
from .det105 import NonReproducibleSeed
from .det106 import UnseededTensorFlow
from .det107 import UnseededMindSpore
from .det108 import SklearnWithoutRandomState

ALL_RULES = (
    UnseededTrainingScript(),
    UnseededPythonRandom(),
    UnseededNumpyGlobal(),
    UnseededRngObject(),
    UnseededTorchGlobal(),
    NonReproducibleSeed(),
    UnseededTensorFlow(),
    UnseededMindSpore(),
    SklearnWithoutRandomState(),
)
