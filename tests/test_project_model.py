"""The project model (``analysis/project``): the root, imports resolved as Python would, the
summaries and their cache, and bad input that must degrade to "unknown", never a crash or a hang."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flake8_determinism.analysis.project import layout, model, views
from flake8_determinism.analysis.project.store import CACHE_DIRECTORY
from flake8_determinism.checker import check_source
from flake8_determinism.settings import Settings
from project_support import write
from run_support import fresh_environment

TRAIN = """\
import torch
{imports}

if __name__ == "__main__":
    {call}
    model = torch.nn.Linear(2, 1)
    loss = model(torch.ones(2)).sum()
    loss.backward()
"""


@pytest.fixture(autouse=True)
def fresh_model():
    """Each test sees the file system as it made it (the model remembers stat calls per process)."""
    views.forget()
    yield
    views.forget()


def codes(root: Path, name: str, cache: bool = False, project_root=None, strict=False):
    path = root / name
    settings = Settings.from_values(
        strict=strict, torch_version="2.13", project_root=str(root) if project_root is None else project_root,
        cache=cache,
    )
    found = check_source(path.read_text(encoding="utf-8"), settings, filename=name, path=str(path))
    return sorted((f.line, f.code) for f in found)


SEEDS_TORCH = """\
import torch


def prepare(seed):
    torch.manual_seed(seed)
