"""Every rule, in code order: what the plugin, ``determinism-fix``, the docs and SARIF iterate.

The one module that imports the rules (``rules/detNNN.py``); nothing below it does."""

from .rules.det100 import UnseededTrainingScript
from .rules.det101 import UnseededPythonRandom
from .rules.det102 import UnseededNumpyGlobal
from .rules.det103 import UnseededRngObject
from .rules.det104 import UnseededTorchGlobal
from .rules.det105 import NonReproducibleSeed
from .rules.det106 import UnseededTensorFlow
from .rules.det107 import UnseededMindSpore
from .rules.det108 import SklearnWithoutRandomState
from .rules.det109 import OptionalSeed
from .rules.det110 import ResumeWithoutRngState
from .rules.det201 import DataLoaderWorkersWithoutInitFn
from .rules.det202 import DataLoaderWithoutGenerator
from .rules.det203 import UnseededShuffle
from .rules.det204 import DatasetHeldRng
from .rules.det205 import SamplerWithoutGenerator
from .rules.det206 import UnsortedListing
from .rules.det207 import OrderFromSet
from .rules.det208 import HashSeedSetInProcess
from .rules.det209 import HashDecidesResult
from .rules.det210 import ParallelPipelineOrder
from .rules.det301 import CudnnBenchmark
from .rules.det302 import CudnnNotDeterministic
from .rules.det303 import DeterministicAlgorithmsOff
from .rules.det304 import NondeterministicCudaOp
from .rules.det305 import CublasWorkspaceNotSet
from .rules.det306 import TensorFlowOpDeterminismOff
from .rules.det307 import UninitializedMemory
from .rules.det401 import UnseededDropout
from .rules.det402 import UnseededRandomTransform
from .rules.det403 import DropoutAtEvaluation

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
