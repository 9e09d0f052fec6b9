"""flake8's configuration and ``# noqa``, through flake8's own machinery."""

import argparse
import contextlib
import io
import os
import re
from typing import Callable, Iterator, Optional, Sequence, Tuple

from ..registry import ALL_RULES
from ..settings import Settings

CODES = tuple(rule.code for rule in ALL_RULES)
_PLAIN = (str, int, float, bool, list, tuple, type(None))


class Flake8Config:
    def __init__(self, config_file: Optional[str] = None, isolated: bool = False, extra: Sequence[str] = ()) -> None:
        """``config_file``: read that file; else flake8's search from the working directory, or
        with ``isolated`` no file at all.  ``extra``: more flake8 arguments."""
        from flake8.options.parse_args import parse_args
        from flake8.style_guide import StyleGuideManager

        argv = ["--config", config_file] if config_file else ["--isolated"] if isolated else []
        argv += extra
        said = io.StringIO()
        try:
            with contextlib.redirect_stderr(said):
                _, self.options = parse_args(argv)
        except SystemExit:  # argparse rejected a value: its last line says which and why
            lines = said.getvalue().strip().splitlines() or ["flake8 rejected the configuration"]
            raise ValueError(lines[-1].replace("flake8: error: ", "")) from None
        self.guides = StyleGuideManager(self.options, formatter=None)

    def settings(self, strict: Optional[bool], torch_version: Optional[str]) -> Settings:
        """Our options from the configuration, the command line winning."""
        options = self.options
        return Settings.from_values(
            strict=options.determinism_strict if strict is None else strict,
            torch_version=torch_version or options.determinism_torch_version,
            seed_functions=options.determinism_seed_functions,
            project_root=options.determinism_project_root,
            cache=not options.determinism_no_cache,
        )

    def files(self, paths: Sequence[str]) -> Iterator[Tuple[str, str]]:
        """(path to open, name to show): flake8's discovery with ``exclude`` and ``extend-exclude``."""
        from flake8.discover_files import expand_paths

        options = self.options
        # Notebooks too: determinism-fix reads them (flake8 itself cannot).
        patterns = [*options.filename, "*.ipynb"]
        for path in expand_paths(paths=list(paths), stdin_display_name="-", filename_patterns=patterns,
                                 exclude=[*options.exclude, *options.extend_exclude]):
            yield path, path

    def codes_for(self, filename: str, select: str, ignore: str) -> frozenset:
        """The codes flake8 would show for this file (``extend-ignore``, ``per-file-ignores``), then
        the command line's ``--select``/``--ignore`` prefixes."""
        from flake8.style_guide import Decision

        guide = self.guides.style_guide_for(filename)
        chosen = [code for code in CODES if guide.should_report_error(code) is Decision.Selected]
        selected = _prefixes(select)
        ignored = _prefixes(ignore)
        return frozenset(
            code for code in chosen
            if (not selected or code.startswith(selected)) and not (ignored and code.startswith(ignored))
        )

    def noqa_options(self) -> dict:
        """The plain options (picklable, for ``-j``) that ``FileProcessor`` reads to map a line to
        its logical line for ``# noqa``; ``max_line_length`` (what added arguments are wrapped at)
        is black's or ruff's ``line-length`` from ``pyproject.toml`` when flake8 keeps its default."""
        options = {name: value for name, value in vars(self.options).items() if isinstance(value, _PLAIN)}
        if options.get("max_line_length") == FLAKE8_DEFAULT_LINE_LENGTH:
            formatter = formatter_line_length(os.getcwd())
            if formatter is not None:
                options["max_line_length"] = formatter
        return options


FLAKE8_DEFAULT_LINE_LENGTH = 79
_SECTION = re.compile(r"^\s*\[([^\]]+)\]\s*$")
_LINE_LENGTH = re.compile(r"^\s*line-length\s*=\s*(\d+)\s*(#.*)?$")


def formatter_line_length(start: str) -> Optional[int]:
    """``line-length`` of ``[tool.black]`` or ``[tool.ruff]`` in the nearest ``pyproject.toml``
    above ``start`` (read as lines: Python < 3.11 has no TOML parser)."""
    from ..rules.common.installed import nearest_texts

    for text in nearest_texts(start, ("pyproject.toml",)):
        section = ""
        for line in text.splitlines():
            header = _SECTION.match(line)
            if header:
                section = header.group(1).strip()
                continue
            found = _LINE_LENGTH.match(line)
            if found and section in ("tool.black", "tool.ruff"):
                return int(found.group(1))
    return None


def _prefixes(text: str) -> tuple:
    return tuple(p.strip().upper() for p in text.split(",") if p.strip())


def silenced(filename: str, lines: Sequence[str], noqa: dict) -> Optional[Callable]:
    """``finding -> bool`` (silenced by ``# noqa``, as flake8 decides it), or None when the file
    says ``# flake8: noqa``."""
    from flake8.processor import FileProcessor
    from flake8.violation import Violation

    processor = FileProcessor(filename, argparse.Namespace(**noqa), lines=list(lines))
    if not noqa["disable_noqa"] and processor.should_ignore_file():
        return None

    def ignored(finding) -> bool:
        physical = processor.noqa_line_for(finding.line) or ""
        violation = Violation(finding.code, filename, finding.line, finding.column + 1, finding.message, physical)
        return violation.is_inline_ignored(noqa["disable_noqa"])

    return ignored
