"""Every multi-file fixture project (``tests/fixtures/projects``): each file's findings are its
``# expect:`` comments, with and without the pre-check, and judged alone (no project) the
cross-module findings go away."""

import pytest

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
