"""The pre-commit hooks (.pre-commit-hooks.yaml), run by the real pre-commit.

pre-commit installs the hooks the way a user gets them: it clones a hook repository
at a pinned commit and pip-installs it into its own virtualenv. The hook repository is
a copy of this project tree committed to a fresh git repository, so the tests work from
a tarball as well as a checkout, and test the files as they are now, not the last
commit. One PRE_COMMIT_HOME for the session: the environment is built once.
"""

import json
import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the slow tier (the real pre-commit builds hook environments with pip)

ROOT = Path(__file__).resolve().parents[1]
PRE_COMMIT = shutil.which("pre-commit", path=sysconfig.get_path("scripts"))

# Not part of the project: environments, VCS data, caches, build outputs.
_NOT_COPIED_AT_ROOT = {".git", ".venv", "venv", ".tox", ".nox", "build", "dist"}

# An unseeded training script: a shuffling DataLoader with workers and no generator=.
UNSEEDED = '''\
"""Train a tiny regression model."""
import os
import torch
from torch.utils.data import DataLoader, TensorDataset

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def main():
    data = TensorDataset(torch.linspace(0, 1, 64).unsqueeze(1))
    loader = DataLoader(data, batch_size=4, shuffle=True, num_workers=2)
    model = torch.nn.Linear(1, 1).to(DEVICE)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for (x,) in loader:
        x = x.to(DEVICE)
        loss = (model(x) - 2 * x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
'''

# The same script written reproducibly: nothing for either hook to do.
SEEDED = '''\
"""Train a tiny regression model, reproducibly."""
import torch
from torch.utils.data import DataLoader, TensorDataset

SEED = 0


def main():
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)
    data = TensorDataset(torch.linspace(0, 1, 64).unsqueeze(1))
    loader = DataLoader(data, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(SEED))
    model = torch.nn.Linear(1, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for (x,) in loader:
        loss = (model(x) - 2 * x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
'''


def _ignore(directory, names):
    ignored = {n for n in names if n == "__pycache__" or n.endswith((".egg-info", "_cache", "-cache"))}
    if Path(directory) == ROOT:
        ignored |= _NOT_COPIED_AT_ROOT & set(names)
    return ignored