"""


# -- the root ---------------------------------------------------------------------------------
def test_root_is_the_nearest_marker_directory(tmp_path):
    write(tmp_path, {"repo/pyproject.toml": "", "repo/src/pkg/train.py": "", "repo/src/pkg/__init__.py": ""})
    assert layout.find_root(str(tmp_path / "repo/src/pkg/train.py")) == str(tmp_path / "repo")


def test_root_without_markers_is_the_file_directory(tmp_path):
    write(tmp_path, {"loose/train.py": ""})
    assert layout.find_root(str(tmp_path / "loose/train.py")) == str(tmp_path / "loose")


def test_an_installed_package_is_its_own_project(tmp_path):
    write(tmp_path, {".git/HEAD": "", "venv/lib/site-packages/lib/sub/mod.py": ""})
    found = layout.find_root(str(tmp_path / "venv/lib/site-packages/lib/sub/mod.py"))
    assert found == str(tmp_path / "venv/lib/site-packages/lib")


# -- resolution -------------------------------------------------------------------------------
@pytest.mark.parametrize("files,imports,call", [
    pytest.param({"helpers.py": SEEDS_TORCH}, "from helpers import prepare", "prepare(0)", id="absolute"),
    pytest.param({"pkg/__init__.py": "", "pkg/helpers.py": SEEDS_TORCH}, "from pkg.helpers import prepare",
                 "prepare(0)", id="package"),
    pytest.param({"pkg/helpers.py": SEEDS_TORCH}, "import pkg.helpers", "pkg.helpers.prepare(0)",
                 id="namespace-package"),
    pytest.param({"pkg/__init__.py": "from .helpers import prepare\n", "pkg/helpers.py": SEEDS_TORCH},
                 "import pkg", "pkg.prepare(0)", id="re-exported"),
    pytest.param({"helpers.py": SEEDS_TORCH}, "from helpers import *", "prepare(0)", id="star"),
    pytest.param({"src/pkg/__init__.py": "", "src/pkg/helpers.py": SEEDS_TORCH}, "from pkg.helpers import prepare",
                 "prepare(0)", id="src-layout"),
    pytest.param({"lib/helpers.py": SEEDS_TORCH}, "import sys\nsys.path.insert(0, 'lib')\nfrom helpers import prepare",
                 "prepare(0)", id="sys-path-literal"),
    pytest.param({"lib/helpers.py": SEEDS_TORCH},
                 "import os, sys\nsys.path.append(os.path.join(os.path.dirname(__file__), 'lib'))\n"
                 "from helpers import prepare", "prepare(0)", id="sys-path-file-relative"),
])
def test_a_project_helper_seeds_wherever_it_is_imported_from(tmp_path, files, imports, call):
    write(tmp_path, files)
    write(tmp_path, {"train.py": TRAIN.format(imports=imports, call=call)})
    found = codes(tmp_path, "train.py")
    assert not [c for _, c in found if c in ("DET100", "DET104")], found


def test_relative_imports_inside_a_package(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/seeding.py": SEEDS_TORCH,
        "pkg/train.py": TRAIN.format(imports="from .seeding import prepare", call="prepare(0)"),
    })
    assert not [c for _, c in codes(tmp_path, "pkg/train.py") if c in ("DET100", "DET104")]


def test_a_helper_that_seeds_nothing_is_not_a_seeding_helper_whatever_its_name(tmp_path):
    write(tmp_path, {"helpers.py": "def set_seed(seed):\n    print(seed)\n"})
    write(tmp_path, {"train.py": TRAIN.format(imports="from helpers import set_seed", call="set_seed(0)")})
    assert (4, "DET100") in codes(tmp_path, "train.py")


def test_alone_the_same_helper_is_judged_by_its_name(tmp_path):
    write(tmp_path, {"helpers.py": "def set_seed(seed):\n    print(seed)\n"})
    write(tmp_path, {"train.py": TRAIN.format(imports="from helpers import set_seed", call="set_seed(0)")})
    assert not [c for _, c in codes(tmp_path, "train.py", project_root="none") if c in ("DET100", "DET104")]


def test_a_library_named_like_a_module_of_the_project_is_the_project(tmp_path):
    """timm's own repository imports ``timm``: its modules are the project's."""
    write(tmp_path, {"timm/__init__.py": "", "timm/seeding.py": SEEDS_TORCH})
    write(tmp_path, {"train.py": TRAIN.format(imports="from timm.seeding import prepare", call="prepare(0)")})
    assert not [c for _, c in codes(tmp_path, "train.py") if c in ("DET100", "DET104")]


# -- the cache --------------------------------------------------------------------------------
def test_the_cache_is_written_ignored_by_git_and_read_back(tmp_path, monkeypatch):
    write(tmp_path, {"helpers.py": SEEDS_TORCH,
                     "train.py": TRAIN.format(imports="from helpers import prepare", call="prepare(0)")})
    first = codes(tmp_path, "train.py", cache=True)
    cache = tmp_path / CACHE_DIRECTORY
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert list(cache.rglob("*.m"))
    views.forget()
    summarized = []
    monkeypatch.setattr(model, "_summarize_file", lambda *a: summarized.append(a) or None)
    assert codes(tmp_path, "train.py", cache=True) == first
    assert summarized == []  # warm: nothing parsed again


def test_a_changed_module_is_summarized_again(tmp_path):
    write(tmp_path, {"helpers.py": SEEDS_TORCH,
                     "train.py": TRAIN.format(imports="from helpers import prepare", call="prepare(0)")})
    assert not [c for _, c in codes(tmp_path, "train.py", cache=True) if c == "DET100"]
    views.forget()
    (tmp_path / "helpers.py").write_text("def prepare(seed):\n    pass  # seeds nothing any more\n")
    assert (4, "DET100") in codes(tmp_path, "train.py", cache=True)


def test_a_corrupt_cache_is_a_miss(tmp_path):
    write(tmp_path, {"helpers.py": SEEDS_TORCH,
                     "train.py": TRAIN.format(imports="from helpers import prepare", call="prepare(0)")})
    expected = codes(tmp_path, "train.py", cache=True)
    for entry in (tmp_path / CACHE_DIRECTORY).rglob("*.m"):
        entry.write_bytes(b"\x00garbage" * 3)
    views.forget()
    assert codes(tmp_path, "train.py", cache=True) == expected


def test_an_unwritable_project_lints_without_a_cache(tmp_path):
    write(tmp_path, {"helpers.py": SEEDS_TORCH,
                     "train.py": TRAIN.format(imports="from helpers import prepare", call="prepare(0)")})
    (tmp_path / CACHE_DIRECTORY).write_text("a file where the cache directory would go")
    assert not [c for _, c in codes(tmp_path, "train.py", cache=True) if c == "DET100"]


def test_no_cache_option_writes_nothing(tmp_path):
    write(tmp_path, {"helpers.py": SEEDS_TORCH,
                     "train.py": TRAIN.format(imports="from helpers import prepare", call="prepare(0)")})
    codes(tmp_path, "train.py", cache=False)
    assert not (tmp_path / CACHE_DIRECTORY).exists()


def test_a_module_that_changes_while_it_is_summarized_is_not_stored(tmp_path, monkeypatch):
    write(tmp_path, {"helpers.py": SEEDS_TORCH,
                     "train.py": TRAIN.format(imports="from helpers import prepare", call="prepare(0)")})
    from flake8_determinism.analysis.project import store

    real = store.stamp
    calls = []

    def changing(path):
        calls.append(path)
        found = real(path)
        return (found[0], found[1] + len(calls)) if found else found  # a new mtime at every look

    monkeypatch.setattr(store, "stamp", changing)
    monkeypatch.setattr(model, "stamp", changing)
    codes(tmp_path, "train.py", cache=True)
    assert calls and not list((tmp_path / CACHE_DIRECTORY).rglob("*.m"))


def test_flake8_with_two_jobs_shares_the_cache(tmp_path):
    helper = "import numpy as np\n\n\ndef noise():\n    return np.random.rand()\n"
    write(tmp_path, {"setup.cfg": "", "helpers.py": helper})
    for n in range(6):
        write(tmp_path, {"train%d.py" % n: "from helpers import noise\n\nprint(noise())\n"})
    runs = [
        subprocess.run([sys.executable, "-m", "flake8", "-j2", "--select=DET", "."], cwd=tmp_path,
                       capture_output=True, text=True, env=fresh_environment())
        for _ in range(2)
    ]
    assert runs[0].stdout == runs[1].stdout and runs[0].stderr == runs[1].stderr == ""
    assert runs[0].stdout.count("DET102") == 6, runs[0].stdout


# -- bad input ---------------------------------------------------------------------------------
def test_an_unparsable_module_is_unknown(tmp_path):
    write(tmp_path, {"helpers.py": "def set_seed(seed)\n    pass\n",  # a syntax error
                     "train.py": TRAIN.format(imports="from helpers import set_seed", call="set_seed(0)")})
    # Unknown: judged by the name, as without a project.
    assert not [c for _, c in codes(tmp_path, "train.py") if c in ("DET100", "DET104")]


@pytest.mark.parametrize("helper", [
    pytest.param(b"\xff\xfe def prepare(seed): pass\n", id="not-utf8"),
    pytest.param(b"print 'python 2'\n", id="python2"),
    pytest.param(b"x = " + b"(" * 5000 + b")" * 5000 + b"\n", id="nesting"),
    pytest.param(b"", id="empty"),
    pytest.param(b"a\x00b\n", id="nul"),
])
def test_bad_modules_never_break_the_lint(tmp_path, helper):
    (tmp_path / "helpers.py").write_bytes(helper)
    write(tmp_path, {"train.py": TRAIN.format(imports="from helpers import prepare", call="prepare(0)")})
    assert (4, "DET100") in codes(tmp_path, "train.py")


def test_import_cycles_terminate(tmp_path):
    write(tmp_path, {
        "a.py": "import torch\nfrom b import g\n\n\ndef f():\n    g()\n    torch.manual_seed(0)\n",
        "b.py": "from a import f\n\n\ndef g():\n    f()\n",
        "train.py": TRAIN.format(imports="from a import f", call="f()"),
    })
    assert not [c for _, c in codes(tmp_path, "train.py") if c in ("DET100", "DET104")]


def test_a_missing_module_is_a_library(tmp_path):
    write(tmp_path, {"train.py": TRAIN.format(imports="from nowhere import prepare", call="prepare(0)")})
    assert (4, "DET100") in codes(tmp_path, "train.py")


def test_a_symlink_loop_in_the_project(tmp_path):
    write(tmp_path, {"train.py": TRAIN.format(imports="from loop.helpers import prepare", call="prepare(0)")})
    os.symlink(tmp_path / "loop", tmp_path / "loop")  # loop -> loop
    os.symlink(tmp_path / "missing", tmp_path / "dangling.py")
    assert (4, "DET100") in codes(tmp_path, "train.py")


def test_a_file_linked_into_other_folders_is_reported_once(tmp_path):
    """Recipe folders that symlink one shared helper: judged where it lives, once."""
    write(tmp_path, {"setup.cfg": "", "shared/prepare.py": "import glob\n\nFILES = glob.glob('*.wav')\nFIRST = FILES[0]\n"})
    (tmp_path / "recipe_a").mkdir()
    os.symlink(tmp_path / "shared" / "prepare.py", tmp_path / "recipe_a" / "prepare.py")
    os.symlink(tmp_path / "shared", tmp_path / "recipe_b")
    outside = tmp_path.parent / (tmp_path.name + "_elsewhere.py")
    outside.write_text("import glob\n\nFILES = glob.glob('*.wav')\nFIRST = FILES[0]\n")
    os.symlink(outside, tmp_path / "from_outside.py")
    run = subprocess.run([sys.executable, "-m", "flake8", "--select=DET", "."],
                         cwd=tmp_path, capture_output=True, text=True, env=fresh_environment())
    reported = sorted(line.split(":")[0] for line in run.stdout.splitlines())
    # flake8 does not enter the linked folder; a link out of the project is the only path that
    # lints that file: it keeps its report.
    assert reported == ["./from_outside.py", "./shared/prepare.py"], run.stdout + run.stderr
    named = subprocess.run([sys.executable, "-m", "flake8", "--select=DET", "recipe_a/prepare.py"],
                           cwd=tmp_path, capture_output=True, text=True, env=fresh_environment())
    assert named.stdout.startswith("recipe_a/prepare.py:3:"), named.stdout  # named by the user: linted


def test_determinism_fix_skips_a_linked_copy(tmp_path):
    write(tmp_path, {"setup.cfg": "", "shared/prepare.py": "import glob\n\nFILES = glob.glob('*.wav')\nFIRST = FILES[0]\n"})
    (tmp_path / "recipe").mkdir()
    os.symlink(tmp_path / "shared" / "prepare.py", tmp_path / "recipe" / "prepare.py")
    run = subprocess.run([sys.executable, "-m", "flake8_determinism.fix", "--diff", "."], cwd=tmp_path,
                         capture_output=True, text=True, env=fresh_environment())
    assert run.stdout.count("sorted(glob.glob") == 1 and "+++ ./shared/prepare.py" in run.stdout, run.stdout
    assert "recipe/prepare.py: skipped: a symlink to shared/prepare.py" in run.stderr, run.stderr
    assert (tmp_path / "recipe" / "prepare.py").is_symlink()


def test_a_project_of_many_files_is_never_listed(tmp_path):
    """A root with 20,000 modules: one file's lint reads only what its run reaches."""
    write(tmp_path, {"helpers.py": SEEDS_TORCH,
                     "train.py": TRAIN.format(imports="from helpers import prepare", call="prepare(0)")})
    many = tmp_path / "many"
    many.mkdir()
    for n in range(20000):
        (many / ("m%d.py" % n)).write_bytes(b"import numpy\nX = 1\n")
    start = time.perf_counter()
    found = codes(tmp_path, "train.py")
    assert time.perf_counter() - start < 2.0
    assert not [c for _, c in found if c == "DET100"]
    settings = Settings.from_values(project_root=str(tmp_path), cache=False)
    project = views.project_for(str(tmp_path / "train.py"), settings)
    assert len(project._modules) <= 2


