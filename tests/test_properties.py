"""Property tests (issue 12): the plugin and ``determinism-fix`` on generated programs.

Properties, on every generated program (always valid Python: ``ast.parse`` filters):

1. the flake8 plugin never raises (entry module, test module, strict mode);
2. ``fix_source``'s output parses (``ast`` and libcst);
3. fixing is idempotent: fixing the output again changes nothing;
4. the output differs from the input only where a fix was asked for: with no fix to
   apply it is byte-identical; otherwise, round by round, every input line that is
   deleted or replaced lies within the statement of a finding whose applied fix edits
   nodes (``Fix.edits``); the module-level part of a fix (seeding block, ``SEED``,
   ``seed_worker``, imports) only inserts lines.  Two fixes edit elsewhere by design
   (``EDITS_ELSEWHERE``), and there the statements of the edited nodes may change too:
   DET109 edits the seed option's declaration (``default=None`` -> ``default=0``), not
   the guard it reports; DET303's module-level report ("turns on no deterministic
   mode") sets the framework's switch on every ``Trainer(...)``-like call;
5. the output keeps the input's conventions: a file with only CRLF line breaks gets
   none other, a file indented with tabs only gets no space indentation.

Every generated program parses with ``ast``, so ``ParseFailure`` from ``fix_source`` is
accepted only as ``Skipped``, and only on a file that ``guard`` refuses (too deep or too
costly for libcst) or that libcst cannot write back as it is (``_not_rewritable``).

Programs: ``hypothesmith`` (from the grammar, from libcst's nodes) alone, and ML
programs mixing the rules' own examples and snippets that trigger fixes (unseeded
draws, DataLoaders, listings, cuDNN flags, seeding helpers, ``__main__`` guards) with
hypothesmith's statements, in spaces or tabs, LF/CRLF/CR, with comments and ``# noqa``.
"""

import ast
import difflib
import os
import re
from typing import List, Set

import hypothesmith
import libcst as cst
import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings, strategies as st
from hypothesis.control import currently_in_test_context

from flake8_determinism import guard
from flake8_determinism.checker import ParseFailure, Skipped
from flake8_determinism.fix.config import Flake8Config
from flake8_determinism.fix.transform import MAX_ROUNDS, fix_source, lint
from flake8_determinism.plugin import DeterminismChecker
from flake8_determinism.positions import start_positions
from flake8_determinism.registry import ALL_RULES
from flake8_determinism.settings import Settings

# -- Hypothesis settings -----------------------------------------------------------------
#
# CI runs these on every change (Python 3.9-3.13, 2 cores): the examples must be the same
# on every run, so a red build is reproducible and never caused by luck.  ``derandomize``
# derives them from each test's own code (no database, no random seed); they change only
# when the test or its strategies change.  To explore further locally, run with
# DETERMINISM_PROPERTY_EXAMPLES=500 (random examples, that many per test; a failure prints
# the ``@reproduce_failure`` line and the minimal program).
_EXPLORE = int(os.environ.get("DETERMINISM_PROPERTY_EXAMPLES", "0") or 0)


def _settings(examples: int):
    return settings(
        max_examples=_EXPLORE or examples,
        derandomize=not _EXPLORE,
        database=None,
        # One fix_source run takes 20-300 ms (libcst); a rare program runs five rounds.
        deadline=None,
        # hypothesmith's strategies are slow to draw (libcst, a grammar), and the program
        # strategy filters by ``ast.parse``: mixing generated code with ours sometimes
        # yields invalid Python (a trailing backslash, mixed tabs), and that is expected.
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
        print_blob=True,
    )


TRAIN = "train.py"
TEST_MODULE = "tests/test_train.py"
SETTINGS = {
    "default": Settings(),
    "strict": Settings(strict=True),
    "torch-2.8": Settings(torch_version=(2, 8)),  # adds the CUBLAS_WORKSPACE_CONFIG line
}
NOQA = Flake8Config(isolated=True).noqa_options()  # flake8's defaults: ``# noqa`` silences

