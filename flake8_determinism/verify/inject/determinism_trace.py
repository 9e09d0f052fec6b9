"""The tracer ``determinism-verify --locate`` injects into the command's Python process.

It runs inside the user's program (its ``sitecustomize`` imports it), so it imports nothing but
the standard library until the program imports torch or NumPy itself, and it never raises into
the program: a hook that fails records the failure and stops tracing.

For the first ``DETERMINISM_TRACE_STEPS`` optimizer steps it records fingerprints (a BLAKE2b
hash of the bytes; of an evenly strided sample of ``SAMPLE`` elements for larger tensors) of:
each parameter when its model first runs, each batch a DataLoader yields (the sample indices
and the values apart), the global RNG states (random, NumPy, torch CPU and CUDA) before each
module's forward and at each step's end, each module's input and output by qualified name,
each gradient before the optimizer step and each parameter after it.  Then it removes its hooks
(nothing is recorded after step K) and writes the events as JSON to ``DETERMINISM_TRACE_OUT``;
a program that ends earlier (or never steps an optimizer) is written at exit.
"""

import atexit
import hashlib
import json
import os
import sys
import threading
import time
import weakref

OUT, STEPS, OWNER = "DETERMINISM_TRACE_OUT", "DETERMINISM_TRACE_STEPS", "DETERMINISM_TRACE_PID"
SAMPLE = 1 << 16  # elements hashed of a larger tensor (evenly strided)
VERSION = 1
_SKIPPED_FRAMES = (os.sep + "torch" + os.sep, os.sep + "determinism_trace.py", "<frozen ")


