"""What the project model costs: summarizing modules, the cache, memory, and a large project.

Usage::

    python benchmarks/project_model.py [DIR] [--synthetic N]

1. Over every ``*.py`` under DIR (default: the installed torch's sources): each module summarized
   from its ``ast`` (cold, no cache), then read back from the cache (warm), with the time per
   module against ``ast.parse`` alone, and the memory the summaries hold per 1,000 modules
   (``tracemalloc``: what the model keeps, not the parse's garbage).
2. ``--synthetic N``: a project of N modules in a temporary directory, an entry script that
   imports two of them; linting the script must read those two, not the N (one file's lint never
   parses the whole project), and takes the time of a small project.
"""

import argparse
import ast
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from flake8_determinism.analysis.project import model
from flake8_determinism.benchmark import collect_files, read_source, torch_source_dir
from flake8_determinism.checker import check_source
from flake8_determinism.settings import Settings


def summaries(root: Path) -> None:
    files = collect_files(root, None)
    parse = 0.0
    for path in files:
        start = time.perf_counter()
        try:
            ast.parse(read_source(path))
        except (SyntaxError, ValueError, RecursionError):
            pass
        parse += time.perf_counter() - start
    cache = Path(tempfile.mkdtemp())
    try:
        # Timed without tracemalloc (it slows allocation several times); memory in a traced pass.
        for label in ("cold (summarize, write the cache)", "warm (read the cache)"):
            project = fresh_project(root, cache)
            start = time.perf_counter()
            loaded = sum(project.module(str(path)) is not None for path in files)
            elapsed = time.perf_counter() - start
            print("%-36s %5d modules  %6.2f s  %5.2f ms/module  %.2fx ast.parse" % (
                label, loaded, elapsed, 1000 * elapsed / len(files), elapsed / parse))
        project = fresh_project(root, cache)
        tracemalloc.start()
        loaded = sum(project.module(str(path)) is not None for path in files)
        held, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print("summaries held in memory: %.1f MB per 1,000 modules (%d modules)" % (
            held / 1e6 / len(files) * 1000, loaded))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print("ast.parse alone: %.2f s for %d files" % (parse, len(files)))


def fresh_project(root: Path, cache: Path):
    """A project with nothing in memory, its cache in ``cache``."""
    model.forget()
    project = model.Project(str(root), Settings.from_values(), use_cache=True)
    project.store.top = str(cache)
    project.store.directory = str(cache / "summaries")
    return project


def synthetic(count: int) -> None:
    root = Path(tempfile.mkdtemp())
    try:
        (root / "pyproject.toml").write_text("")
        package = root / "pkg"
        package.mkdir()
        (package / "__init__.py").write_text("")
        for n in range(count):
            (package / ("m%d.py" % n)).write_text(
                "import torch\n\n\ndef build():\n    return torch.nn.Linear(%d, 2)\n" % (n + 1))
        script = root / "train.py"
        script.write_text("import torch\nfrom pkg import m1, m2\n\nif __name__ == '__main__':\n"
                          "    torch.manual_seed(0)\n    print(m1.build(), m2.build())\n")
        settings = Settings.from_values(project_root=str(root))
        for label in ("cold", "warm"):
            model.forget()
            start = time.perf_counter()
            found = check_source(script.read_text(), settings, filename="train.py", path=str(script))
            elapsed = time.perf_counter() - start
            project = model.project_for(str(script), settings)
            print("synthetic project of %d modules, %s: %.3f s, %d modules read, %d findings" % (
                count, label, elapsed, len([m for m in project._modules.values() if m is not None]), len(found)))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", nargs="?", type=Path)
    parser.add_argument("--synthetic", type=int, default=10000, help="modules in the synthetic project (0: skip)")
    args = parser.parse_args(argv)
    summaries((args.dir or torch_source_dir()).resolve())
    if args.synthetic:
        synthetic(args.synthetic)
    return 0


if __name__ == "__main__":
    sys.exit(main())
