"""Lint fixtures: ``name.py`` beside ``name.txt`` (default settings) and optional
``name.<variant>.txt`` for other settings (``strict``, ``torch-2.8``, ``seedfn-a.b.c``).
Each expectation line is ``line:col CODE`` with flake8's 1-based column; ``#`` starts a comment."""

from pathlib import Path
from typing import List, Tuple

from flake8_determinism.settings import NEWEST_KNOWN_TORCH, Settings

FIXTURES = Path(__file__).parent / "fixtures" / "lint"


def settings_for(variant: str) -> Settings:
    strict, version, seed_functions = False, None, []
    for part in filter(None, variant.split("+")):
        if part == "strict":
            strict = True
        elif part.startswith("torch-"):
            version = part[len("torch-"):]
        elif part.startswith("seedfn-"):
            seed_functions.append(part[len("seedfn-"):])
        elif part != "default":
            raise ValueError("unknown fixture variant %r" % part)
    version = version or "%d.%d" % NEWEST_KNOWN_TORCH
    return Settings.from_values(strict=strict, torch_version=version, seed_functions=seed_functions)


def cases() -> List[Tuple[Path, Path, str]]:
    """(source, expectation, variant) for every expectation file."""
    found = []
    for source in sorted(FIXTURES.rglob("*.py")):
        for expected in sorted(source.parent.glob(source.stem + ".*txt")):
            middle = expected.name[len(source.stem):-len(".txt")].lstrip(".")
            if expected.name == source.stem + ".txt" or expected.name.startswith(source.stem + "."):
                found.append((source, expected, middle or "default"))
    return found


def fixture_name(source: Path) -> str:
    """The name the linter sees: the path below the fixture folder (``det104/tests/test_x.py``),
    so a fixture is a test module only when its own name or folder says so."""
    return source.relative_to(FIXTURES).as_posix()


def expected_lines(path: Path) -> List[str]:
    lines = []
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            lines.append(line)
    return sorted(lines, key=_sort_key)


def _sort_key(entry: str):
    position, code = entry.split()
    line, col = position.split(":")
    return int(line), int(col), code


def format_findings(findings) -> List[str]:
    return sorted(("%d:%d %s" % (f.line, f.column + 1, f.code) for f in findings), key=_sort_key)
