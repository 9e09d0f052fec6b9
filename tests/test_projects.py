"""Every multi-file fixture project (``tests/fixtures/projects``): each file's findings are its
``# expect:`` comments, with and without the pre-check, and judged alone (no project) the
cross-module findings go away."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from run_support import fresh_environment
from project_support import PROJECTS, expected, lint, project_files, projects, settings_for

CASES = [(project, path) for project in projects() for path in project_files(project)]
IDS = [str(path.relative_to(PROJECTS)) for _, path in CASES]


def test_projects_exist():
    assert len(projects()) >= 10 and len(CASES) >= 25


@pytest.mark.parametrize("project,path", CASES, ids=IDS)
def test_project_file(project, path):
    assert sorted(lint(path, settings_for(project))) == sorted(expected(path))


@pytest.mark.parametrize("project,path", CASES, ids=IDS)
def test_precheck_never_hides_a_project_report(project, path):
    settings = settings_for(project)
    assert lint(path, settings) == lint(path, settings, use_precheck=False)


def flake8(cwd, *args):
    return subprocess.run([sys.executable, "-m", "flake8", "--select=DET", *args], cwd=str(cwd),
                          capture_output=True, text=True, env=fresh_environment())


def test_flake8_reports_the_run_as_the_readme_shows(tmp_path):
    project = tmp_path / "helper_forgets_torch"
    shutil.copytree(str(PROJECTS / "helper_forgets_torch"), str(project))
    result = flake8(project, "train.py")
    line = next(line for line in result.stdout.splitlines() if "DET104" in line)
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    assert line in readme, line
    assert (project / ".determinism_cache" / ".gitignore").is_file()  # the cache, ignored by git


def test_flake8_judges_files_alone_with_project_root_none(tmp_path):
    project = tmp_path / "helper_forgets_torch"
    shutil.copytree(str(PROJECTS / "helper_forgets_torch"), str(project))
    result = flake8(project, "--determinism-project-root=none", "train.py")
    assert result.returncode == 0 and "DET104" not in result.stdout  # set_seed() is taken at its name
    assert not (project / ".determinism_cache").exists()


def test_strict_mode_adds_the_library_draws(tmp_path):
    project = PROJECTS / "library_no_entry"
    settings = settings_for(project, "strict")
    assert {code for _, code in lint(project / "mylib" / "ops.py", settings)} >= {"DET101", "DET102"}


@pytest.mark.parametrize("project, paths", [
    # library_demo/: the shown-items viewer of a package's dataset module neither trains nor
    # writes, so default mode takes it for the library's demo; strict mode judges it as a run.
    # The package's training and split-writing modules, and the same viewer outside a package,
    # are runs in both modes.
    ("library_demo", None),
    # A function wrapped by functools.partial and never called trains nothing, in both modes.
    ("wrapped_not_called", ["bind_only.py"]),
])
def test_both_modes_of_projects_marked_for_strict(project, paths):
    root = PROJECTS / project
    for path in project_files(root) if paths is None else [root / p for p in paths]:
        for variant in ("default", "strict"):
            assert lint(path, settings_for(root, variant)) == expected(path, variant), (path, variant)
