"""flake8-determinism: find the sources of nondeterminism in ML code."""

__version__ = "0.1.0"
