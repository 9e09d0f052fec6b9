"""benchmarks/corpus.py on a tiny corpus: counts, the judging sheet, --tally, --compare."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "corpus.py"


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


def make_corpus(root: Path) -> None:
    (root / "alpha" / "pkg").mkdir(parents=True)
    (root / "alpha" / "pkg" / "train.py").write_text(
        "import random\nimport glob\nfiles = glob.glob('*.png')\nfirst = files[0]\nx = random.random()\n"
    )
    (root / "beta" / "tests").mkdir(parents=True)
    (root / "beta" / "tests" / "test_x.py").write_text("import random\nx = random.random()\n")
    (root / "beta" / "broken.py").write_text("def (:\n")


def test_counts_sheet_tally_and_compare(tmp_path):
    corpus = tmp_path / "corpus"
    make_corpus(corpus)
    out, sheet = tmp_path / "reports.txt", tmp_path / "sheet.md"
    result = run(corpus, "--out", out, "--sheet", sheet, "--sample", "5", "--seed", "3")
    assert result.returncode == 0, result.stderr
    assert "files: 3   reports: 2   crashes: 0" in result.stdout
    assert "DET101      1" in result.stdout and "DET206      1" in result.stdout
    assert "alpha" in result.stdout and "beta" in result.stdout
    lines = out.read_text().splitlines()
    assert [line.split(": ")[1].split()[0] for line in lines] == ["DET206", "DET101"]
    assert lines[0].startswith("alpha/pkg/train.py:3:9: DET206 ")

    text = sheet.read_text()
    assert "| 1 | `alpha/pkg/train.py:3` DET206 |  |  |" in text
    assert ">3  files = glob.glob('*.png')" in text  # the reported line, marked, with context
    judged = text.replace("DET206 |  |  |", "DET206 | TP | order reaches files[0] |").replace(
        "DET101 |  |  |", "DET101 | LOW | demo |"
    )
    sheet.write_text(judged)
    tally = run("--tally", sheet)
    assert "| DET206 | 1 | 0 | 0 | 1 |" in tally.stdout and "| DET101 | 0 | 1 | 0 | 1 |" in tally.stdout
    assert "right (TP + LOW): 100 %   worth fixing (TP): 50 %" in tally.stdout

    (corpus / "alpha" / "pkg" / "train.py").write_text("import random\nrandom.seed(0)\nx = random.random()\n")
    compared = run(corpus, "--compare", out)
    assert "disappeared: 2   appeared: 0" in compared.stdout
    assert "- alpha/pkg/train.py:5:5: DET101" in compared.stdout


def test_precheck_off_finds_the_same(tmp_path):
    corpus = tmp_path / "corpus"
    make_corpus(corpus)
    out = tmp_path / "reports.txt"
    assert run(corpus, "--out", out).returncode == 0
    result = run(corpus, "--no-precheck", "--compare", out)
    assert "disappeared: 0   appeared: 0" in result.stdout


def test_each_project_is_linted_as_its_own_checkout(tmp_path):
    """A corpus holds a project's files without its ``.git``: the project's folder is its root, so
    a script in a subfolder that puts the parent on ``sys.path`` sees the project's modules (the
    dataset that seeds torch), as it would in the checkout; a nearer marker (a vendored package's
    ``setup.py``) makes a project of its own, as in the checkout."""
    corpus = tmp_path / "corpus"
    project = corpus / "gamma"
    (project / "scripts").mkdir(parents=True)
    (project / "dataio.py").write_text(
        "import torch\n\n\nclass Source(torch.utils.data.Dataset):\n    def __init__(self):\n"
        "        torch.manual_seed(0)\n\n    def __len__(self):\n        return 4\n\n"
        "    def __getitem__(self, i):\n        return torch.rand(2)\n"
    )
    (project / "scripts" / "train.py").write_text(
        "import os\nimport sys\nsys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n"
        "import torch\nimport dataio\n\nloader = torch.utils.data.DataLoader(dataio.Source(), shuffle=True)\n"
        "model = torch.nn.Linear(2, 1)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for batch in loader:\n    model(batch).sum().backward()\n    optimizer.step()\n"
    )
    result = run(corpus, "--out", tmp_path / "out.txt")
    assert result.returncode == 0, result.stderr
    assert "gamma/scripts/train.py" not in (tmp_path / "out.txt").read_text()  # seeded by dataio.Source()

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from corpus import checkout_root
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    (project / "vendor" / "pkg").mkdir(parents=True)
    (project / "vendor" / "setup.py").write_text("")
    assert checkout_root(project, project / "scripts" / "train.py") == str(project)
    assert checkout_root(project, project / "vendor" / "pkg" / "ops.py") == str(project / "vendor")
