"""Every rule, one class per module named after its code (``det104.py`` holds DET104);
``dataloader.py``, ``cudnn.py`` and ``stochastic.py`` hold what DET201/202,
DET301/302 and DET401/402 share."""

from .det100 import UnseededTrainingScript
from .det101 import UnseededPythonRandom
from .det102 import UnseededNumpyGlobal
from .det103 import UnseededRngObject
from .det104 import UnseededTorchGlobal
from .det105 import NonReproducibleSeed
from .det106 import UnseededTensorFlow
from .det107 import UnseededMindSpore
from .det108 import SklearnWithoutRandomState
from .det109 import OptionalSeed
from .det110 import ResumeWithoutRngState
from .det201 import DataLoaderWorkersWithoutInitFn
from .det202 import DataLoaderWithoutGenerator
from .det203 import UnseededShuffle
from .det204 import DatasetHeldRng
from .det205 import SamplerWithoutGenerator
from .det206 import UnsortedListing
from .det207 import OrderFromSet
from .det208 import HashSeedSetInProcess
from .det209 import HashDecidesResult
from .det210 import ParallelPipelineOrder
from .det301 import CudnnBenchmark
from .det302 import CudnnNotDeterministic
from .det303 import DeterministicAlgorithmsOff
from .det304 import NondeterministicCudaOp
from .det305 import CublasWorkspaceNotSet
from .det306 import TensorFlowOpDeterminismOff
from .det307 import UninitializedMemory
from .det401 import UnseededDropout
from .det402 import UnseededRandomTransform
from .det403 import DropoutAtEvaluation

ALL_RULES: tuple = (
    UnseededTrainingScript(),
    UnseededPythonRandom(),
    UnseededNumpyGlobal(),
    UnseededRngObject(),
    UnseededTorchGlobal(),
    NonReproducibleSeed(),
    UnseededTensorFlow(),
    UnseededMindSpore(),
    SklearnWithoutRandomState(),
    OptionalSeed(),
    ResumeWithoutRngState(),
    DataLoaderWorkersWithoutInitFn(),
    DataLoaderWithoutGenerator(),
    UnseededShuffle(),
    DatasetHeldRng(),
    SamplerWithoutGenerator(),
    UnsortedListing(),
    OrderFromSet(),
    HashSeedSetInProcess(),
    HashDecidesResult(),
    ParallelPipelineOrder(),
    CudnnBenchmark(),
    CudnnNotDeterministic(),
    DeterministicAlgorithmsOff(),
    NondeterministicCudaOp(),
    CublasWorkspaceNotSet(),
    TensorFlowOpDeterminismOff(),
    UninitializedMemory(),
    UnseededDropout(),
    UnseededRandomTransform(),
    DropoutAtEvaluation(),
)
# The rules whose reports ``determinism-fix`` can change (``--check`` and ``--diff`` run only these).
FIXABLE_RULES = tuple(rule for rule in ALL_RULES if rule.fixes)