# Findings whose fix edits nodes outside the statement reported, by design; for these the
# statements of the edited nodes may change too (``_allowed_lines``).  Code -> (which of its
# findings, what the fix edits).
EDITS_ELSEWHERE = {
    "DET109": (lambda finding: True,
               "reported at the seed guard, fixed at the option's declaration (default=None -> default=0)"),
    "DET100": (lambda finding: True,
               "a module-level report of the run, whose fix also gives the run's unseeded DataLoaders and samplers "
               "generator= (and TF Estimators tf_random_seed=, builders that reseed their seed=)"),
    "DET104": (lambda finding: "never seeded in this run" in finding.message,
               "the run's report, at its first use of torch, whose fix also gives the run's unseeded DataLoaders "
               "and samplers generator="),
    "DET303": (lambda finding: "turns on no deterministic mode" in finding.message,
               "a module-level report (at the __main__ guard, else line 1), fixed with the framework's own "
               "switch on every call that builds its trainer: Trainer(..., deterministic=True), "
               "TrainingArguments(..., full_determinism=True), ..."),
}

# -- Lines and statements ----------------------------------------------------------------

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def physical_lines(source: str) -> List[str]:
    """Lines as Python (and libcst) count them: only \\r\\n, \\r and \\n end a line
    (``str.splitlines`` also splits at form feeds and other characters)."""
    return _LINE.findall(source)


MATCH_CASE = getattr(ast, "match_case", ())  # Python 3.10+


def _statement_spans(tree: ast.Module, lines: List[str]):
    """(first line, last line, depth) of every statement; a compound statement's span is
    its header only (decorators included), its body's statements have their own."""
    spans = []

    def start(node):  # a ``match`` case has no position: its pattern has, after ``case``
        return (node.pattern.lineno, 0) if isinstance(node, MATCH_CASE) else (node.lineno, node.col_offset)

    def visit(node, depth):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                first = min([child.lineno] + [d.lineno for d in getattr(child, "decorator_list", ())])
                last = child.end_lineno
                body = [start(s) for field in ("body", "orelse", "finalbody", "handlers", "cases")
                        for s in (getattr(child, field, None) or [])]
                if body:
                    head, col = min(body)
                    # The header ends on the line before its body, unless the body starts on a
                    # line the header is on (``if x: y``, ``for a in f(\n b): c``); ``ast``
                    # columns count UTF-8 bytes.
                    text = lines[head - 1].encode("utf-8") if head - 1 < len(lines) else b""
                    last = max(first, head - 1 if not text[:col].strip() else head)
                spans.append((first, last, depth))
            visit(child, depth + 1)

    visit(tree, 0)
    return spans


def statement_lines(spans, line: int) -> Set[int]:
    """The lines of the innermost statement (header) on ``line``; empty when none is."""
    containing = [s for s in spans if s[0] <= line <= s[1]]
    if not containing:
        return set()
    first, last, _ = max(containing, key=lambda s: (s[2], s[0], -s[1]))
    return set(range(first, last + 1))


def kept_in_order(protected: List[str], output: List[str]) -> bool:
    """Whether ``protected`` is a subsequence of ``output`` (greedy matching is exact).
    A last line without a line break may gain one: code inserted after it needs it."""
    found = iter(output)
    return all(any(line == other or _ends_file(line) and other in (line + "\n", line + "\r\n", line + "\r")
                   for other in found) for line in protected)


def _ends_file(line: str) -> bool:
    return not line.endswith(("\n", "\r"))


# -- Strategies ----------------------------------------------------------------------------


