"""What each cache is keyed on is everything its answers depend on (issue 33: caches that cannot
go stale).  For each input -- the installed code, the settings, the installed albumentations,
whether NumPy is importable, the installed frameworks' signatures -- a project is linted cold
(no cache), warm, then warm again with the input changed: that answer must be the cold answer
with the changed input, and (so the test can fail) the changed input must change the answer."""

import ast
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flake8_determinism import settings as S
from flake8_determinism.analysis.project import results, views
from flake8_determinism.analysis.project.results import Results
from flake8_determinism.analysis.project.store import CACHE_DIRECTORY, KEPT_INSTALLATIONS, Store
from flake8_determinism.fix.transform import fix_source
from flake8_determinism.plugin import DeterminismChecker
from flake8_determinism.rules.common import installed
from flake8_determinism.settings import Settings
from flake8_determinism.tables.rng_objects import ALBUMENTATIONS_DISTRIBUTION
from project_support import write
from run_support import fresh_environment

PACKAGE = Path(__file__).resolve().parent.parent / "flake8_determinism"

PROJECT = {
    "pyproject.toml": "",
    # random.choice is drawn in a module the entry imports: the entry's report comes from its summary
    "helpers.py": """\
        import random


        def pick(items):
            return random.choice(items)
        """,
    "augment.py": """\
        import albumentations as A

        TRANSFORM = A.Compose([A.HorizontalFlip()])
        """,
    "train.py": """\
        import torch

        from augment import TRANSFORM
        from helpers import pick

        if __name__ == "__main__":
            torch.use_deterministic_algorithms(True)
            print(pick([1, 2, 3]), TRANSFORM)
        """,
}
ENVIRONMENT = {"torch_version": "2.13", "albumentations_version": "2.0.8", "numpy_importable": True,
               "frameworks": ()}


@pytest.fixture(autouse=True)
def plugin(monkeypatch):
    """The plugin's settings restored after each test; each lint starts as a new process would,
    with only the cache on disk carried over."""
    monkeypatch.setattr(DeterminismChecker, "settings", Settings())
    views.forget()
    yield
    views.forget()


@pytest.fixture
def linted(monkeypatch):
    """The files the plugin really lints (not read back from its cache)."""
    found, original = [], DeterminismChecker._lint

    def counting(self, *args):
        found.append(Path(self.filename).name)
        return original(self, *args)

    monkeypatch.setattr(DeterminismChecker, "_lint", counting)
    return found


