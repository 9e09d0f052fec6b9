"""Injected by ``determinism-verify --locate`` (this folder leads ``PYTHONPATH``): start the
tracer, then run the ``sitecustomize`` this one hides, if the environment has one."""

import os
import sys


def _start_tracer():
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    try:
        import determinism_trace

        determinism_trace.start()
    except Exception as error:  # noqa: BLE001 -- never break the program we trace
        sys.stderr.write("determinism-verify: the tracer could not start: %s\n" % error)
    finally:
        sys.path.remove(here)


def _run_hidden_sitecustomize():
    here = os.path.dirname(os.path.abspath(__file__))
    ours = sys.modules.pop("sitecustomize", None)
    saved = list(sys.path)
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != here]
    try:
        import sitecustomize  # noqa: F401 -- the environment's own, if any
    except ImportError:
        pass
    finally:
        sys.path[:] = saved
        if ours is not None:
            sys.modules.setdefault("sitecustomize", ours)


_start_tracer()
_run_hidden_sitecustomize()
