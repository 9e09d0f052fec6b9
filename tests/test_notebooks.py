"""Notebooks: determinism-fix reads and writes ``.ipynb`` natively; flake8 says it cannot read
them; ``nbqa flake8`` lints them with positions on real cell lines.  Notebooks are written with
the real nbformat, and nbQA is the real one."""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import nbformat  # a test dependency, as nbQA is: missing, these tests fail rather than skip
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from flake8_determinism import notebooks

SCRIPTS = sysconfig.get_path("scripts")
NBQA = shutil.which("nbqa", path=SCRIPTS)

CELLS = [
    new_markdown_cell("# Training\nA tiny model."),
    new_code_cell("%matplotlib inline\nimport numpy as np\nimport torch\nfrom torch.utils.data import DataLoader, "
                  "TensorDataset"),
    new_code_cell("!pip install -q tqdm\nfiles = !ls\ndata = TensorDataset(torch.randn(64, 3))\n"
                  "loader = DataLoader(data, batch_size=8, shuffle=True)"),
    new_code_cell("%%bash\necho not python: $((1 + 1))"),
    new_code_cell("%%time\nmodel = torch.nn.Linear(3, 1)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                  "for step, (x,) in enumerate(loader):\n    if step == 0:\n        !echo first\n"
                  "    loss = model(x).pow(2).mean() + float(np.random.rand())\n    opt.zero_grad()\n"
                  "    loss.backward()\n    opt.step()"),
    new_code_cell("import time\ntorch.manual_seed(int(time.time()))  # a seed from the clock: DET105, no fix"),
]


