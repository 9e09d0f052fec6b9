"""User settings (flake8 options / config keys), and the facts about the environment the rules
read: the target torch version, the installed albumentations, whether NumPy is importable, and
a stamp of the installed framework sources ``rules/common/installed.py`` reads.  Each is read
once, here, when the settings are made (package metadata and ``stat``; nothing is imported), so
the findings cache, keyed on the settings, is keyed on them too; ``Settings()`` is a fixed
environment (the newest known torch, NumPy importable, a current albumentations, no framework
installed), which the rule pages are generated from."""

import hashlib
import importlib.util
import os
import re
from importlib import metadata
from typing import FrozenSet, NamedTuple, Optional, Tuple

# The newest torch whose op lists the catalog records (facts §1.1(c)).
NEWEST_KNOWN_TORCH = (2, 14)
ALBUMENTATIONS_DISTRIBUTION = "albumentations"

# The installed libraries whose source ``rules/common/installed.py`` reads (with ``ast``) to know
# which options they take, each with the files it reads there (``tests/test_cache_keys.py`` checks
# that this lists every file of its ``DEFINITIONS``).  A file a definition is followed into
# (``from lightning_fabric... import seed_everything``) counts through its package's entry.
FRAMEWORK_SOURCES = {
    "transformers": ("training_args.py",),
    "accelerate": ("utils/random.py",),
    "lightning": ("pytorch/trainer/trainer.py", "fabric/utilities/seed.py"),
    "lightning_fabric": ("utilities/seed.py",),
    "pytorch_lightning": ("trainer/trainer.py", "utilities/seed.py"),
    "mmengine": ("runner/runner.py",),
    "torch_geometric": ("seed.py",),
    "gym": ("core.py",),
    "gymnasium": ("core.py",),
    "albumentations": ("core/composition.py",),
}

Frameworks = Tuple[Tuple[str, str], ...]  # (package, stamp of its installed version and sources)


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
    # The environment (``from_values`` reads it): the installed albumentations' version (None:
    # not installed, judged as a current one), whether NumPy is importable, and the installed
    # frameworks whose signatures a fix reads (``installed_frameworks``).
    albumentations_version: Optional[Tuple[int, ...]] = None
    numpy_importable: bool = True
    frameworks: Frameworks = ()

    @classmethod
    def from_values(
        cls, strict=False, torch_version=None, seed_functions=(), project_root="", cache=True,
        albumentations_version=None, numpy_importable=None, frameworks=None,
    ) -> "Settings":
        """The settings; an environment fact left None is read from the installed environment."""
        if torch_version:
            version = parse_version(str(torch_version))
            if version is None:
                raise ValueError(
                    "--determinism-torch-version expects MAJOR.MINOR such as 2.8, got %r" % (torch_version,)
                )
        else:
            version = installed_torch_version()
        names = frozenset(n.strip() for n in (seed_functions or ()) if n and n.strip())
        if albumentations_version is None:
            albumentations = installed_library_version(ALBUMENTATIONS_DISTRIBUTION)
        else:
            albumentations = version_numbers(str(albumentations_version))
        return cls(
            bool(strict), version, names, (project_root or "").strip(), bool(cache), albumentations,
            importable("numpy") if numpy_importable is None else bool(numpy_importable),
            installed_frameworks() if frameworks is None else tuple(frameworks),
        )


def version_numbers(text: str) -> Optional[Tuple[int, ...]]:
    """A version's leading numbers, up to three (``2.0.8.post1`` -> (2, 0, 8))."""
    numbers = re.match(r"\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?", text or "")
    return tuple(int(n) for n in numbers.groups() if n is not None) if numbers else None


def installed_library_version(distribution: str) -> Optional[Tuple[int, ...]]:
    """An installed library's version from its package metadata (never imported), up to three
    numbers; None when it is not installed."""
    try:
        return version_numbers(metadata.version(distribution))
    except (metadata.PackageNotFoundError, ValueError):
        return None


def importable(name: str) -> bool:
    """Can a top-level package be imported here?  (Located, never imported.)"""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def installed_frameworks() -> Frameworks:
    """(package, stamp) for each installed package of ``FRAMEWORK_SOURCES``: its version from
    package metadata, where it is, and the size and modification time of each file read there;
    an upgrade, a downgrade or an edited definition gives another stamp."""
    found = []
    for package, files in FRAMEWORK_SOURCES.items():
        try:
            spec = importlib.util.find_spec(package)  # locates; runs nothing of the package
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            continue
        try:
            version = metadata.version(package)
        except (metadata.PackageNotFoundError, ValueError):
            version = ""
        stamp = hashlib.blake2b(version.encode(), digest_size=8)
        for location in spec.submodule_search_locations or ():
            for relative in files:
                try:
                    info = os.stat(os.path.join(location, relative))
                    seen = "%d %d" % (info.st_size, info.st_mtime_ns)
                except (OSError, ValueError):
                    seen = "-"
                stamp.update(("|%s/%s %s" % (location, relative, seen)).encode("utf-8", "surrogatepass"))
        found.append((package, stamp.hexdigest()))
    return tuple(found)
