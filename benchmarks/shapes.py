"""Pathological shapes of Python source, and how long the linter and the codemod take on them.

Usage::

    python benchmarks/shapes.py [NAME ...]

For each shape it prints the lines, ``guard``'s estimate, whether the file is
analysed or skipped, and the seconds the plugin's path (``check_source`` on
flake8's ``ast`` tree) and ``fix_source`` take, next to those of an ordinary
1,000-line training script timed in the same run.  ``guard``'s cost model was
fitted on this table; ``tests/test_guard.py`` holds every shape to the bound.
"""

import ast
import sys
import time
from typing import Callable, Dict

# Every shape starts as a training script that draws unseeded, so every rule is a candidate
# and the codemod has something to fix.
HEAD = "import random\n\nimport torch\n\nx0 = random.random()\n"


def _chain(operator: str, count: int) -> str:
    return "x = " + (" %s " % operator).join("a%d" % i for i in range(count)) + "\n"


SHAPES: Dict[str, Callable[[], str]] = {
    # Expressions nested deeply: libcst's time grows with the square of the depth.
    "sum of 20,000 terms (Python 3.9 accepts it)": lambda: _chain("+", 20000),
    "sum of 1,500 terms": lambda: _chain("+", 1500),
    "and-chain of 1,500 terms": lambda: _chain("and", 1500),
    "1,500 nested conditionals": lambda: "x = " + " if c else ".join("a%d" % i for i in range(1500)) + "\n",
    "1,500 nested lambdas": lambda: "x = " + "lambda: " * 1500 + "0\n",
    "1,500 unary minuses": lambda: "x = " + "-" * 1500 + "a\n",
    "attribute chain of 1,500": lambda: "x = a" + ".b" * 1500 + "\n",
    "subscript chain of 1,500": lambda: "x = a" + "[0]" * 1500 + "\n",
    "call chain of 1,500": lambda: "x = a" + "()" * 1500 + "\n",
    "190 nested calls": lambda: "x = " + "f(" * 190 + ")" * 190 + "\n",
    "190 nested lists": lambda: "x = " + "[" * 190 + "]" * 190 + "\n",
    "190 nested parentheses": lambda: "x = " + "(" * 190 + "a" + ")" * 190 + "\n",
    "1,000 lines of 40 nested calls": lambda: ("x = " + "f(" * 40 + ")" * 40 + "\n") * 1000,
    "1,000 lines of 190 nested parentheses": lambda: ("x = " + "(" * 190 + "a" + ")" * 190 + "\n") * 1000,
    "parenthesis and 1,000,000 spaces": lambda: "x = (" + " " * 1_000_000 + "1)\n",
    # A call opened above banner comments (TF's model zoo): each ``#`` could end a comment.
    "parenthesis above 100 banner comments": lambda: "x = f(\n" + ("    " + "#" * 200 + "\n") * 100 + "    1)\n",
    "99 nested blocks": lambda: "".join(" " * i + "if x:\n" for i in range(99)) + " " * 99 + "pass\n",
    # Huge literals and files.
    "list of 100,000 numbers on one line": lambda: "x = [" + ", ".join(map(str, range(100000))) + "]\n",
    "call with 100,000 arguments": lambda: "x = f(" + ", ".join("a%d" % i for i in range(100000)) + ")\n",
    "string of 10 MB": lambda: "x = '" + "a" * 10_000_000 + "'\n",
    "3,000 implicitly joined strings": lambda: "x = (" + " ".join("'a'" for _ in range(3000)) + ")\n",
    "dict of 50,000 lines": lambda: "x = {\n" + "".join("    %d: 'v%d',\n" % (i, i) for i in range(50000)) + "}\n",
    "50,000 lines of functions": lambda: "".join(
        "def f%d(x):\n    return torch.randn(3) + x * %d\n\n\n" % (i, i) for i in range(12500)),
}


def ordinary_script(lines: int = 1000) -> str:
    """A training script of about ``lines`` lines: imports, a model, a loop, unseeded draws."""
    out = [HEAD, "import numpy as np\nfrom torch.utils.data import DataLoader\n\n\n"]
    block = (
        "class Net{i}(torch.nn.Module):\n"
        "    def __init__(self, width={i}):\n"
        "        super().__init__()\n"
        "        self.layer = torch.nn.Linear(width, width)\n"
        "        self.drop = torch.nn.Dropout(0.1)\n"
        "\n"
        "    def forward(self, x):\n"
        "        noise = torch.randn_like(x) * 0.01\n"
        "        return self.drop(self.layer(x + noise)).relu()\n"
        "\n"
        "\n"
        "def train{i}(data, epochs=3):\n"
        "    model = Net{i}()\n"
        "    loader = DataLoader(data, batch_size=32, shuffle=True, num_workers=2)\n"
        "    optimiser = torch.optim.SGD(model.parameters(), lr=0.1 * random.random())\n"
        "    for epoch in range(epochs):\n"
        "        for batch in loader:\n"
        "            loss = model(batch).sum() + float(np.random.rand())\n"
        "            optimiser.zero_grad()\n"
        "            loss.backward()\n"
        "            optimiser.step()\n"
        "    return model\n"
        "\n"
        "\n"
    )
    count = 0
    while sum(part.count("\n") for part in out) < lines - 6:
        out.append(block.format(i=count))
        count += 1
    out.append("if __name__ == '__main__':\n    train0(torch.randn(100, 0))\n")
    return "".join(out)


def plugin_seconds(source: str) -> float:
    """The plugin's own time on ``source``, as flake8 runs it (its ``ast`` tree given), on a
    file judged alone and without the findings cache (a cached file would cost nothing)."""
    from flake8_determinism.plugin import DeterminismChecker
    from flake8_determinism.settings import Settings

    try:
        tree = ast.parse(source)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return 0.0  # flake8 reports E999 (or fails itself) and never calls the plugin
    saved, DeterminismChecker.settings = DeterminismChecker.settings, Settings(project_root="none", cache=False)
    try:
        start = time.perf_counter()
        list(DeterminismChecker(tree, source.splitlines(True), "train.py").run())
        return time.perf_counter() - start
    finally:
        DeterminismChecker.settings = saved


def codemod_seconds(source: str) -> float:
    from flake8_determinism.checker import ParseFailure
    from flake8_determinism.fix.transform import fix_source
    from flake8_determinism.settings import Settings

    start = time.perf_counter()
    try:
        fix_source(source, Settings(), filename="train.py")
    except ParseFailure:
        pass
    return time.perf_counter() - start


def verdict(source: str) -> str:
    from flake8_determinism import guard

    try:
        tree = ast.parse(source)
    except (SyntaxError, RecursionError, MemoryError, ValueError) as error:
        return "rejected by this Python (%s)" % type(error).__name__
    reason = guard.reason_to_skip(tree, source)
    found = guard.estimate(tree, source)
    return "est %.2f s: %s" % (found.seconds, "skipped" if reason else "analysed")


def main(names) -> None:
    normal = ordinary_script()
    print("ordinary 1,000-line script: plugin %.3f s, codemod %.3f s, %s" % (
        plugin_seconds(normal), codemod_seconds(normal), verdict(normal)))
    for name, make in SHAPES.items():
        if names and not any(n in name for n in names):
            continue
        source = HEAD + make()
        print("%-45s %6d lines  plugin %6.3f s  codemod %6.3f s  %s" % (
            name, source.count("\n"), plugin_seconds(source), codemod_seconds(source), verdict(source)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