def _notebook(path: Path, cells=CELLS, **write) -> Path:
    nb = new_notebook(cells=[nbformat.from_dict(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells[4].outputs = [new_output("stream", name="stdout", text="CPU times: 1.2 s\n")]
    nb.cells[4].execution_count = 7
    if write:
        path.write_text(json.dumps(nb, **write), encoding="utf-8")
    else:
        nbformat.write(nb, str(path))
    return path


def _fix(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8_determinism.fix", *args], cwd=str(cwd),
                          capture_output=True, text=True, timeout=120)


def _code_sources(path: Path) -> list:
    return ["".join(c["source"]) for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]


def test_fix_rewrites_the_code_cells_and_keeps_everything_else(tmp_path):
    path = _notebook(tmp_path / "train.ipynb")
    before = json.loads(path.read_text())
    result = _fix("train.ipynb", cwd=tmp_path)
    assert result.returncode == 1, result.stderr  # DET105 is left for the user
    after = json.loads(path.read_text())
    nbformat.validate(nbformat.reads(path.read_text(), as_version=4))
    # outputs, metadata, execution counts, markdown: untouched; the formatting is nbformat's own
    assert after["metadata"] == before["metadata"]
    for old, new in zip(before["cells"], after["cells"]):
        assert {k: v for k, v in old.items() if k != "source"} == {k: v for k, v in new.items() if k != "source"}
    assert nbformat.writes(nbformat.reads(path.read_text(), as_version=4)) + "\n" == path.read_text()
    first, second, bash, training, clock = _code_sources(path)
    assert first.startswith("%matplotlib inline\n") and "torch.manual_seed(SEED)" in first
    assert "np.random.seed(SEED)" in first
    assert second == _code_sources_of(CELLS)[1]  # the seeding in cell 1 now reaches its loader
    assert bash == "%%bash\necho not python: $((1 + 1))"
    assert training.startswith("%%time\n") and "        !echo first\n" in training
    assert clock == _code_sources_of(CELLS)[4]
    # what is left is named by cell, on the line it is on
    assert "train.ipynb:cell_5:2:1: DET105" in result.stdout
    assert "1 left for you" in result.stdout
    # a second run changes nothing
    text = path.read_text()
    again = _fix("train.ipynb", cwd=tmp_path)
    assert again.returncode == 1 and path.read_text() == text and "0 fixed" in again.stdout


def _code_sources_of(cells) -> list:
    return [c["source"] for c in cells if c["cell_type"] == "code"]


def test_diff_is_per_cell_and_changes_nothing(tmp_path):
    path = _notebook(tmp_path / "train.ipynb")
    text = path.read_text()
    result = _fix("--diff", "train.ipynb", cwd=tmp_path)
    assert result.returncode == 1 and path.read_text() == text
    headers = [line for line in result.stdout.splitlines() if line.startswith(("--- ", "+++ "))]
    assert headers == ["--- train.ipynb:cell_1", "+++ train.ipynb:cell_1"]
    assert "+torch.manual_seed(SEED)" in result.stdout and " %matplotlib inline" in result.stdout


def test_other_json_formatting_is_kept(tmp_path):
    path = _notebook(tmp_path / "two.ipynb", indent=2, ensure_ascii=True)
    cells = json.loads(path.read_text())["cells"]
    assert _fix("two.ipynb", cwd=tmp_path).returncode == 1
    fixed = json.loads(path.read_text())
    assert fixed["cells"] != cells
    assert json.dumps(fixed, indent=2, ensure_ascii=True) == path.read_text()


def test_positions_in_json_and_statistics(tmp_path):
    _notebook(tmp_path / "train.ipynb")
    result = _fix("--diff", "--output-format", "json", "train.ipynb", cwd=tmp_path)
    data = json.loads(result.stdout)
    assert [(f["cell"], f["line"], f["code"]) for f in data["findings"]] == [(5, 2, "DET105")]
    assert data["statistics"]["DET105"] == {"found": 1, "fixed": 0, "left": 1, "unsafe": 0}
    github = _fix("--diff", "--output-format", "github", "train.ipynb", cwd=tmp_path)
    assert "::warning file=train.ipynb,title=DET105 (cell_5:2:1)::" in github.stdout


def test_notebooks_of_other_languages_and_broken_ones_get_a_clear_line(tmp_path):
    r_notebook = new_notebook(cells=[new_code_cell("x <- runif(3)")])
    r_notebook.metadata["kernelspec"] = {"name": "ir", "display_name": "R", "language": "R"}
    nbformat.write(r_notebook, str(tmp_path / "r.ipynb"))
    (tmp_path / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    bad = new_notebook(cells=[new_code_cell("import torch\nif True\n    torch.randn(1)")])
    nbformat.write(bad, str(tmp_path / "bad.ipynb"))
    result = _fix("r.ipynb", "broken.ipynb", "bad.ipynb", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "r.ipynb: skipped: a r notebook, not Python" in result.stderr
    assert "broken.ipynb: is not valid JSON" in result.stderr
    assert "bad.ipynb: cannot parse its code cells: " in result.stderr and "cell 1, line 2" in result.stderr


def test_a_folder_includes_its_notebooks(tmp_path):
    _notebook(tmp_path / "train.ipynb")
    result = _fix("--check", ".", cwd=tmp_path)
    assert result.returncode == 1 and "would fix ./train.ipynb" in result.stdout


def test_magics_round_trip_through_the_script():
    sources = ["%load_ext autoreload\n%autoreload 2", "x = 1\nx?\n??len", "if x:\n    !ls \\\n      -l\n",
               "%%writefile f.py\nimport random\nrandom.random()", ""]
    notebook = notebooks.Notebook("", list(range(len(sources))), sources)
    script = notebooks.to_script(notebook)
    compile(script.text, "<notebook>", "exec")  # plain Python
    assert "random.random()" not in script.text  # a %%writefile cell is not the run's code
    assert notebooks.from_script(notebook, script, script.text) == sources


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "setup.cfg").write_text("[flake8]\n", encoding="utf-8")
    return tmp_path


def test_flake8_on_a_notebook_says_it_cannot_read_it(project):
    _notebook(project / "train.ipynb")
    result = subprocess.run([sys.executable, "-m", "flake8", "--select=DET", "train.ipynb"], cwd=str(project),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stdout.startswith("train.ipynb:1:1: DET001 flake8 cannot read notebooks")
    assert "nbqa flake8 --select=DET train.ipynb" in result.stdout


def test_nbqa_flake8_reports_on_cell_lines(project):
    assert NBQA, "nbQA is a test dependency (pip install -e '.[test]')"
    _notebook(project / "train.ipynb", cells=CELLS[:5])  # nothing seeds torch: DET100 for the whole run
    result = subprocess.run([NBQA, "flake8", "--select=DET", "train.ipynb"], cwd=str(project),
                            capture_output=True, text=True, timeout=120, env=dict(os.environ, PATH=SCRIPTS + os.pathsep
                                                                                  + os.environ.get("PATH", "")))
    lines = result.stdout.splitlines()
    assert result.returncode == 1, result.stdout + result.stderr
    codes = {line.split(": ", 1)[1].split()[0]: line.split(": ", 1)[0] for line in lines}
    # the whole run's codes on the first cell's first line of code, not on line 0
    assert codes["DET100"] == "train.ipynb:cell_1:1:1"
    assert "DET202" not in codes  # the unseeded run's loader is one of DET100's causes
    det100 = next(line for line in lines if "DET100" in line)
    assert "np.random.rand() at train.ipynb:cell_4:7" in det100  # the message's references name cells too
    assert "DataLoader at train.ipynb:cell_2:4" in det100


def test_a_shell_line_indented_at_the_top_of_a_cell_is_not_a_block():
    sources = [' !tts --text "hi" \\\n      --out x.wav\nprint(1)', "for i in range(2):\n    !echo $i\nprint(2)"]
    notebook = notebooks.Notebook("", [0, 1], sources)
    script = notebooks.to_script(notebook)
    compile(script.text, "<notebook>", "exec")
    assert notebooks.from_script(notebook, script, script.text) == sources
