"""SARIF 2.1.0 output for flake8 (``flake8 --format=sarif``), for GitHub code scanning.

One run: ``tool.driver`` is flake8 itself (its codes, E501, F401, ..., get a rule entry with
just an id), and our rules are a ``tool.extensions`` component with their descriptions, help
and documentation links, as CodeQL lays out its query packs.  Paths are relative to the
working directory under ``%SRCROOT%``, which is what code scanning matches against the
repository.  The document is written once, in ``stop()``, sorted and without timestamps.

flake8 imports every report plugin on every run, whichever format is chosen: this module
imports nothing of ours at the top (the rule table loads in ``stop()``) and never libcst.
"""

import json
import os
from pathlib import Path
from urllib.parse import quote

import flake8
from flake8.formatting.base import BaseFormatter

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
# flake8 could not check the file at all: a syntax error, an unreadable file.
ERROR_CODES = frozenset({"E999", "E902"})


class SarifFormatter(BaseFormatter):
    def after_init(self) -> None:
        self.violations = []

    def start(self) -> None:
        # One JSON document: replace the file (flake8's default appends to it).
        if self.filename:
            os.makedirs(os.path.dirname(os.path.abspath(self.filename)), exist_ok=True)
            self.output_fd = open(self.filename, "w", encoding="utf-8")

    def handle(self, error) -> None:
        self.violations.append(error)

    # Text after the document would make it invalid JSON.
    def show_statistics(self, statistics) -> None:
        pass

    def show_benchmarks(self, benchmarks) -> None:
        pass

    def stop(self) -> None:
        self._write(json.dumps(sarif_log(self.violations), indent=2, ensure_ascii=False))
        super().stop()


def sarif_log(violations) -> dict:
    from . import PROJECT_URL, __version__
    from .registry import ALL_RULES

    ours = sorted(ALL_RULES, key=lambda rule: rule.code)
    our_index = {rule.code: i for i, rule in enumerate(ours)}
    cwd = Path.cwd()
    rows = sorted(
        ((_artifact(v.filename, cwd), v) for v in violations),
        key=lambda row: (row[0], row[1].line_number, row[1].column_number, row[1].code, row[1].text),
    )
    other_codes = sorted({v.code for _, v in rows if v.code not in our_index})
    other_index = {code: i for i, code in enumerate(other_codes)}

    results = []
    for artifact, v in rows:
        result = {
            "ruleId": v.code,
            "level": "error" if v.code in ERROR_CODES else "warning",
            "message": {"text": v.text},
            "locations": [{"physicalLocation": _physical(artifact, v)}],
        }
        if v.code in our_index:
            result["rule"] = {"id": v.code, "index": our_index[v.code], "toolComponent": {"index": 0}}
        else:
            result["ruleIndex"] = other_index[v.code]
        results.append(result)

    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "flake8",
                    "version": flake8.__version__,
                    "informationUri": "https://flake8.pycqa.org/",
                    "rules": [{"id": code} for code in other_codes],
                },
                "extensions": [{
                    "name": "flake8-determinism",
                    "version": __version__,
                    "informationUri": PROJECT_URL,
                    "rules": [_descriptor(rule) for rule in ours],
                }],
            },
            # SARIF needs the base of relative URIs declared; code scanning uses the checkout.
            "originalUriBaseIds": {SRCROOT: {"uri": _directory_uri(cwd)}},
            "columnKind": "unicodeCodePoints",  # flake8's columns index Python strings
            "results": results,
        }],
    }


def _artifact(filename: str, cwd: Path) -> tuple:
    """(uri, uriBaseId or ""): relative to the working directory when the file lies under it."""
    path = Path(os.path.abspath(filename))
    try:
        return quote(path.relative_to(cwd).as_posix()), SRCROOT
    except ValueError:
        return path.as_uri(), ""


def _directory_uri(path: Path) -> str:
    uri = path.as_uri()
    return uri if uri.endswith("/") else uri + "/"  # a base URI names a directory: trailing slash


def _physical(artifact: tuple, v) -> dict:
    uri, base = artifact
    location = {"artifactLocation": {"uri": uri, "uriBaseId": base} if base else {"uri": uri}}
    if v.line_number >= 1:  # flake8 reports some file-level errors (E902) at line 0
        # flake8's columns are 1-based already (``Violation.column_number``), as SARIF's.
        location["region"] = {"startLine": v.line_number, "startColumn": max(v.column_number, 1)}
    return location


def _descriptor(rule) -> dict:
    """The rule's entry, from its docstring (``Rule.describe``, as the rule pages)."""
    from . import RULE_DOCS_URL

    code = rule.code
    doc = rule.describe()
    url = RULE_DOCS_URL.format(code=code)
    body = "\n\n".join(text for text in (
        doc.what, doc.why and "Why it matters: " + doc.why, doc.fix and "Fix: " + doc.fix) if text)
    return {
        "id": code,
        "name": type(rule).__name__,
        "shortDescription": {"text": doc.summary},
        "fullDescription": {"text": doc.why or doc.summary},
        "help": {"text": f"{body}\n\nDocumentation: {url}", "markdown": f"{body}\n\n[{code} documentation]({url})"},
        "helpUri": url,
        "defaultConfiguration": {"level": "warning"},
        "properties": {
            "tags": ["reproducibility", rule.family().replace(" ", "-")],
            # what ``determinism-fix`` does with it: safe, unsafe, sometimes (safe or unsafe), none
            "determinism-fix": rule.fixes or "none",
        },
    }