class Tracer:
    def __init__(self, path, steps):
        self.path, self.steps = path, steps
        self.events = []  # [kind, name, step, fingerprint, where, detail]
        self.step = 0
        self.done = False
        self.sampled = False
        self.errors = []
        self.lock = threading.RLock()
        self.hooks = []  # handles to remove after step K
        self.restore = []  # (owner, attribute, original) patched methods to put back
        self.seen_calls = {}  # (step, name) -> calls so far: a module called many times per step
        self.names = weakref.WeakKeyDictionary()  # module -> qualified name
        self.kinds = weakref.WeakKeyDictionary()  # module -> its class name
        self.built_at = weakref.WeakKeyDictionary()  # module -> "file:line" that built it
        self.param_names = {}  # id(parameter) -> qualified name
        self.loaders = {}  # id(dataset) -> its DataLoader's number, in the order first iterated
        self.torch = None
        self.cost = 0.0  # seconds spent in the hooks
        self.started = time.perf_counter()
        self.written = False
        self.start_states = {}  # generator -> its state when first seen: a state never left is unused

    # -- recording ----------------------------------------------------------------------------
    def emit(self, kind, name, fingerprint, where="", detail=""):
        self.events.append([kind, name, self.step, fingerprint, where, detail])

    def guarded(self, hook):
        """A hook that never raises into the program, costs nothing once tracing is done, and
        counts its own time."""
        def run(*args, **kwargs):
            if self.done or os.getpid() != _owner():
                return None
            start = time.perf_counter()
            try:
                with self.lock:
                    return hook(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 -- the program must go on
                self.errors.append("%s: %s: %s" % (hook.__name__, type(error).__name__, error))
                self.finish()
                return None
            finally:
                self.cost += time.perf_counter() - start
        return run

    def finish(self):
        """Stop tracing: remove the hooks, put patched methods back, write the trace."""
        if self.done:
            return
        self.done = True
        for handle in self.hooks:
            try:
                handle.remove()
            except Exception:  # noqa: BLE001
                pass
        for owner, attribute, original in self.restore:
            setattr(owner, attribute, original)
        self.write()

    def write(self):
        if self.written:
            return
        self.written = True
        torch = self.torch
        trace = {
            "version": VERSION, "steps": self.steps, "steps_done": self.step, "events": self.events,
            "sampled": self.sampled, "sample": SAMPLE, "errors": self.errors, "cost": round(self.cost, 4),
            "seconds": round(time.perf_counter() - self.started, 4),
            "torch": getattr(torch, "__version__", None) if torch is not None else None,
            "numpy": "numpy" in sys.modules, "start": self.start_states,
        }
        try:
            with open(self.path + ".part", "w") as handle:
                json.dump(trace, handle)
            os.replace(self.path + ".part", self.path)
        except OSError:
            pass

    # -- fingerprints ---------------------------------------------------------------------------
    def fingerprint(self, value, depth=0):
        """A hex digest of a tensor, array, number, string or a nest of them."""
        digest = hashlib.blake2b(digest_size=8)
        self._feed(digest, value, depth)
        return digest.hexdigest()

    def _feed(self, digest, value, depth):
        torch = self.torch
        if torch is not None and isinstance(value, torch.Tensor):
            self._feed_tensor(digest, value)
        elif type(value).__module__ == "numpy" and hasattr(value, "tobytes"):
            digest.update(repr((getattr(value, "shape", ()), str(getattr(value, "dtype", "")))).encode())
            digest.update(value.tobytes())
        elif isinstance(value, (list, tuple)) and depth < 8:
            digest.update(b"[%d" % len(value))
            for item in value:
                self._feed(digest, item, depth + 1)
        elif isinstance(value, dict) and depth < 8:
            digest.update(b"{%d" % len(value))
            for key in sorted(value, key=repr):
                digest.update(repr(key).encode())
                self._feed(digest, value[key], depth + 1)
        elif value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
            digest.update(repr(value).encode())
        else:  # an object we do not look into: only its type is compared
            digest.update(type(value).__qualname__.encode())

    def _feed_tensor(self, digest, tensor):
        torch = self.torch
        tensor = tensor.detach()
        digest.update(repr((tuple(tensor.shape), str(tensor.dtype))).encode())
        if tensor.is_sparse or tensor.layout != torch.strided:
            tensor = tensor.to_dense()
        flat = tensor.reshape(-1)
        if flat.numel() > SAMPLE:
            flat = flat[:: flat.numel() // SAMPLE][:SAMPLE]
            self.sampled = True
        flat = flat.cpu().contiguous()
        if flat.is_complex():
            flat = torch.view_as_real(flat).reshape(-1)
        digest.update(flat.view(torch.uint8).numpy().tobytes() if flat.numel() else b"")

    def rng_states(self):
        """{generator: fingerprint} of the global RNGs the program has loaded."""
        import random

        states = {"random": "%x" % (hash(random.getstate()) & 0xFFFFFFFFFFFFFFFF)}
        numpy = sys.modules.get("numpy")
        if numpy is not None and hasattr(numpy, "random"):
            name, keys, position, has_gauss, gauss = numpy.random.get_state()
            digest = hashlib.blake2b(keys.tobytes(), digest_size=8)
            digest.update(repr((name, position, has_gauss, gauss)).encode())
            states["numpy"] = digest.hexdigest()
        torch = self.torch
        if torch is not None:
            states["torch"] = hashlib.blake2b(torch.get_rng_state().numpy().tobytes(), digest_size=8).hexdigest()
            if torch.cuda.is_available() and torch.cuda.is_initialized():
                states["cuda"] = self.fingerprint(torch.cuda.get_rng_state_all())
        return states

    def note_start(self):
        """The state of each global RNG when first seen (at start, or when its library is imported)."""
        for generator, state in self.rng_states().items():
            self.start_states.setdefault(generator, state)

    # -- torch ------------------------------------------------------------------------------------
    def install_torch(self, torch):
        self.torch = torch
        from torch.nn.modules import module as modules
        from torch.optim import optimizer as optimizers

        if not hasattr(modules, "register_module_forward_pre_hook") or \
                not hasattr(optimizers, "register_optimizer_step_pre_hook"):
            self.errors.append("tracing needs torch 2.0 or newer (found %s)" % torch.__version__)
            return
        self._patch(torch.nn.Module, "__init__", self._module_init)
        self.hooks.append(modules.register_module_forward_pre_hook(self.guarded(self.before_forward)))
        self.hooks.append(modules.register_module_forward_hook(self.guarded(self.after_forward)))
        self.hooks.append(optimizers.register_optimizer_step_pre_hook(self.guarded(self.before_step)))
        self.hooks.append(optimizers.register_optimizer_step_post_hook(self.guarded(self.after_step)))
        self._patch(torch.Tensor, "backward", self._traced_backward)
        from torch.utils.data import dataloader

        iterator = dataloader._BaseDataLoaderIter
        self._patch(iterator, "__next__", lambda original: self._observed(original, self.record_batch))
        self._patch(iterator, "_next_index", lambda original: self._observed(original, self.record_order))

    def _traced_backward(self, original):
        """``loss.backward()`` under torch's ``DebugMode`` (torch 2.10+): each backward op's output
        hash, so a gradient that differs can be traced to the op that first computed it."""
        tracer = self
        try:
            from torch.utils._debug_mode import DebugMode
        except ImportError:  # an older torch: gradients are still compared, without their ops
            return original

        def backward(tensor, *args, **kwargs):
            if tracer.done or os.getpid() != _owner():
                return original(tensor, *args, **kwargs)
            with DebugMode(record_output=True) as mode, DebugMode.log_tensor_hashes(hash_fn=tracer.fingerprint):
                result = original(tensor, *args, **kwargs)
            tracer.guarded(tracer.record_backward_ops)(mode)
            return result
        return backward

    def record_backward_ops(self, mode):
        for number, call in enumerate(getattr(mode, "operators", ()), 1):
            log = getattr(call, "log", None) or {}
            if "hash" in log:
                self.emit("bwop", "%s (op %d of the backward)" % (call.op, number), log["hash"])

    def _patch(self, owner, attribute, make):
        original = getattr(owner, attribute)
        self.restore.append((owner, attribute, original))
        setattr(owner, attribute, make(original))

    def _module_init(self, original):
        tracer = self

        def __init__(module, *args, **kwargs):
            original(module, *args, **kwargs)
            if not tracer.done and module not in tracer.built_at:
                try:
                    tracer.built_at[module] = _builder(module)
                except Exception:  # noqa: BLE001
                    pass
        return __init__

    def name_of(self, module):
        name = self.names.get(module)
        if name is None:  # a model run for the first time: name it and its parts, record its weights
            root = type(module).__name__
            for suffix, part in module.named_modules():
                if part not in self.names:
                    self.names[part] = root + ("." + suffix if suffix else "")
                    self.kinds[part] = type(part).__name__
            for suffix, parameter in module.named_parameters():
                qualified = root + "." + suffix
                self.param_names.setdefault(id(parameter), qualified)
                owner = module.get_submodule(suffix.rsplit(".", 1)[0]) if "." in suffix else module
                self.emit("param", qualified, self.fingerprint(parameter), self.built_at.get(owner, ""),
                          type(owner).__name__)
            name = self.names[module]
        return name

    def _calls(self, module):
        """(its qualified name, how many of its calls have ended in this step)."""
        name = self.name_of(module)
        return name, self.seen_calls.get((self.step, name), 0)

    @staticmethod
    def _numbered(name, ended):
        """``Net.shared`` for a module's first call in a step, ``Net.shared#2`` for its second..."""
        return name if ended == 0 else "%s#%d" % (name, ended + 1)

    def before_forward(self, module, args):
        name = self._numbered(*self._calls(module))
        where, kind = self.built_at.get(module, ""), self.kinds.get(module, type(module).__name__)
        self.emit("rng", name, self.rng_states(), where, kind)
        self.emit("in", name, self.fingerprint(args), where, kind)

    def after_forward(self, module, args, output):
        name, ended = self._calls(module)
        self.seen_calls[(self.step, name)] = ended + 1
        self.emit("out", self._numbered(name, ended), self.fingerprint(output), self.built_at.get(module, ""),
                  self.kinds.get(module, type(module).__name__) + (":training" if module.training else ""))

    def _parameters(self, optimizer):
        for group in optimizer.param_groups:
            for parameter in group["params"]:
                yield self.param_names.get(id(parameter), "parameter %d" % id(parameter)), parameter

    def before_step(self, optimizer, args, kwargs):
        for name, parameter in self._parameters(optimizer):
            if parameter.grad is not None:
                self.emit("grad", name, self.fingerprint(parameter.grad))

    def after_step(self, optimizer, args, kwargs):
        for name, parameter in self._parameters(optimizer):
            self.emit("update", name, self.fingerprint(parameter))
        self.emit("step", "end of step %d" % (self.step + 1), self.rng_states())
        self.step += 1
        if self.step >= self.steps:
            self.finish()

    def _loader_number(self, iterator):
        """DataLoaders are told apart by their dataset, numbered in the order first iterated."""
        key = id(getattr(iterator, "_dataset", iterator))
        if key not in self.loaders:
            self.loaders[key] = len(self.loaders) + 1
        return self.loaders[key]

    def _observed(self, original, record):
        """``original`` (an iterator method), with what it returns passed to ``record`` too."""
        tracer = self

        def observed(iterator):
            value = original(iterator)
            tracer.guarded(record)(iterator, value)
            return value
        observed.__name__ = original.__name__
        return observed

    def record_order(self, iterator, indices):
        self.emit("order", "DataLoader %s" % self._loader_number(iterator), self.fingerprint(indices),
                  "", repr(indices)[:200])

    def record_batch(self, iterator, batch):
        self.emit("batch", "DataLoader %s" % self._loader_number(iterator), self.fingerprint(batch))


def _builder(module):
    """Where ``module`` was built: the first frame outside torch and outside the constructors of
    ``module`` itself (``super().__init__()`` in a model's ``__init__`` is not where it is built)."""
    frame = sys._getframe(2)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not any(part in filename for part in _SKIPPED_FRAMES) and frame.f_locals.get("self") is not module:
            return "%s:%d" % (filename, frame.f_lineno)
        frame = frame.f_back
    return ""


def _owner():
    try:
        return int(os.environ.get(OWNER, "0"))
    except ValueError:
        return 0


class _WhenImported:
    """A meta path finder that calls ``then(module)`` once ``name`` has been imported."""

    def __init__(self, name, then):
        self.name, self.then, self.busy = name, then, False

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name or self.busy:
            return None
        self.busy = True
        try:
            import importlib.util

            spec = importlib.util.find_spec(fullname)
        finally:
            self.busy = False
        if spec is None or spec.loader is None:
            return None
        loader, then = spec.loader, self.then

        class _Loader:
            def create_module(self, spec):
                return loader.create_module(spec) if hasattr(loader, "create_module") else None

            def exec_module(self, module):
                loader.exec_module(module)
                then(module)

        spec.loader = _Loader()
        return spec


def start():
    """Called from the injected ``sitecustomize`` in every Python process of the command; only
    the first one (the program itself, not its DataLoader workers or subprocesses) traces."""
    path = os.environ.get(OUT)
    if not path:
        return None
    if _owner() and _owner() != os.getpid():
        return None
    os.environ[OWNER] = str(os.getpid())
    try:
        steps = max(1, int(os.environ.get(STEPS, "3")))
    except ValueError:
        steps = 3
    tracer = Tracer(path, steps)
    atexit.register(tracer.finish)

    def torch_imported(torch):
        try:
            tracer.install_torch(torch)
            tracer.note_start()
        except Exception as error:  # noqa: BLE001
            tracer.errors.append("install: %s: %s" % (type(error).__name__, error))

    def numpy_imported(numpy):
        try:
            tracer.note_start()
        except Exception as error:  # noqa: BLE001
            tracer.errors.append("numpy: %s: %s" % (type(error).__name__, error))

    tracer.note_start()
    for name, then in (("torch", torch_imported), ("numpy", numpy_imported)):
        if name in sys.modules:
            then(sys.modules[name])
        else:
            sys.meta_path.insert(0, _WhenImported(name, then))
    atexit.register(lambda: tracer.done or tracer.emit("exit", "at exit", tracer.rng_states()))
    return tracer
