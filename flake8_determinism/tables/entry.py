"""What makes a module an entry module (docs/contract.md "Entry module"), and a test module.

A module-level call statement means the module runs something when executed,
like a script -- except calls that only configure or build tables, which
library modules make at import time too.
"""

import re

# Module-level calls that only configure (docs/contract.md "Configuration is not work").
DECLARATIVE_PREFIXES = ("warnings.", "logging.", "sys.path.", "__all__.", "os.environ.", "importlib.")
# ``warn_missing_pkg("torchvision")`` in an optional import's ``else:``: a warning, not work.
DECLARATIVE_WORDS = ("register", "add_docstr", "setattr", "filterwarnings", "simplefilter", "warn",
                     "getLogger", "basicConfig", "setLevel", "addHandler", "_log_api_usage")
# ``set_*``/``enable_*``/``disable_*`` (also ``torch._C._jit_set_*``, ``cv2.setNumThreads``),
# ``matplotlib.use``, argparse and absl flag declarations.
CONFIGURING_NAME = re.compile(r"^_*(?:[a-z0-9]+_)*?(?:set|enable|disable)(?:_|[A-Z])|^DEFINE_")
CONFIGURING_METHODS = frozenset({"use", "add_argument", "add_argument_group", "set_defaults",
                                 "init_default_scope"})
# API export registration (``tf_export(...)``, ``mm_export(...).export_constant(...)``).
EXPORTING = re.compile(r"^export_|_export$")
LOGGER_NAMES = ("log", "logger")  # a receiver named like a logger: ``LOGGER.warning(...)``
TABLE_BUILDING_METHODS = frozenset({"append", "extend", "update", "add", "setdefault", "insert"})


def is_declarative_call(dotted_callee: str, method: str) -> bool:
    """``dotted_callee``: ``a.b.c`` spelling of the callee ('' if not a plain chain);
    ``method``: the called attribute's name ('' if not an attribute call)."""
    if method in TABLE_BUILDING_METHODS or method in CONFIGURING_METHODS or EXPORTING.search(method):
        return True
    if not dotted_callee:
        return False
    if dotted_callee.startswith(DECLARATIVE_PREFIXES) or any(w in dotted_callee for w in DECLARATIVE_WORDS):
        return True
    last = dotted_callee.rsplit(".", 1)[-1]
    if CONFIGURING_NAME.match(last) or EXPORTING.search(last):
        return True
    receiver = dotted_callee.split(".", 1)[0].lower() if method else ""
    return receiver.endswith(LOGGER_NAMES)

# Test modules (docs/contract.md "Test modules"): draw random inputs on purpose.  In
# default mode only these codes are reported in them.
TEST_MODULE_CODES = frozenset({"DET105"})
# ``testing`` too: test-support packages (``torch/testing/_internal``, ``numpy/testing``) build
# random sample inputs on purpose, as tests do.
TEST_DIRECTORIES = frozenset({"tests", "test", "testing"})
TEST_FILE_NAMES = frozenset({"conftest.py"})
TEST_FILE_PREFIX, TEST_FILE_SUFFIX = "test_", "_test.py"
TEST_FUNCTION_PREFIX = "test_"
TEST_CASE_BASE_SUFFIX = "TestCase"  # unittest.TestCase, tf.test.TestCase, parameterized.TestCase, ...

# A self-test (``analysis/demos.py``) keeps no result: its entry code calls none of these.
RESULT_WRITERS = frozenset(
    {"save", "savez", "savez_compressed", "savetxt", "save_image", "imwrite", "imsave", "write", "writelines",
     "dump", "to_csv", "to_json", "to_parquet", "savefig", "save_pretrained", "push_to_hub", "export",
     "add_scalar", "log_metrics", "save_checkpoint", "save_model", "save_weights"}
)
# ... and any method named for saving or writing (``pymesh.save_mesh``, ``write_ply``, ``dump_json``).
_WRITER_PREFIXES = ("save_", "write_", "dump_", "export_")


def writes_result(method: str) -> bool:
    """A call (by its method or function name) that writes a result."""
    return method in RESULT_WRITERS or method.startswith(_WRITER_PREFIXES)


# Work (docs/contract.md "Entry module (tightened)"): a module is an entry only when the code its
# ``__main__`` block or module-level statements run trains, evaluates, generates or writes a result
# (``calls.does_work``).  Besides training (``calls.trains``): these methods, on anything ...
# (not a logger's ``info``/``warning``: library code logs too, and a library module whose
# reached code only logs is no program)
WORK_METHODS = RESULT_WRITERS | frozenset(
    {"evaluate", "validate", "test", "predict", "generate", "sample", "inference", "infer", "show",
     "log_dict", "add_scalars", "add_image", "add_images", "add_figure",
     "add_histogram", "add_text", "log_metric", "log_artifact", "to_excel", "tofile", "print",
     "optimize"}
)
# ... and these functions.
WORK_FUNCTIONS = frozenset({"print", "pprint.pprint", "tqdm.tqdm.write", "torch.save", "numpy.save",
                            "numpy.savez", "numpy.savetxt", "torch.onnx.export", "torch.jit.save"})

# Timing benchmarks (docs/contract.md "Programs nobody reruns for their numbers"): named so
# (``training_benchmark.py``, ``bench_gcn.py``), under a ``benchmarks/`` folder, or timing their work
# with these and neither training nor saving a result.
BENCHMARK_NAME = re.compile(r"(^|[_-])(bench(mark)?s?|speed|latency|fps|throughput)([_-]|$)", re.IGNORECASE)
BENCHMARK_FOLDERS = frozenset({"benchmark", "benchmarks", "bench"})
TIMERS = frozenset({"time.perf_counter", "time.perf_counter_ns", "timeit.timeit", "timeit.repeat",
                    "timeit.default_timer", "timeit.Timer", "torch.cuda.Event"})
TIMER_PREFIXES = ("torch.utils.benchmark.", "triton.testing.do_bench")

# A run whose only output is a picture on the screen (and constants or shapes printed): a viewer
# or a visual demo, nobody reruns it for numbers ("Default mode reports facts about reruns": a
# shown picture is no result).  By qualified name, and methods of a plotting or GUI object.
DISPLAYS = frozenset({"matplotlib.pyplot.show", "cv2.imshow", "cv2.waitKey", "mayavi.mlab.show",
                      "open3d.visualization.draw_geometries"})
DISPLAY_METHODS = frozenset({"imshow", "show"})


def times_work(name: str) -> bool:
    """A call (by qualified name) that times work: what makes a script a timing benchmark."""
    return name in TIMERS or name.startswith(TIMER_PREFIXES)

# Export and tracing take an example input only for its shape: a draw that feeds
# nothing else is a dummy input, not a result (the draw rules, default mode).
TRACING_CALLS = frozenset({"torch.onnx.export", "torch.onnx.dynamo_export", "torch.jit.trace",
                           "torch.jit.trace_module", "torch.export.export", "tensorflow.saved_model.save"})
TRACING_METHODS = frozenset({"to_onnx", "to_torchscript"})

# Wrap a function into another callable without calling it (``partial(fn, shuffle=True)``, a method
# bound to an object: ``model.train = MethodType(train, model)``): a function passed to one of
# these is not passed on to be run (who calls the wrapper, and whether, is not seen).
WRAPS_WITHOUT_CALLING = frozenset({"functools.partial", "functools.partialmethod", "functools.wraps",
                                   "functools.update_wrapper", "types.MethodType"})
