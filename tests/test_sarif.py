"""``flake8 --format=sarif`` (our report plugin) and ``flake8 --format=json`` (flake8-json), run for real.

The SARIF documents are validated against ``sarif-schema-2.1.0.json``: the OASIS schema with the
approved errata (oasis-tcs/sarif-spec, ``Schemata/sarif-schema-2.1.0.json`` at ffa72eb, identical to
``sarif-2.1/schema/sarif-schema-2.1.0.json`` on main), a draft-04 JSON schema.
"""

import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import flake8
import jsonschema
import pytest
from flake8.violation import Violation

from flake8_determinism import RULE_DOCS_URL
from flake8_determinism.registry import ALL_RULES
from flake8_determinism.sarif import sarif_log

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
SELECT = "--select=DET,F401,E999"
TEXT_LINE = re.compile(r"^(?:\./)?(.*?):(\d+):(\d+): (\S+) (.*)$")


def validate(document):
    validator = jsonschema.validators.validator_for(SCHEMA)
    assert validator is jsonschema.Draft4Validator  # what the schema's "$schema" names
    validator.check_schema(SCHEMA)
    validator(SCHEMA).validate(document)


def flake8_run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "flake8", *args], capture_output=True, text=True,
                          encoding="utf-8", cwd=cwd, timeout=120)


@pytest.fixture
def project(tmp_path):
    """Two DET findings in a file whose path needs percent-encoding, a pyflakes finding, a syntax error."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "my train.py").write_text(
        "import random\n\nimport numpy as np\n\nx = random.random()\nrng = np.random.default_rng()\n"
    )
    (tmp_path / "util.py").write_text("import os\n")
    (tmp_path / "broken.py").write_text("def f(:\n")
    return tmp_path


def rule_of(run, result):
    """The reportingDescriptor a result points to (an extension's rule, or the driver's)."""
    if "rule" in result:
        ref = result["rule"]
        return run["tool"]["extensions"][ref["toolComponent"]["index"]]["rules"][ref["index"]]
    return run["tool"]["driver"]["rules"][result["ruleIndex"]]


def test_sarif_document(project):
    result = flake8_run("--format=sarif", SELECT, ".", cwd=project)
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    validate(document)
    assert document["version"] == "2.1.0"
    (run,) = document["runs"]
    assert run["tool"]["driver"]["name"] == "flake8"
    assert run["tool"]["driver"]["version"] == flake8.__version__
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"

    rows = [
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
            r["locations"][0]["physicalLocation"]["region"]["startColumn"],
            r["ruleId"],
            r["level"],
        )
        for r in run["results"]
    ]
    assert [row[3:] for row in rows] == [
        ("E999", "error"), ("DET101", "warning"), ("DET103", "warning"), ("F401", "warning"),
    ]
    assert rows[1:3] == [
        ("src/my%20train.py", 5, 5, "DET101", "warning"),
        ("src/my%20train.py", 6, 7, "DET103", "warning"),
    ]
    for r in run["results"]:
        assert r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert rule_of(run, r)["id"] == r["ruleId"]

    # The same findings, positions and messages flake8 prints as text.
    text = flake8_run(SELECT, ".", cwd=project).stdout.splitlines()
    printed = sorted(
        (quote(path), int(line), int(col), code, message)
        for path, line, col, code, message in (TEXT_LINE.match(line).groups() for line in text)
    )
    assert sorted(row[:4] + (r["message"]["text"],) for row, r in zip(rows, run["results"])) == printed

    # Our rule, with its description, page and fix kind; other codes: an id only.
    det101 = rule_of(run, run["results"][1])
    doc = next(rule for rule in ALL_RULES if rule.code == "DET101").describe()
    assert det101["shortDescription"]["text"] == doc.summary  # as the rule page and the README table say it
    assert det101["shortDescription"]["text"].startswith("a run uses Python's `random`")
    assert det101["fullDescription"]["text"] == doc.why and "Why it matters: " + doc.why in det101["help"]["text"]
    assert det101["helpUri"] == RULE_DOCS_URL.format(code="DET101")
    assert det101["properties"]["determinism-fix"] == "safe"
    assert run["tool"]["driver"]["rules"] == [{"id": "E999"}, {"id": "F401"}]


def test_every_rule_is_described(project):
    (run,) = json.loads(flake8_run("--format=sarif", "--select=DET", "util.py", cwd=project).stdout)["runs"]
    assert run["results"] == []
    (ours,) = run["tool"]["extensions"]
    assert ours["name"] == "flake8-determinism"
    rules = {rule.code: rule for rule in ALL_RULES}
    assert [d["id"] for d in ours["rules"]] == sorted(rules)
    for descriptor in ours["rules"]:
        rule = rules[descriptor["id"]]
        assert descriptor["helpUri"] == RULE_DOCS_URL.format(code=rule.code)
        assert descriptor["help"]["text"].endswith(descriptor["helpUri"])
        assert descriptor["properties"]["determinism-fix"] == (rule.fixes or "none")
        assert descriptor["shortDescription"]["text"] and not descriptor["shortDescription"]["text"].startswith("DET")
        assert descriptor["fullDescription"]["text"]


def test_output_file_and_tee(project):
    quiet = flake8_run("--format=sarif", SELECT, "--output-file=reports/flake8.sarif", ".", cwd=project)
    assert quiet.returncode == 1 and quiet.stdout == ""
    report = project / "reports" / "flake8.sarif"
    first = json.loads(report.read_text(encoding="utf-8"))
    validate(first)
    assert len(first["runs"][0]["results"]) == 4

    # A second run replaces the document (flake8 appends by default) and --tee prints it too;
    # --statistics and --benchmark would add text, they are left out of the document.
    tee = flake8_run("--format=sarif", SELECT, "--output-file=reports/flake8.sarif", "--tee",
                     "--statistics", "--benchmark", "src", cwd=project)
    written = report.read_text(encoding="utf-8")
    assert tee.stdout == written
    second = json.loads(written)
    validate(second)
    assert [r["ruleId"] for r in second["runs"][0]["results"]] == ["DET101", "DET103"]


def test_sarif_edge_cases_in_process(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    outside = tmp_path.parent / "elsewhere.py"
    document = sarif_log([
        Violation("E902", "missing.py", 0, 1, "FileNotFoundError: missing.py", None),  # flake8 says line 0
        Violation("DET101", str(outside), 3, 5, "random.random() draws ...", None),
    ])
    validate(document)
    elsewhere, unread = document["runs"][0]["results"]  # sorted by URI: "file:///..." first
    assert unread["level"] == "error"
    assert unread["locations"] == [
        {"physicalLocation": {"artifactLocation": {"uri": "missing.py", "uriBaseId": "%SRCROOT%"}}}
    ]
    assert elsewhere["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": outside.as_uri()}

    # The schema is not vacuous: a result without its message is rejected.
    del unread["message"]
    with pytest.raises(jsonschema.ValidationError):
        validate(document)


def test_json_format_from_flake8_json(project):
    result = flake8_run("--format=json", "--select=DET", "src", cwd=project)
    (reports,) = json.loads(result.stdout).values()
    assert [(r["code"], r["line_number"], r["column_number"]) for r in reports] == [
        ("DET101", 5, 5), ("DET103", 6, 7),
    ]
    assert reports[0]["text"].startswith("random.random() draws from Python's global RNG")
