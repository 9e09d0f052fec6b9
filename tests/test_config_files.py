"""Every option of ours, and flake8's own that decide what is reported, from every file flake8
reads, for the real ``flake8`` and the real ``determinism-fix`` (subprocesses in a temp project).

One project where each option changes the outcome of its own file:

=========================================  ===================  ====================================
option                                     file                 without it -> with it
=========================================  ===================  ====================================
``determinism-strict``                     ``lib.py``           quiet -> DET101 (draw in a library)
``determinism-torch-version = 2.8``        ``det.py``           quiet -> DET305 (torch < 2.10)
``determinism-seed-functions``             ``seeded.py``        DET101, fixed -> quiet (fix_all seeds)
``extend-ignore = DET206``                 ``listing.py``       DET206, fixed -> quiet
``per-file-ignores = quiet.py:DET101``     ``quiet.py``         DET101, fixed -> quiet
``extend-exclude = vendored``              ``vendored/v.py``    DET101, fixed -> not looked at
=========================================  ===================  ====================================
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from flake8_determinism.settings import installed_torch_version

SOURCES = {
    "lib.py": "import random\n\n\ndef jitter():\n    return random.random()\n",
    "det.py": "import torch\n\ntorch.use_deterministic_algorithms(True)\n",
    "seeded.py": (
        "import random\n\nfrom repro import fix_all\n\n"
        'if __name__ == "__main__":\n    fix_all(0)\n    print(random.random())\n'
    ),
    "listing.py": 'import os\n\nif __name__ == "__main__":\n    files = os.listdir(".")\n    open(files[0]).close()\n',
    "quiet.py": 'import random\n\nif __name__ == "__main__":\n    print(random.random())\n',
    "vendored/v.py": 'import random\n\nif __name__ == "__main__":\n    print(random.random())\n',
}
INI = """\
[flake8]
determinism-strict = true
determinism-torch-version = 2.8
determinism-seed-functions = repro.fix_all
extend-ignore = DET206
per-file-ignores =
    quiet.py:DET101
extend-exclude = vendored
"""
# Flake8-pyproject's README spelling: TOML lists.  The version is a string: TOML's 2.10 is 2.1.
TOML = """\
[tool.flake8]
determinism-strict = true
determinism-torch-version = "2.8"
determinism-seed-functions = ["repro.fix_all"]
extend-ignore = ["DET206"]
per-file-ignores = ["quiet.py:DET101"]
extend-exclude = ["vendored"]
"""

# Without configuration the target is the installed torch: below 2.10 (Python 3.9 has no newer
# torch) det.py's cuBLAS workspace is reported there too.
OLD_TORCH = ["det.py:3:1 DET305"] if installed_torch_version() < (2, 10) else []
UNCONFIGURED = sorted(OLD_TORCH + [
    "listing.py:4:13 DET206", "quiet.py:4:11 DET101", "seeded.py:7:11 DET101", "vendored/v.py:4:11 DET101"])
CONFIGURED = ["det.py:3:1 DET305", "lib.py:5:12 DET101"]
FINDING = re.compile(r"^(?:\./)?(.+?):(\d+):(\d+): (DET\d+) ", re.MULTILINE)


def make_project(root: Path, config: dict) -> dict:
    for name, text in {**SOURCES, **config}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return {name: (root / name).read_bytes() for name in SOURCES}


def run(tool: str, root: Path, *args: str) -> subprocess.CompletedProcess:
    # ``python -m flake8_determinism.fix`` calls ``cli.run``, as the console script does.
    command = ["-m", "flake8" if tool == "flake8" else "flake8_determinism.fix"]
    return subprocess.run([sys.executable, *command, *args, "."], capture_output=True, text=True,
                          encoding="utf-8", cwd=root, timeout=120)


def findings(stdout: str) -> list:
    return sorted("%s:%s:%s %s" % match for match in FINDING.findall(stdout))


def fixed_files(root: Path, before: dict) -> list:
    return sorted(name for name, data in before.items() if (root / name).read_bytes() != data)


def test_without_configuration_every_option_file_is_reported_and_fixed(tmp_path):
    # The baseline the configured runs differ from.
    before = make_project(tmp_path, {})
    assert findings(run("flake8", tmp_path).stdout) == UNCONFIGURED
    fix = run("determinism-fix", tmp_path)
    assert fix.returncode == (1 if OLD_TORCH else 0), fix.stdout + fix.stderr
    assert findings(fix.stdout) == OLD_TORCH  # DET305 has no fix
    assert fixed_files(tmp_path, before) == ["listing.py", "quiet.py", "seeded.py", "vendored/v.py"]


@pytest.mark.parametrize("config_file, text, args", [
    pytest.param("setup.cfg", INI, (), id="setup.cfg"),
    pytest.param("tox.ini", INI, (), id="tox.ini"),
    pytest.param(".flake8", INI, (), id=".flake8"),
    pytest.param("pyproject.toml", TOML, (), id="pyproject.toml"),  # through Flake8-pyproject, a flake8 plugin
    pytest.param("ci/lint.cfg", INI, ("--config", "ci/lint.cfg"), id="--config"),
])
@pytest.mark.parametrize("tool", ["flake8", "determinism-fix"])
def test_options_from_config_file(tmp_path, tool, config_file, text, args):
    before = make_project(tmp_path, {config_file: text})
    result = run(tool, tmp_path, *args)
    assert result.returncode == 1, result.stdout + result.stderr
    # determinism-fix prints, as flake8 does, what is left to report: the same findings.
    assert findings(result.stdout) == CONFIGURED
    assert fixed_files(tmp_path, before) == []


@pytest.mark.parametrize("tool", ["flake8", "determinism-fix"])
def test_pyproject_replaces_the_other_files_for_both_tools(tmp_path, tool):
    # Flake8-pyproject reads [tool.flake8] instead of setup.cfg's [flake8]; determinism-fix follows flake8.
    make_project(tmp_path, {
        "setup.cfg": "[flake8]\ndeterminism-strict = true\n",
        "pyproject.toml": '[tool.flake8]\ndeterminism-torch-version = "2.8"\n',
    })
    found = findings(run(tool, tmp_path).stdout)
    assert "det.py:3:1 DET305" in found  # pyproject.toml is read
    assert "lib.py:5:12 DET101" not in found  # setup.cfg is not