# -- the findings cache (the plugin) -----------------------------------------------------------
def plugin_findings(path: Path):
    """What the flake8 plugin yields for ``path``, as flake8 calls it."""
    import ast as ast_module

    from flake8_determinism.plugin import DeterminismChecker

    DeterminismChecker.settings = Settings.from_values(torch_version="2.13")
    source = path.read_text(encoding="utf-8")
    checker = DeterminismChecker(ast_module.parse(source), source.splitlines(True), str(path))
    return sorted((line, message.split()[0]) for line, _, message, _ in checker.run())


@pytest.fixture
def linted(monkeypatch):
    """The files the plugin really lints (not read back from its cache)."""
    from flake8_determinism.plugin import DeterminismChecker

    found, original = [], DeterminismChecker._lint

    def counting(self, *args):
        found.append(self.filename)
        return original(self, *args)

    monkeypatch.setattr(DeterminismChecker, "_lint", counting)
    return found


def test_a_warm_lint_reuses_the_findings_while_nothing_it_read_changed(tmp_path, linted):
    write(tmp_path, {"pyproject.toml": "", "helpers.py": SEEDS_TORCH,
                     "train.py": TRAIN.format(imports="from helpers import prepare", call="prepare(0)")})
    first = plugin_findings(tmp_path / "train.py")
    views.forget()
    assert plugin_findings(tmp_path / "train.py") == first
    assert linted == [str(tmp_path / "train.py")]  # linted once, then read back


