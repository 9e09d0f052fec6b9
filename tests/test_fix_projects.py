"""Every codemod fixture project: ``tests/fixtures/fix_projects/NAME.in/`` fixed with
``determinism-fix`` is ``NAME.out/``, file for file (unchanged files included).

The project is fixed as a user would: a copy, the command run in its root over ``.``.  An
``ARGS`` file in the ``.in`` folder holds extra command-line options (``--unsafe-fixes``);
``expect-left`` lists ``path:line CODE`` still reported after the fix.  A second run changes
nothing.
"""

import os
import shutil
from pathlib import Path

import pytest

from flake8_determinism.analysis.project import views
from flake8_determinism import settings
from flake8_determinism.fix.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "fix_projects"
CASES = sorted(p.name[: -len(".in")] for p in FIXTURES.glob("*.in"))
META = {"ARGS"}


def files_of(root: Path) -> dict:
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.name not in META and ".determinism_cache" not in p.parts and "__pycache__" not in p.parts
    }


@pytest.fixture(autouse=True)
def numpy_importable(monkeypatch):
    monkeypatch.setattr(settings, "importable", lambda name: True)  # read into Settings


def fix_project(project: Path, extra, monkeypatch, capsys, *options) -> int:
    monkeypatch.chdir(project)
    views.forget()
    status = main(["-j1", "--determinism-torch-version", "2.13", *extra, *options, "."])
    views.forget()
    return status


def test_every_project_has_its_output():
    assert CASES
    for name in CASES:
        assert (FIXTURES / (name + ".out")).is_dir(), name


@pytest.mark.parametrize("name", CASES)
def test_fix_project(name, tmp_path, monkeypatch, capsys):
    source = FIXTURES / (name + ".in")
    project = tmp_path / name
    shutil.copytree(source, project)
    args = (source / "ARGS").read_text().split() if (source / "ARGS").exists() else []
    fix_project(project, args, monkeypatch, capsys)
    capsys.readouterr()
    assert files_of(project) == files_of(FIXTURES / (name + ".out"))
    status = fix_project(project, args, monkeypatch, capsys, "--check")
    assert status == 0, capsys.readouterr()  # a second run would change nothing


IMPORTER = """
import importlib, random, sys
import numpy, torch
random.seed(5); numpy.random.seed(5); torch.manual_seed(5)
if sys.argv[1] != "-":
    importlib.import_module(sys.argv[1])
print(random.random(), numpy.random.rand(), torch.rand(1).item())
"""


def _importable_modules(root: Path):
    """Modules of a fixed project that are meant to be imported: guarded by ``__main__`` or
    with no statement outside definitions and imports (a guard-less script runs when imported)."""
    import ast

    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        guarded = any(isinstance(s, ast.If) and "__main__" in ast.dump(s.test) for s in tree.body)
        quiet = all(isinstance(s, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign, ast.If))
                    or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)) for s in tree.body)
        if guarded or quiet:
            yield ".".join(path.relative_to(root).with_suffix("").parts)


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_importing_a_fixed_module_leaves_the_importers_streams_alone(name, tmp_path):
    """Seed, import, draw: the same numbers with the fixed module as with the original (and,
    where importing the original draws nothing, as without the import): the fix seeds runs,
    never imports.  Run in copies: importing a module may write files."""
    import subprocess
    import sys

    from run_support import fresh_environment

    pytest.importorskip("torch")
    copies = {}
    for kind in ("in", "out"):
        copies[kind] = tmp_path / kind
        shutil.copytree(FIXTURES / ("%s.%s" % (name, kind)), copies[kind])

    def draws(kind, module):
        run = subprocess.run([sys.executable, "-c", IMPORTER, module], cwd=copies[kind], capture_output=True,
                             text=True, env=fresh_environment(), timeout=120)
        assert run.returncode == 0, run.stderr
        return run.stdout

    modules = list(_importable_modules(copies["out"]))
    if not modules:  # only guard-less scripts, seeded at module level: none may be imported
        names = [p.stem for p in copies["out"].rglob("*.py")]
        sources = "\n".join(p.read_text(encoding="utf-8") for p in copies["out"].rglob("*.py"))
        assert not any("import %s" % n in sources or "from %s " % n in sources for n in names)
        return
    alone = draws("out", "-")
    for module in modules:
        before = draws("in", module)
        assert draws("out", module) == before, module
        if before == alone:
            continue
        assert name == "guardless_imported", module  # the only fixture whose original draws on import


def regenerate() -> None:  # pragma: no cover - a maintainer's tool: python tests/test_fix_projects.py
    import tempfile

    settings.importable = lambda name: True
    for name in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            project = Path(tmp) / name
            source = FIXTURES / (name + ".in")
            shutil.copytree(source, project)
            args = (source / "ARGS").read_text().split() if (source / "ARGS").exists() else []
            here = os.getcwd()
            os.chdir(project)
            try:
                main(["-j1", "-q", "--determinism-torch-version", "2.13", *args, "."])
            finally:
                os.chdir(here)
            target = FIXTURES / (name + ".out")
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(project, target, ignore=shutil.ignore_patterns(".determinism_cache", "__pycache__", *META))


if __name__ == "__main__":  # pragma: no cover
    regenerate()
