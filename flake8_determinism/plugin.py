"""The flake8 adapter: options in, findings out.  All analysis lives in ``checker``."""

import argparse
import os
from typing import Iterator, List, Tuple

from . import __version__, notebooks, precheck
from .registry import ALL_RULES
from .settings import Settings, parse_version


def _torch_version(text: str) -> str:
    if text and parse_version(text) is None:
        raise argparse.ArgumentTypeError("expected MAJOR.MINOR such as 2.8, got %r" % text)
    return text


NOTEBOOK_NOTICE = (
    "DET001 flake8 cannot read notebooks (it parses the JSON as Python): nothing here was checked"
    " — lint it with `nbqa flake8 --select=DET {path}`, fix it with `determinism-fix {path}`")


class DeterminismChecker:
    name = "flake8-determinism"
    version = __version__
    settings = Settings()

    def __init__(self, tree, lines: List[str], filename: str) -> None:
        # flake8 only calls tree plugins for files ``ast.parse`` accepted; the
        # tree feeds the pre-check, the analysis runs on libcst's tree.
        self.tree = tree
        self.lines = lines
        self.filename = filename  # test modules are judged apart

    @staticmethod
    def add_options(parser) -> None:
        parser.add_option(
            "--determinism-strict",
            action="store_true",
            default=False,
            parse_from_config=True,
            help="Debug-reproducibility mode: also report RNG draws in library functions, "
            "every Dropout/Random* op and shuffle flag, every CUDA-nondeterministic op.",
        )
        parser.add_option(
            "--determinism-torch-version",
            default="",
            type=_torch_version,
            parse_from_config=True,
            metavar="X.Y",
            help="torch version the code targets (default: the installed torch, else the newest known).",
        )
        parser.add_option(
            "--determinism-seed-functions",
            default="",
            comma_separated_list=True,
            parse_from_config=True,
            metavar="NAMES",
            help="Extra functions that seed every RNG, e.g. mypkg.utils.fix_randomness.",
        )

        parser.add_option(
            "--determinism-project-root",
            default="",
            parse_from_config=True,
            metavar="DIR",
            help="Root of the project whose runs are judged (default: the nearest directory above the "
            "file holding pyproject.toml, setup.cfg, setup.py or .git); 'none' judges each file alone.",
        )
        parser.add_option(
            "--determinism-no-cache",
            action="store_true",
            default=False,
            parse_from_config=True,
            help="Do not keep module summaries in DIR/.determinism_cache between runs.",
        )

    named_files: frozenset = frozenset()  # files named on the command line (not found in a folder)

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        cls.named_files = frozenset(
            name for name in getattr(options, "filenames", None) or () if os.path.isfile(name))
        cls.settings = Settings.from_values(
            strict=options.determinism_strict,
            torch_version=options.determinism_torch_version,
            seed_functions=options.determinism_seed_functions,
            project_root=options.determinism_project_root,
            cache=not options.determinism_no_cache,
        )

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        if notebooks.is_notebook(self.filename):
            # flake8 reads a notebook's JSON as Python and would find nothing: say so.
            yield 1, 0, NOTEBOOK_NOTICE.format(path=self.filename), type(self)
            return
        source = "".join(self.lines)
        candidates = precheck.rules_for_words(source, self.settings, ALL_RULES, self.tree)
        if not candidates:
            return  # nothing can fire: libcst is never loaded for this file
        from .analysis.project.results import linked_copy, results_for

        if self.filename not in self.named_files and linked_copy(self.filename, self.settings):
            return  # found by walking a folder: judged where it lives, the same report once
        results = results_for(self.filename, self.settings)
        check = results.check(source, self.filename, self.settings) if results is not None else None
        found = results.get(self.filename, check) if results is not None else None
        if found is None:
            found = self._lint(source, candidates, results, check)
        for line, column, _, message in notebooks.nbqa_placed(found, self.filename, self.lines):
            yield line, column, message, type(self)

    def _lint(self, source: str, candidates, results, check) -> list:
        from .analysis.project.witness import recording
        from .checker import check_source  # loads libcst, only for files that need it

        with recording() as witness:
            found = check_source(
                source, self.settings, candidates, tree=self.tree, words_checked=True, filename=self.filename,
                path=self.filename,
            )
        found = [(f.line, f.column, f.code, f.message) for f in found]
        if results is not None:
            results.put(self.filename, check, witness.as_data(), found)
        return found