def test_a_changed_module_the_lint_read_makes_it_lint_again(tmp_path):
    write(tmp_path, {"pyproject.toml": "", "helpers.py": SEEDS_TORCH,
                     "train.py": TRAIN.format(imports="from helpers import prepare", call="prepare(0)")})
    assert ("DET100" not in {code for _, code in plugin_findings(tmp_path / "train.py")})
    views.forget()
    time.sleep(0.01)
    (tmp_path / "helpers.py").write_text("def prepare(seed):\n    pass  # seeds nothing any more\n")
    assert (4, "DET100") in plugin_findings(tmp_path / "train.py")


def test_an_edited_hparams_file_makes_it_lint_again(tmp_path):
    """A loaded configuration file decides whether the run seeds; the cache watches it too."""
    hparams = tmp_path / "hparams" / "train.yaml"
    write(tmp_path, {
        "pyproject.toml": "", "hparams/train.yaml": "__set_seed: !apply:speechbrain.utils.seed_everything [1]\n",
        "train.py": TRAIN.format(imports="from hyperpyyaml import load_hyperpyyaml",
                                 call="hparams = load_hyperpyyaml(open('hparams/train.yaml'))")})
    assert "DET100" not in {code for _, code in plugin_findings(tmp_path / "train.py")}
    views.forget()
    time.sleep(0.01)
    hparams.write_text("lr: 0.1\n")
    assert (4, "DET100") in plugin_findings(tmp_path / "train.py")


