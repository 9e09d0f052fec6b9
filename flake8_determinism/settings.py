"""User settings (flake8 options / config keys) and the target torch version."""

import re
from importlib import metadata
from typing import FrozenSet, NamedTuple, Optional, Tuple

# The newest torch whose op lists the catalog records (facts §1.1(c)).
NEWEST_KNOWN_TORCH = (2, 14)


def parse_version(text: str) -> Optional[Tuple[int, int]]:
    match = re.match(r"\s*(\d+)\.(\d+)", text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def installed_torch_version() -> Tuple[int, int]:
    """torch's version from package metadata (never imports torch)."""
    try:
        found = parse_version(metadata.version("torch"))
    except metadata.PackageNotFoundError:
        found = None
    return found or NEWEST_KNOWN_TORCH


class Settings(NamedTuple):
    strict: bool = False
    torch_version: Tuple[int, int] = NEWEST_KNOWN_TORCH
    seed_functions: FrozenSet[str] = frozenset()
    # The project the linted file belongs to (``analysis/project``): "" finds it from the
    # file's path, "none" judges each file alone; ``cache``: keep module summaries on disk.
    project_root: str = ""
    cache: bool = True

    @classmethod
    def from_values(
        cls, strict=False, torch_version=None, seed_functions=(), project_root="", cache=True
    ) -> "Settings":
        if torch_version:
            version = parse_version(str(torch_version))
            if version is None:
                raise ValueError(
                    "--determinism-torch-version expects MAJOR.MINOR such as 2.8, got %r" % (torch_version,)
                )
        else:
            version = installed_torch_version()
        names = frozenset(n.strip() for n in (seed_functions or ()) if n and n.strip())
        return cls(bool(strict), version, names, (project_root or "").strip(), bool(cache))


_LIBRARY_VERSIONS: dict = {}


def installed_library_version(distribution: str) -> Optional[Tuple[int, ...]]:
    """An installed library's version from its package metadata (never imported), up to three
    numbers; None when it is not installed.  Read once per process."""
    if distribution not in _LIBRARY_VERSIONS:
        try:
            text = metadata.version(distribution)
        except (metadata.PackageNotFoundError, ValueError):
            text = ""
        numbers = re.match(r"\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?", text or "")
        _LIBRARY_VERSIONS[distribution] = (
            tuple(int(n) for n in numbers.groups() if n is not None) if numbers else None)
    return _LIBRARY_VERSIONS[distribution]
