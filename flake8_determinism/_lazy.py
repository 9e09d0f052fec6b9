"""``cst``: libcst, imported on first use.

``import libcst`` costs ~175 ms (hundreds of dataclasses are built), more than
flake8's own start-up, and most files never reach the parse (the pre-check
skips them).  Modules that the flake8 process imports up front -- the rules and
the helpers they use -- take ``cst`` from here, so libcst loads only when a file
is parsed.  Attributes are cached on the proxy, so later lookups cost a plain
attribute access.
"""

import importlib


class _Libcst:
    def __getattr__(self, name: str):
        value = getattr(importlib.import_module("libcst"), name)
        setattr(self, name, value)
        return value


cst = _Libcst()