def test_a_module_that_appears_makes_it_lint_again(tmp_path):
    """The lint found no ``helpers`` module; once there is one, the import resolves to it."""
    write(tmp_path, {"pyproject.toml": "",
                     "train.py": TRAIN.format(imports="from helpers import prepare", call="prepare(0)")})
    assert (4, "DET100") in plugin_findings(tmp_path / "train.py")
    views.forget()
    write(tmp_path, {"helpers.py": SEEDS_TORCH})
    assert (4, "DET100") not in plugin_findings(tmp_path / "train.py")


def test_an_edited_file_is_linted_again(tmp_path, linted):
    write(tmp_path, {"pyproject.toml": "", "train.py": "import random\nprint(random.random())\n"})
    assert plugin_findings(tmp_path / "train.py") == [(2, "DET101")]
    (tmp_path / "train.py").write_text("import random\n\nrandom.seed(0)\nprint(random.random())\n")
    assert plugin_findings(tmp_path / "train.py") == []
    assert len(linted) == 2


def test_cached_findings_are_keyed_by_the_installed_code():
    """A development checkout changes its rules without a new version number: findings and
    summaries cached by the old code must not come back (the stamp holds each module's size
    and mtime, and names the stores' folders)."""
    from flake8_determinism.analysis.project import results, store

    module = Path(results.__file__)
    before = store.code_stamp.__wrapped__()
    assert store.code_stamp.__wrapped__() == before
    info = module.stat()
    try:
        os.utime(str(module), ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))
        assert store.code_stamp.__wrapped__() != before
    finally:
        os.utime(str(module), ns=(info.st_atime_ns, info.st_mtime_ns))
    assert store.code_stamp.__wrapped__() == before
