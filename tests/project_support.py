"""Multi-file fixture projects: ``tests/fixtures/projects/NAME/`` is one project (its root).

Every ``.py`` file in it is linted as flake8 would lint it in that project, and its findings
must be exactly the ``# expect: CODE [CODE...]`` comments on its lines (``# expect[strict]:``
for strict mode); a file without such comments must have none.
"""

import re
import textwrap
from pathlib import Path
from typing import List, Set, Tuple

from flake8_determinism.checker import check_source
from flake8_determinism.settings import Settings

PROJECTS = Path(__file__).parent / "fixtures" / "projects"
_EXPECT = re.compile(r"#\s*expect(?:\[(?P<variant>\w+)\])?:\s*(?P<codes>(?:DET\d{3}\s*)+)")


def projects() -> List[Path]:
    return sorted(p for p in PROJECTS.iterdir() if p.is_dir())


def project_files(project: Path) -> List[Path]:
    return sorted(p for p in project.rglob("*.py") if ".determinism_cache" not in p.parts)


def expected(path: Path, variant: str = "default") -> Set[Tuple[int, str]]:
    found = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for match in _EXPECT.finditer(line):
            if (match.group("variant") or "default") == variant:
                found |= {(number, code) for code in match.group("codes").split()}
    return found


def settings_for(project: Path, variant: str = "default", **more) -> Settings:
    return Settings.from_values(
        strict=variant == "strict", torch_version="2.13", project_root=str(project), cache=False, **more
    )


def lint(path: Path, settings: Settings, use_precheck: bool = True) -> Set[Tuple[int, str]]:
    source = path.read_text(encoding="utf-8")
    return {(f.line, f.code) for f in lint_findings(path, settings, use_precheck, source)}


def lint_findings(path: Path, settings: Settings, use_precheck: bool = True, source=None):
    source = path.read_text(encoding="utf-8") if source is None else source
    # The name flake8 shows when run from the project's root; the path locates the project.
    name = path.relative_to(PROJECTS).as_posix().split("/", 1)[1]
    return check_source(source, settings, filename=name, path=str(path), use_precheck=use_precheck)


def write(root: Path, files: dict) -> Path:
    """A project made in ``root``: ``files`` maps a path below it to its (dedented) text."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root