def _git(cwd, *args, env):
    # -c: a user's global config must not sign or reject these throwaway commits.
    cmd = ["git", "-c", "commit.gpgsign=false", *args]
    return subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def commit_tree(path, env):
    """Makes `path` a git repository with everything in it committed; returns the sha."""
    # main: the README's snippet names the branch (there is no release tag yet)
    for args in (["-c", "init.defaultBranch=main", "init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        _git(path, *args, env=env)
    return _git(path, "rev-parse", "HEAD", env=env)


@pytest.fixture(scope="session")
def env(tmp_path_factory):
    assert PRE_COMMIT, "pre-commit is a test dependency: pip install -e '.[test]'"
    # Inherited git/pre-commit variables (a test run inside a git hook) would redirect both.
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT")) and k != "SKIP"}
    identity = {"NAME": "determinism tests", "EMAIL": "tests@example.invalid"}
    for role in ("AUTHOR", "COMMITTER"):
        environ.update({f"GIT_{role}_{key}": value for key, value in identity.items()})
    environ["PRE_COMMIT_HOME"] = str(tmp_path_factory.mktemp("pre-commit-home"))
    return environ


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory, env):
    """(path, sha) of a git repository holding the current project tree."""
    repo = tmp_path_factory.mktemp("hook-repo") / "flake8-determinism"
    shutil.copytree(ROOT, repo, ignore=_ignore, symlinks=True)
    return repo, commit_tree(repo, env)


def make_user_repo(path, hook_repo, env, hooks, files):
    """A committed git repository whose .pre-commit-config.yaml uses our hooks."""
    repo_path, sha = hook_repo
    path.mkdir()
    for name, text in files.items():
        (path / name).write_text(text)
    # JSON is YAML: no quoting rules to get wrong.
    config = {"repos": [{"repo": str(repo_path), "rev": sha, "hooks": hooks}]}
    (path / ".pre-commit-config.yaml").write_text(json.dumps(config, indent=2))
    commit_tree(path, env)
    return path


def pre_commit(repo, env, *args):
    proc = subprocess.run(
        [PRE_COMMIT, *args, "--color=never"], cwd=repo, env=env, capture_output=True, text=True, timeout=600
    )
    return proc.returncode, proc.stdout + proc.stderr


def hook_results(output):
    """{hook name: 'Passed'/'Failed'/'Skipped'} from pre-commit's status lines."""
    return dict(re.findall(r"^(determinism-[\w-]+)\.+(?:\(no files to check\))?(Passed|Failed|Skipped)$", output, re.M))


@pytest.fixture(scope="session")
def installed(tmp_path_factory, hook_repo, env):
    """Builds the hook environment once; a failed build fails every test that needs it."""
    repo = make_user_repo(
        tmp_path_factory.mktemp("install") / "user",
        hook_repo,
        env,
        [{"id": "determinism-lint"}, {"id": "determinism-fix"}],
        {"train.py": SEEDED},
    )
    rc, out = pre_commit(repo, env, "install-hooks")
    assert rc == 0, out
    return hook_repo


def test_lint_hook_fails_with_det_reports_and_lines(tmp_path, installed, env):
    repo = make_user_repo(tmp_path / "user", installed, env, [{"id": "determinism-lint"}], {"train.py": UNSEEDED})
    rc, out = pre_commit(repo, env, "run", "--all-files")
    assert rc == 1, out
    assert hook_results(out) == {"determinism-lint": "Failed"}, out
    reported = re.findall(r"^(train\.py:\d+:\d+: DET\d+) ", out, re.M)
    # One report: the run's DET100 names the loader and its fix turns deterministic mode on.
    assert reported == ["train.py:22:1: DET100"], out
    # Only DET codes: the unused `import os` (F401) is not ours to report.
    assert "F401" not in out


def test_user_args_reach_flake8_and_keep_the_det_selection(tmp_path, installed, env):
    hooks = [{"id": "determinism-lint", "args": ["--determinism-strict", "--extend-ignore=DET201,DET203"]}]
    repo = make_user_repo(tmp_path / "user", installed, env, hooks, {"train.py": UNSEEDED})
    rc, out = pre_commit(repo, env, "run", "--all-files")
    assert rc == 1, out
    assert re.findall(r"^train\.py:\d+:\d+: (\w+) ", out, re.M) == ["DET202", "DET100", "DET303"], out


def test_fix_hook_rewrites_and_fails_then_passes(tmp_path, installed, env):
    # As users configure it: fix first, then lint what is left.
    hooks = [{"id": "determinism-fix", "args": ["--seed=1234"]}, {"id": "determinism-lint"}]
    repo = make_user_repo(tmp_path / "user", installed, env, hooks, {"train.py": UNSEEDED})

    rc, out = pre_commit(repo, env, "run", "--all-files")
    assert rc == 1, out
    assert hook_results(out) == {"determinism-fix": "Failed", "determinism-lint": "Passed"}, out
    assert "files were modified by this hook" in out
    fixed = (repo / "train.py").read_text()
    assert "SEED = 1234\n" in fixed
    assert "torch.use_deterministic_algorithms(True, warn_only=True)\n" in fixed
    assert (  # past 79 columns: one argument per line; the run's seed, once the run is seeded
        "DataLoader(\n        data,\n        batch_size=4,\n        shuffle=True,\n        num_workers=2,\n"
        "        generator=torch.Generator().manual_seed(torch.initial_seed()),\n    )"
    ) in fixed
    assert "seed_worker" not in fixed  # a TensorDataset draws nothing in its workers (no DET201)

    rc, out = pre_commit(repo, env, "run", "--all-files")
    assert rc == 0, out
    assert hook_results(out) == {"determinism-fix": "Passed", "determinism-lint": "Passed"}, out
    assert (repo / "train.py").read_text() == fixed


def test_fix_hook_fails_without_changes_when_problems_remain(tmp_path, installed, env):
    # A clock seed (DET105) has no single right fix: reported, file left alone.
    source = "import time\n\nimport numpy as np\n\nnp.random.seed(int(time.time()))\n"
    repo = make_user_repo(tmp_path / "user", installed, env, [{"id": "determinism-fix"}], {"seeding.py": source})
    rc, out = pre_commit(repo, env, "run", "--all-files")
    assert rc == 1, out
    assert hook_results(out) == {"determinism-fix": "Failed"}, out
    assert re.search(r"^seeding\.py:5:1: DET105 ", out, re.M), out
    assert "files were modified" not in out
    assert (repo / "seeding.py").read_text() == source


def test_pyproject_config_is_read_with_flake8_pyproject(tmp_path, installed, env):
    # The README's advice: the hook environment reads [tool.flake8] only with this plugin.
    deps = ["Flake8-pyproject"]
    hooks = [{"id": "determinism-lint", "additional_dependencies": deps}]
    hooks.append({"id": "determinism-fix", "additional_dependencies": deps})
    pyproject = '[tool.flake8]\ndeterminism-strict = true\nextend-ignore = ["DET201", "DET202", "DET203"]\n'
    repo = make_user_repo(tmp_path / "user", installed, env, hooks, {"train.py": UNSEEDED, "pyproject.toml": pyproject})
    rc, out = pre_commit(repo, env, "run", "--all-files")
    assert rc == 1, out
    assert re.findall(r"^train\.py:\d+:\d+: (\w+) ", out, re.M) == ["DET100", "DET303"], out
    fixed = (repo / "train.py").read_text()
    assert "torch.use_deterministic_algorithms(True, warn_only=True)\n" in fixed
    assert "seed_worker" not in fixed  # DET201 (strict here) is ignored


def test_clean_file_passes_both_hooks_untouched(tmp_path, installed, env):
    hooks = [{"id": "determinism-fix"}, {"id": "determinism-lint"}]
    repo = make_user_repo(tmp_path / "user", installed, env, hooks, {"train.py": SEEDED, "notes.txt": UNSEEDED})
    rc, out = pre_commit(repo, env, "run", "--all-files")
    assert rc == 0, out
    # Passed, not Skipped: the hooks ran on train.py (and not on notes.txt: types: [python]).
    assert hook_results(out) == {"determinism-fix": "Passed", "determinism-lint": "Passed"}, out
    assert (repo / "train.py").read_text() == SEEDED
    assert (repo / "notes.txt").read_text() == UNSEEDED


def readme_snippet() -> str:
    """The README's .pre-commit-config.yaml, as written there."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("\n## pre-commit\n"):]
    return re.search(r"```yaml\n(repos:\n.*?)```", section, re.S).group(1)


NOTEBOOK_CELLS = [
    "import time\nimport numpy as np\nimport torch",
    "%matplotlib inline\nmodel = torch.nn.Linear(3, 1)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "loss = model(torch.randn(4, 3)).sum()\nloss.backward()\nopt.step()",
    "np.random.seed(int(time.time()))\nprint(np.random.rand())",
]


def test_readme_snippet_works_as_written(tmp_path, installed, env):
    """The README's snippet, copied verbatim but for the URL, pinned as the README says, run."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    repo_path, sha = installed
    snippet = readme_snippet()
    url = "https://github.com/flake8-determinism/flake8-determinism"
    assert snippet.count(url) == 1, snippet
    user = tmp_path / "user"
    user.mkdir()
    (user / ".pre-commit-config.yaml").write_text(snippet.replace(url, str(repo_path)))
    (user / "train.py").write_text(UNSEEDED)
    (user / "broken.py").write_text("if True\n    pass\n")  # a syntax error must not pass the lint hook
    notebook = new_notebook(cells=[new_code_cell(cell) for cell in NOTEBOOK_CELLS])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, str(user / "explore.ipynb"))
    commit_tree(user, env)

    rc, out = pre_commit(user, env, "autoupdate", "--bleeding-edge", "--freeze")
    assert rc == 0, out
    config = (user / ".pre-commit-config.yaml").read_text()
    assert "\n    rev: %s\n" % sha in config, config

    rc, out = pre_commit(user, env, "run", "--all-files")
    assert rc == 1, out
    assert hook_results(out) == {"determinism-fix": "Failed", "determinism-lint": "Failed",
                                 "determinism-lint-notebooks": "Failed"}, out
    assert "torch.manual_seed(SEED)" in (user / "train.py").read_text()
    fixed_cells = ["".join(c["source"]) for c in nbformat.read(str(user / "explore.ipynb"), 4).cells]
    assert "torch.manual_seed(SEED)" in fixed_cells[0] and fixed_cells[1].startswith("%matplotlib inline\n")
    # the fix hook: one summary for the run, its problems not listed again (--quiet)
    assert len(re.findall(r"^Found \d+ problems? \(", out, re.M)) == 1, out
    assert "broken.py: cannot parse" in out
    # the lint hook: the syntax error (E9) and nothing else left in train.py
    assert re.search(r"^broken\.py:1:\d+: E999 SyntaxError", out, re.M), out
    assert not re.search(r"^train\.py:\d+:\d+: DET", out, re.M), out
    # the notebook hook: what the fix could not do, on its cell line
    assert re.search(r"^explore\.ipynb:cell_3:1:1: DET105 ", out, re.M), out