def lint(root: Path, settings: Settings) -> dict:
    """What the flake8 plugin reports for each file of the project, with the cache (when warm)."""
    views.forget()
    results._results.clear()
    DeterminismChecker.settings = settings
    found = {}
    for path in sorted(root.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        checker = DeterminismChecker(ast.parse(source), source.splitlines(True), str(path))
        found[path.name] = sorted((line, column, message) for line, column, message, _ in checker.run())
    return found


def cold(root: Path, settings: Settings) -> dict:
    shutil.rmtree(root / CACHE_DIRECTORY, ignore_errors=True)
    return lint(root, settings)


def changed_input(root: Path, before: Settings, after, linted) -> tuple:
    """(cold answer with ``before``, cold answer with ``after``), checking on the way that a
    warm lint with ``before`` reads everything back and a warm lint after the change (``after``:
    the new settings, or a function that changes the input and returns them) is the cold one."""
    first = cold(root, before)
    del linted[:]
    assert lint(root, before) == first
    assert linted == [], "the warm lint did not read the findings back: the test would prove nothing"
    settings = after() if callable(after) else after
    warm = lint(root, settings)
    assert warm == cold(root, settings)
    return first, warm


def test_the_settings(tmp_path, linted):
    """The options: the target torch version (DET305 holds for torch < 2.10) and strict mode."""
    root = write(tmp_path, PROJECT)
    before = Settings.from_values(**ENVIRONMENT)
    first, then = changed_input(root, before, Settings.from_values(**{**ENVIRONMENT, "torch_version": "2.8"}), linted)
    assert "DET305" not in str(first["train.py"]) and "DET305" in str(then["train.py"])
    first, then = changed_input(root, before, Settings.from_values(**ENVIRONMENT, strict=True), linted)
    assert first["helpers.py"] == [] and "random.choice()" in str(then["helpers.py"])


def test_the_installed_albumentations(tmp_path, linted, monkeypatch):
    """A downgrade below 1.4.21 (no RNG per Compose), read from package metadata into Settings."""
    root = write(tmp_path, PROJECT)
    environment = {k: v for k, v in ENVIRONMENT.items() if k != "albumentations_version"}
    versions = {ALBUMENTATIONS_DISTRIBUTION: "2.0.8"}

    def version(name):
        if name in versions:
            return versions[name]
        raise S.metadata.PackageNotFoundError(name)

    def downgrade():
        versions[ALBUMENTATIONS_DISTRIBUTION] = "1.4.20"
        return Settings.from_values(**environment)

    monkeypatch.setattr(S.metadata, "version", version)
    before = Settings.from_values(**environment)
    assert before.albumentations_version == (2, 0, 8)
    first, then = changed_input(root, before, downgrade, linted)
    assert "DET103" in str(first["augment.py"]) and then["augment.py"] == []


def test_numpy_importable(tmp_path, linted, monkeypatch):
    """Whether NumPy is importable decides whether the seeding fix seeds it: read into Settings.
    (No report depends on it today: the fix does, and the findings key holds it all the same.)"""
    root = write(tmp_path, PROJECT)
    environment = {k: v for k, v in ENVIRONMENT.items() if k != "numpy_importable"}
    monkeypatch.setattr(S, "importable", lambda name: True)
    before = Settings.from_values(**environment)

    def uninstall():
        monkeypatch.setattr(S, "importable", lambda name: name != "numpy")
        return Settings.from_values(**environment)

    changed_input(root, before, uninstall, linted)
    after = Settings.from_values(**environment)
    assert before.numpy_importable and not after.numpy_importable
    source = (root / "train.py").read_text(encoding="utf-8")
    assert Results.check(source, "train.py", before) != Results.check(source, "train.py", after)
    path = str(root / "train.py")
    assert "np.random.seed(SEED)" in fix_source(source, before, filename="train.py", path=path).source
    assert "numpy" not in fix_source(source, after, filename="train.py", path=path).source


LIGHTNING = """\
    import lightning as L
    import torch

    if __name__ == "__main__":
        model = torch.nn.Linear(2, 2)
        L.Trainer().fit(model)
    """


def test_the_installed_framework_signatures(tmp_path, linted, monkeypatch):
    """Lightning < 1.3's ``seed_everything`` has no ``workers=``: an upgrade that adds it changes
    the settings' stamp, the findings key and the fix (the signatures read are remembered per
    stamp, so nothing read before the upgrade stands)."""
    site = tmp_path / "site"
    seed = site / "lightning" / "fabric" / "utilities" / "seed.py"
    write(site, {"lightning/__init__.py": "",
                 "lightning/fabric/utilities/seed.py": "def seed_everything(seed=None):\n    pass\n"})
    monkeypatch.syspath_prepend(str(site))
    root = write(tmp_path / "project", {**PROJECT, "fit.py": LIGHTNING})
    environment = {k: v for k, v in ENVIRONMENT.items() if k != "frameworks"}
    before = Settings.from_values(**environment)
    assert "lightning" in dict(before.frameworks)
    source = (root / "fit.py").read_text(encoding="utf-8")
    old = fix_source(source, before, filename="fit.py").source
    assert "seed_everything(SEED)" in old and "workers=" not in old, old

    def upgrade():
        seed.write_text("def seed_everything(seed=None, workers=False):\n    pass\n", encoding="utf-8")
        return Settings.from_values(**environment)

    changed_input(root, before, upgrade, linted)
    after = Settings.from_values(**environment)
    assert dict(before.frameworks)["lightning"] != dict(after.frameworks)["lightning"]
    assert Results.check(source, "fit.py", before) != Results.check(source, "fit.py", after)
    assert "seed_everything(SEED, workers=True)" in fix_source(source, after, filename="fit.py").source
    assert not installed.accepts("lightning.seed_everything", "workers", ())  # the settings say: not installed


def test_every_framework_source_read_is_stamped():
    for package, relative, _ in installed.DEFINITIONS.values():
        assert relative in S.FRAMEWORK_SOURCES.get(package, ()), (package, relative)
    assert S.ALBUMENTATIONS_DISTRIBUTION == ALBUMENTATIONS_DISTRIBUTION


# -- the installed code: a copy of the package, its table edited in place ----------------------
RUN = """\
import ast, json, sys
sys.path.insert(0, sys.argv[1])
import flake8_determinism
from flake8_determinism.plugin import DeterminismChecker
from flake8_determinism.settings import Settings
assert flake8_determinism.__file__.startswith(sys.argv[1]), flake8_determinism.__file__
DeterminismChecker.settings = Settings.from_values(**json.loads(sys.argv[2]))
linted, lint = [], DeterminismChecker._lint
DeterminismChecker._lint = lambda self, *a: linted.append(self.filename) or lint(self, *a)
found = {}
for path in sys.argv[3:]:
    source = open(path, encoding="utf-8").read()
    checker = DeterminismChecker(ast.parse(source), source.splitlines(True), path)
    found[path.rsplit("/", 1)[-1]] = sorted([line, column, message] for line, column, message, _ in checker.run())
print(json.dumps([found, len(linted)]))
"""


def test_the_installed_code(tmp_path):
    """An edited table (``"choice"`` taken out of ``PYTHON_RANDOM``) in an installed copy of the
    package: the summaries of the modules the entry imports, not only the entry's own findings,
    must be made again (they were kept under a hand-bumped version number)."""
    site = tmp_path / "site"
    shutil.copytree(PACKAGE, site / "flake8_determinism", ignore=shutil.ignore_patterns("__pycache__"))
    root = write(tmp_path / "project", PROJECT)
    files = [str(root / name) for name in ("helpers.py", "train.py")]

    def run():
        done = subprocess.run([sys.executable, "-c", RUN, str(site), json.dumps(ENVIRONMENT), *files],
                              capture_output=True, text=True, env=fresh_environment(), cwd=str(root), timeout=120)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def cold_run():
        shutil.rmtree(root / CACHE_DIRECTORY, ignore_errors=True)
        return run()

    first, linted_cold = cold_run()
    assert "random.choice()" in str(first["train.py"]), first
    assert run() == [first, 0]  # warm: every file read back
    table = site / "flake8_determinism" / "tables" / "rng_draws.py"
    text = table.read_text(encoding="utf-8")
    assert " choice " in text
    table.write_text(text.replace(" choice ", " ", 1), encoding="utf-8")
    warm, _ = run()
    stores = sorted(p.name.rsplit("-", 2)[0] for p in (root / CACHE_DIRECTORY).iterdir() if p.is_dir())
    assert stores == ["findings", "findings", "summaries", "summaries"], stores  # each installation's own
    assert warm == cold_run()[0]
    assert "random.choice()" not in str(warm["train.py"]), warm


def test_a_store_of_other_code_reads_nothing_and_old_ones_are_removed(tmp_path):
    old = Store(str(tmp_path), code="old")
    old.put("m.py", (1, 2), {"x": 1})
    assert old.get("m.py", (1, 2)) == {"x": 1}
    new = Store(str(tmp_path), code="new")
    assert new.get("m.py", (1, 2)) is None
    new.put("m.py", (1, 2), {"x": 2})
    assert old.get("m.py", (1, 2)) == {"x": 1} and new.get("m.py", (1, 2)) == {"x": 2}
    for n in range(KEPT_INSTALLATIONS + 2):  # an edited checkout, edited again and again
        Store(str(tmp_path), code="edit%d" % n).put("m.py", (1, 2), {"x": n})
        time.sleep(0.01)  # each folder written after the one before
    kept = sorted(p.name for p in (tmp_path / CACHE_DIRECTORY).iterdir() if p.name.startswith("summaries-"))
    assert len(kept) == KEPT_INSTALLATIONS and not Path(old.directory).exists(), kept
    findings = Store(str(tmp_path), kind="findings", code="new")
    findings.put("m.py", (1, 2), ())
    assert len(list((tmp_path / CACHE_DIRECTORY).glob("summaries-*"))) == KEPT_INSTALLATIONS  # another kind's stay


def test_settings_import_no_library():
    """The environment is read from metadata and the file system: nothing is imported."""
    code = ("import sys\nfrom flake8_determinism.settings import Settings\nSettings.from_values()\n"
            "print(sorted(m for m in ('numpy', 'torch', 'albumentations', 'lightning') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=fresh_environment(),
                          timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "[]", (done.stdout, done.stderr)
