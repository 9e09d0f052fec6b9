"""Shared by the tests that run our tools, or users' scripts, as subprocesses."""

import os
from typing import Dict


def fresh_environment(**extra: str) -> Dict[str, str]:
    """This process's environment without ``PYTHONHASHSEED`` (string hashing randomised, as
    in a real run, unless ``extra`` sets it), plus ``extra``."""
    env = dict(os.environ)
    env.pop("PYTHONHASHSEED", None)
    env.update(extra)
    return env