def _valid(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


# hypothesmith, alone (these rarely trigger a rule: they check the "nothing changes" side).
generated_python = st.one_of(hypothesmith.from_grammar(), hypothesmith.from_node())

RULE_EXAMPLES = sorted({src for rule in ALL_RULES for src in rule.invalid + rule.valid + (rule.fixed,) if src})

IMPORTS = (
    "import random",
    "import numpy as np",
    "import torch",
    "import torch as T",
    "import os",
    "import glob",
    "import argparse",
    "from torch.utils.data import DataLoader, Dataset, RandomSampler, random_split",
    "from torch.utils.data import DataLoader as DL",
    "from torch.backends import cudnn",
    "from sklearn.model_selection import train_test_split, KFold",
    "import tensorflow as tf",
    "from pathlib import Path",
    "import os, random",
    "try:\n    import numpy as np\nexcept ImportError:\n    np = None",
)
SHADOWS_SORTED = "sorted = list"  # the DET206/DET207 fix must not call it
ML_HEADER = ("import glob\nimport os\nimport random\nimport numpy as np\nimport torch\n"
             "from torch.utils.data import DataLoader, Dataset, RandomSampler, random_split")
SNIPPETS = (
    # unseeded draws (DET101-DET104)
    "x = random.random()",
    "a = np.random.rand(3)",
    "t = torch.randn(2, 3)",
    "t = T.rand(4)",
    "random.shuffle(items)",
    "idx = np.random.permutation(10)",
    "rng = np.random.default_rng()",
    "g = random.Random()",
    "w = tf.random.normal([2])",
    "print(random.randint(0, 9), np.random.randn())",
    # DataLoaders, samplers, splits (DET201, DET202, DET205)
    "loader = DataLoader(ds, shuffle=True, num_workers=2)",
    "loader = DataLoader(\n    ds,\n    batch_size=8,\n    shuffle=True,\n)",
    "loader = DataLoader(ds, 4, True)",
    "loader = DL(ds, batch_size=4, shuffle=True, generator=None)",
    "loader = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=True, num_workers=4)",
    "sampler = RandomSampler(ds)",
    "train, val = random_split(ds, [8, 2])",
    "for batch in DataLoader(ds, shuffle=True): print(batch)",
    "class D(Dataset):\n    def __init__(self):\n        self.rng = np.random.default_rng(0)\n\n"
    "    def __getitem__(self, i):\n        return self.rng.random()",
    # listings, sets (DET206, DET207)
    "files = glob.glob('data/*.png')",
    "names = os.listdir(root)\nfirst = names[0]",
    "for f in glob.glob('*.txt'):\n    print(f)",
    "paths = list(Path('.').glob('*.py'))\nprint(paths)",
    "for root, dirs, files in os.walk('.'):\n    print(root, files)",
    "for root, dirs, files in os.walk('.'): print(files)",
    "classes = list(set(labels))",
    "for x in {'a', 'b'}:\n    model.fit(x)",
    # sklearn (DET108)
    "a, b = train_test_split(data, test_size=0.2)",
    "cv = KFold(5, shuffle=True)",
    # cuDNN and deterministic algorithms (DET301-DET303)
    "torch.backends.cudnn.benchmark = True",
    "torch.backends.cudnn.deterministic = False",
    "cudnn.benchmark = True",
    "torch.use_deterministic_algorithms(False)",
    "model = torch.nn.Linear(2, 1)\nmodel(torch.ones(2)).sum().backward()",
    # seeding already there (the block must not duplicate, SEED may be taken)
    "random.seed(0)",
    "np.random.seed(42)",
    "torch.manual_seed(0)",
    "SEED = 3",
    "def set_seed(seed):\n    random.seed(seed)\n    np.random.seed(seed)",
    "set_seed(1)",
    # frameworks with their own switches (DET100/DET303 fix them at their trainers)
    "import lightning as L\ntrainer = L.Trainer(max_epochs=1)\ntrainer.fit(model)",
    "from transformers import Trainer, TrainingArguments\nargs = TrainingArguments('out')\n"
    "trainer = Trainer(model=model, args=args)\ntrainer.train()",
    "parser = argparse.ArgumentParser()\nparser.add_argument('--seed', type=int, default=None)\n"
    "args = parser.parse_args()\nif args.seed is not None:\n    random.seed(args.seed)",
    # ordinary code
    "def seed_worker(worker_id):\n    pass",
    SHADOWS_SORTED,
    "data = list(range(10))",
    "ds = data",
    "def train(model):\n    for epoch in range(3):\n        model.step()\n    return model",
    "'''A docstring\n    with an indented line.'''",
    "x = (1 +\n     2)",
    "y = [\n    1,\n    2,\n]",
    "pass",
)
COMMENTS = ("# a comment", "# noqa", "# noqa: DET202", "# noqa: DET101,DET206", "# type: ignore")


def _lines(text: str, level: int) -> List[tuple]:
    """``text`` (indented by 4 spaces per level) as (indent level, line) pairs."""
    pairs = []
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        pairs.append((level + (len(line) - len(stripped)) // 4, stripped))
    return pairs


@st.composite
def _piece(draw, level: int) -> List[tuple]:
    """One piece of a body as (indent level, line) pairs."""
    kind = draw(st.sampled_from(["snippet"] * 8 + ["example"] * 3 + ["deep"]))
    if kind == "example":
        return _lines(draw(st.sampled_from(RULE_EXAMPLES)), level)
    if kind == "deep":  # a deeply nested expression: the guard skips the file when it is deep enough
        depth = draw(st.integers(1, 90))
        return [(level, "x = " + "f(" * depth + "torch.randn(1)" + ")" * depth)]
    return _lines(draw(st.sampled_from(SNIPPETS)), level)


@st.composite
def _block(draw, level: int = 0) -> List[tuple]:
    """Pieces, possibly inside ``def main():`` (called under a ``__main__`` guard), a
    ``__main__`` guard, a function or a loop."""
    wrapper = draw(st.sampled_from([None, None, "main", "guard", "def", "loop"]))
    inner = level + (wrapper is not None)
    lines = [pair for piece in draw(st.lists(_piece(inner), min_size=1, max_size=4)) for pair in piece]
    if wrapper == "guard":
        return [(level, 'if __name__ == "__main__":')] + lines
    if wrapper == "main":
        return [(level, "def main():")] + lines + [(level, 'if __name__ == "__main__":'), (inner, "main()")]
    if wrapper == "def":
        return [(level, "def helper(ds, data, items, labels, root, model):")] + lines
    if wrapper == "loop":
        return [(level, "for epoch in range(2):")] + lines
    return lines


@st.composite
def ml_programs(draw) -> str:
    """A valid module: maybe a docstring and a ``__future__`` import, some imports, then
    blocks, rendered with a chosen indentation, line ending, comments and blank lines."""
    lines = []
    if draw(st.booleans()):
        lines.append((0, '"""Train a model."""'))
    # Hypothesis often draws the simplest choice (0, the first element): make that the ML
    # script with a full import header, so that the rules fire.
    if draw(st.integers(0, 5)) == 5:
        lines.append((0, "from __future__ import annotations"))
    imports = draw(st.lists(st.sampled_from(IMPORTS), max_size=4, unique=True))
    if draw(st.integers(0, 2)) != 2:  # mostly a full header: the snippets' names are then imported
        imports.insert(draw(st.integers(0, len(imports))), ML_HEADER)
    for imp in imports:
        lines += _lines(imp, 0)
    blocks = draw(st.lists(_block(), min_size=1, max_size=4))
    if draw(st.integers(0, 2)) == 2:
        # Generated code, verbatim (level None), at the top level: re-indenting it could change
        # its strings.  One chunk at most: hypothesmith's strategies record ``target()`` scores
        # under fixed labels, which a second draw in the same example would overwrite (an error).
        blocks.insert(draw(st.integers(0, len(blocks))), [(None, draw(generated_python))])
    for block in blocks:
        lines += block
    indent = draw(st.sampled_from(["    ", "\t", "  ", " \t"]))
    newline = draw(st.sampled_from(["\n", "\r\n", "\n", "\r"]))
    comments = dict(draw(st.lists(st.tuples(st.integers(0, 40), st.sampled_from(COMMENTS)), max_size=3)))
    blank = draw(st.sets(st.integers(0, 40), max_size=3))
    out = []
    for index, (level, line) in enumerate(lines):
        if level is None:  # generated code, verbatim
            out.append(line if line.endswith(("\n", "\r")) else line + newline)
            continue
        if index in blank:
            out.append(newline)
        text = indent * level + line
        if index in comments and text.strip() and not text.endswith("\\"):
            text += "  " + comments[index]
        out.append(text + newline)
    source = "".join(out)
    # No final line break: sometimes; mostly with CR line breaks, as determinism-fix skips a
    # file that ends with a lone CR (libcst would not write it back as it is).
    if draw(st.integers(0, 9)) == 9 or (newline == "\r" and draw(st.integers(0, 3)) != 3):
        source = source.rstrip("\r\n")
    assume(_valid(source))
    return source


# -- The properties ------------------------------------------------------------------------


def run_plugin(source: str, filename: str, strict: bool) -> list:
    """As flake8 runs a tree plugin: the ``ast`` tree and the physical lines."""
    tree = ast.parse(source)
    checker = DeterminismChecker(tree, source.splitlines(True), filename)
    if strict:
        checker.settings = Settings(strict=True)  # an instance attribute: the class keeps its own
    return list(checker.run())


def _skipped_by_guard(source: str) -> bool:
    return guard.reason_to_skip(ast.parse(source), source) is not None


def _not_rewritable(source: str) -> bool:
    """libcst cannot write ``source`` back as it is: its tree does not reproduce the file
    byte for byte (libcst 1.9 drops a final lone CR, and blank lines before a last
    whitespace-only line), or its inferred indentation is one libcst cannot write (a form
    feed).  ``fix_source`` refuses such a file (``Skipped``, "not fixed") rather than change
    lines no fix touches."""
    module = cst.parse_module(source)
    try:
        module.config_for_parsing
    except ValueError:
        return True
    return module.code != source


def _applied(problem, unsafe: bool) -> bool:
    return problem.fix is not None and (problem.fix.safe or unsafe)


def _allowed_lines(source: str, ctx, problems, unsafe: bool) -> Set[int]:
    """The input lines a round may delete or replace: the statements of the findings whose
    applied fix edits nodes (for ``EDITS_ELSEWHERE`` rules, also the edited nodes' statements)."""
    lines = physical_lines(source)
    spans = _statement_spans(ast.parse(source), lines)
    allowed: Set[int] = set()
    elsewhere = []
    for problem in problems:
        if not _applied(problem, unsafe) or not problem.fix.edits:
            continue
        allowed |= statement_lines(spans, problem.finding.line)
        code = problem.finding.code
        if code in EDITS_ELSEWHERE and EDITS_ELSEWHERE[code][0](problem.finding):
            elsewhere += [node for node, _ in problem.fix.edits]
    if elsewhere:
        for line, _ in start_positions(ctx.module, elsewhere).values():
            allowed |= statement_lines(spans, line)
    return allowed


def _diff(before: str, after: str) -> str:
    """A unified diff, each line shown with ``repr`` (line breaks and tabs matter here)."""
    old = [repr(line) + "\n" for line in physical_lines(before)]
    new = [repr(line) + "\n" for line in physical_lines(after)]
    return "".join(difflib.unified_diff(old, new, "input", "output", n=1))


def check_round(before: str, after: str, ctx, problems, unsafe: bool) -> None:
    """Property 4 for one round of fixes: ``before`` -> ``after``."""
    if not any(_applied(p, unsafe) for p in problems):
        assert after == before, "no fix to apply, yet the output differs:\n" + _diff(before, after)
        return
    allowed = _allowed_lines(before, ctx, problems, unsafe)
    old, new = physical_lines(before), physical_lines(after)
    protected = [line for number, line in enumerate(old, 1) if number not in allowed]
    # SequenceMatcher's alignment is greedy, not minimal: with repeated lines it can call a
    # kept line "replaced".  The property is that *some* alignment keeps every line outside
    # the allowed statements, i.e. they form a subsequence of the output, in order; the
    # matcher only names the offending lines for the message.
    if kept_in_order(protected, new):
        return
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    touched = sorted({n + 1 for tag, i1, i2, _, _ in matcher.get_opcodes() if tag in ("delete", "replace")
                      for n in range(i1, i2)} - allowed)
    found = ["%d:%d %s (fix %s)" % (p.finding.line, p.finding.column, p.finding.code,
                                    "applied" if _applied(p, unsafe) else "not applied") for p in problems]
    raise AssertionError("the fix changed lines %s outside the statements of the applied fixes (lines %s)\n"
                         "findings: %s\n%s" % (touched, sorted(allowed), found, _diff(before, after)))


def check_conventions(before: str, after: str) -> None:
    """Property 5: CRLF-only stays CRLF-only; tab-indented stays tab-indented."""
    breaks = re.findall(r"\r\n|\r|\n", before)
    if breaks and set(breaks) == {"\r\n"}:
        assert set(re.findall(r"\r\n|\r|\n", after)) == {"\r\n"}, "a CRLF file got other line breaks"
    indents = _statement_indents(before)
    if indents and all(set(indent) == {"\t"} for indent in indents):
        spaced = [indent for indent in _statement_indents(after) if set(indent) != {"\t"}]
        assert not spaced, "a tab-indented file got statements indented otherwise: %r" % spaced


def _statement_indents(source: str) -> List[str]:
    """The indentation of every line that starts an indented statement (lines inside a
    string, a bracket or after a backslash continue as they please)."""
    lines = physical_lines(source)
    starts = sorted({n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.stmt) and n.col_offset})
    indents = [re.match(r"[ \t\f]*", lines[n - 1]).group() for n in starts]
    return [indent for indent in indents if indent]  # empty: the statement follows ``;`` or a header


def _events(source: str, result, unsafe: bool) -> None:
    """What the examples cover (``pytest --hypothesis-show-statistics``)."""
    if not currently_in_test_context():
        return
    applied = [p for p in result.found if _applied(p, unsafe)]
    event("fixes applied: %s" % ("none" if not applied else "with edits" if any(p.fix.edits for p in applied)
                                 else "module-level only"))
    for code in sorted({p.finding.code for p in applied}):
        event("fixed " + code)
    if "\r\n" in source:
        event("CRLF")
    if re.search(r"^\t", source, re.M):
        event("tabs")


def check_fix(source: str, settings_name: str, filename: str, unsafe: bool) -> None:
    """Properties 2-5 for ``fix_source`` on ``source``."""
    chosen = SETTINGS[settings_name]
    try:
        result = fix_source(source, chosen, unsafe=unsafe, noqa=NOQA, filename=filename)
    except Skipped as error:
        guarded, unwritable = _skipped_by_guard(source), _not_rewritable(source)
        assert guarded or unwritable, "Skipped (%s), yet the guard and libcst accept this file" % error
        if currently_in_test_context():
            event("skipped: %s" % ("by the guard" if guarded else "libcst cannot write it back"))
        return
    except ParseFailure as error:  # every generated program parses with ``ast``
        raise AssertionError("ParseFailure on a program ast.parse accepts: %s" % error) from None
    output = result.source
    _events(source, result, unsafe)
    # 2. the output parses
    ast.parse(output)
    cst.parse_module(output)
    assert result.changed == (output != source)
    # 4. round by round, what ``fix_source`` does in its loop, checked step by step (one
    # step: ``only=`` every finding).  The step after the last round is ``fix_source``'s
    # first round on its own output, so it also checks 3.: fixing again changes nothing.
    current, rounds = source, 0
    while True:
        ctx, problems = lint(current, chosen, noqa=NOQA, filename=filename)
        step = fix_source(current, chosen, unsafe=unsafe, noqa=NOQA, filename=filename,
                          only=lambda finding: True, linted=(ctx, problems))
        if rounds == MAX_ROUNDS or step.source == current:
            break
        check_round(current, step.source, ctx, problems, unsafe)
        current, rounds = step.source, rounds + 1
    assert current == output, "fix_source's rounds differ from its single rounds"
    if currently_in_test_context():
        event("rounds: %d" % rounds)
    # 3. idempotent
    assert step.source == output, "a second run changed the output:\n" + _diff(output, step.source)
    # 5. conventions
    check_conventions(source, output)


pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning", "ignore::DeprecationWarning")

# -- Tests ---------------------------------------------------------------------------------

MODES = st.sampled_from([(TRAIN, False), (TEST_MODULE, False), (TRAIN, True), ("lib/model.py", False)])


@_settings(60)
@given(source=generated_python, mode=MODES)
def test_plugin_never_raises_on_generated_python(source, mode):
    run_plugin(source, *mode)


@_settings(200)
@given(source=ml_programs(), mode=MODES)
def test_plugin_never_raises_on_ml_programs(source, mode):
    run_plugin(source, *mode)


@_settings(40)
@given(source=generated_python, settings_name=st.sampled_from(sorted(SETTINGS)), unsafe=st.booleans())
def test_fix_on_generated_python(source, settings_name, unsafe):
    check_fix(source, settings_name, TRAIN, unsafe)


@_settings(150)  # with fixes to apply, an example runs every round twice: the file takes 35 s on 3.9
@given(source=ml_programs(), settings_name=st.sampled_from(sorted(SETTINGS)), unsafe=st.booleans(),
       filename=st.sampled_from([TRAIN, TRAIN, TRAIN, TEST_MODULE, "lib/model.py"]))
@example(source=ALL_RULES[[r.code for r in ALL_RULES].index("DET109")].invalid[0], settings_name="default",
         unsafe=True, filename=TRAIN)  # DET109: the fix edits the declaration, not the reported guard
@example(source="import random\nimport torch\nrandom.shuffle(items)\ndef set_seed(seed):\n    random.seed(seed)",
         settings_name="default", unsafe=False, filename=TRAIN)  # the helper is completed at the end of the
# file: its last line, which had no line break, gets one before ``torch.manual_seed(seed)``
@example(source="from __future__ import annotations\n\nrandom.shuffle(items)\nimport lightning as L\n"
         "trainer = L.Trainer(benchmark=False)", settings_name="default", unsafe=False,
         filename=TRAIN)  # DET303 at line 1, fixed at the Trainer: Trainer(..., deterministic=True)
def test_fix_on_ml_programs(source, settings_name, unsafe, filename):
    check_fix(source, settings_name, filename, unsafe)


@pytest.mark.parametrize("depth", [5, 70])
def test_deep_program_is_skipped_only_when_guard_says_so(depth):
    """The guard's ``Skipped`` is the one accepted ``ParseFailure``: deep enough, it fires."""
    source = "import torch\nx = " + "f(" * depth + "torch.randn(1)" + ")" * depth + "\n"
    assert _skipped_by_guard(source) == (depth == 70)
    check_fix(source, "default", TRAIN, False)
    assert (run_plugin(source, TRAIN, False) == []) == (depth == 70)


# Found by these properties (fixed in bc9dd61): libcst 1.9 does not write back every file
# as it is, and the codemod regenerates the whole module, so a fix changed lines no fix
# touches, or crashed.  determinism-fix now skips such a file ("not fixed"), flake8 still
# reports its problems:
# * a final lone CR was lost (``cst.parse_module("x = 1\\r").code == "x = 1"``);
# * blank lines after the last statement, before a whitespace-only line, were lost
#   (``"x = 1\\n\\n \\n"`` -> ``"x = 1\\n \\n"``);
# * a form feed in the first indented line's indentation (valid Python) became libcst's
#   ``Module.default_indent``, which ``Module.config_for_parsing`` rejects: ValueError.
NOT_REWRITABLE = {
    "final lone CR": "import os\rfiles = os.listdir('d')\rfirst = files[0]\r",
    "blank lines before trailing whitespace": "import os\nfiles = os.listdir('d')\nfirst = files[0]\n\n \n",
    "form feed in the first indentation":
        "import os\nclass A:\n\x0c\tpass\nfiles = os.listdir('d')\nfirst = files[0]\n",
}


@pytest.mark.parametrize("source", list(NOT_REWRITABLE.values()), ids=list(NOT_REWRITABLE))
def test_file_libcst_cannot_write_back_is_reported_not_fixed(source):
    assert _not_rewritable(source)
    assert [message.split()[0] for _, _, message, _ in run_plugin(source, TRAIN, False)] == ["DET206"]
    with pytest.raises(Skipped, match="not fixed"):
        fix_source(source, Settings(), noqa=NOQA, filename=TRAIN)
    check_fix(source, "default", TRAIN, False)
    # Its fixable twin (the same file written the way libcst writes it back) is fixed.
    twin = cst.parse_module(source.replace("\x0c", "")).code
    assert not _not_rewritable(twin)
    assert "sorted(os.listdir('d'))" in fix_source(twin, Settings(), noqa=NOQA, filename=TRAIN).source


# Found by these properties: a listing in a function that also binds ``sorted`` (here after
# the call, so ``sorted`` is local in the whole function).  The DET206 fix wrapped the listing
# in ``sorted(...)`` anyway (``edits.sorted_fix`` checked only the module scope): the fixed
# code raised UnboundLocalError and every run wrapped it again.  Now no scope may bind it.
def test_sorted_shadowed_in_a_function():
    source = "import glob\ndef main():\n    files = glob.glob('*.png')\n    sorted = list\n\nmain()\n"
    check_fix(source, "default", TRAIN, False)
    assert "sorted(glob" not in fix_source(source, Settings(), noqa=NOQA, filename=TRAIN).source
